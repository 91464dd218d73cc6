// Whole-process timing of the design doc's distributed `mult` (issue 11):
// Y = X · W with X 4096×1024 and W 1024×1024 float32, run as one process
// (`deno run -A mod.ts mult.pb`) and as the transpiled master against 2
// local worker processes (`deno run -A mod.ts master.pb --worker-addrs
// a,b`), alternating, start-up included. On 2 cores the workers cannot
// beat one process that already splits its product over both cores; the
// figure is the cost of the split: the master's own start-up, cutting X,
// 2 × 8 MiB out and back over Connect-RPC, and joining Y.
//
// The program: `X = read(x.npy)`, `W = load(w.npy)` (the parameter, which
// each worker loads once when it starts, before any timing), `Y = mul(X,
// W)`, and a `fetch` of Y, which both runs write with `--fetch Y=out.npy`
// (printing 4M floats would cost more than the product). Both outputs must
// be equal byte for byte in every round. Workers are started once, with
// `worker --listen 127.0.0.1:0`, and killed at the end; the temporary
// directory goes too, on an error or Ctrl-C as well.
//
// Both run with default flags: the one process splits its product over a
// pool of 2 threads (both cores), and the master places the `parallel_for`
// iterations that call the workers on a pool of 2 threads too.
//
//   deno run -A bench/distributed_mult.ts [rounds]

import {
  encodeNpy,
  load,
  mul,
  Program,
  read,
  Tensor,
  transpileFiles,
} from "../mod.ts";
import { randomFloat32 } from "./_timings.ts";
import {
  type RillWorker,
  startRillWorker,
  stopRillWorkers,
} from "../tests/_helpers/rill_worker.ts";

const rounds = Number(Deno.args[0] ?? 5);
const [ROWS, INNER, COLS] = [4096, 1024, 1024];
const WORKERS = 2;
/** How long a worker may take to print its address. */
const LISTEN_TIMEOUT_MS = 60_000;
/** How long one run may take before it is killed (both take seconds). */
const RUN_TIMEOUT_MS = 120_000;

const mod = new URL("../mod.ts", import.meta.url).pathname;
const decoder = new TextDecoder();

/**
 * Writes x.npy, w.npy and mult.pb into `dir`.
 *
 * @returns The program's path and the name of Y.
 */
async function writeProgram(dir: string): Promise<[string, string]> {
  const x = new Tensor(
    "float32",
    [ROWS, INNER],
    randomFloat32(ROWS * INNER, 1),
  );
  const w = new Tensor(
    "float32",
    [INNER, COLS],
    randomFloat32(INNER * COLS, 2),
  );
  await Deno.writeFile(`${dir}/x.npy`, encodeNpy(x));
  await Deno.writeFile(`${dir}/w.npy`, encodeNpy(w));
  const program = new Program();
  const y = program.guard(() => {
    const [xs] = read(`${dir}/x.npy`);
    const ys = mul(xs, load(`${dir}/w.npy`));
    const block = program.currentBlock;
    const list = block.createVar({ name: "fetch", kind: "array" });
    block.appendOp({
      type: "fetch",
      inputs: { X: ys },
      outputs: { Out: list },
      attrs: { col: 0 },
    });
    return ys;
  });
  await program.save(`${dir}/mult.pb`);
  return [`${dir}/mult.pb`, y.name];
}

/**
 * Runs `deno run -A mod.ts ...args` and times the whole process.
 *
 * @returns The wall time in ms and the output file's bytes.
 */
async function timeRun(
  args: string[],
  out: string,
): Promise<[number, Uint8Array]> {
  await Deno.remove(out).catch(() => {});
  const t0 = performance.now();
  const run = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", mod, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(RUN_TIMEOUT_MS),
  }).output();
  const ms = performance.now() - t0;
  if (!run.success) {
    const why = run.signal === null
      ? `exit ${run.code}`
      : `${run.signal} (a limit of ${RUN_TIMEOUT_MS} ms)`;
    throw new Error(
      `${args.join(" ")}: ${why}: ${decoder.decode(run.stderr)}`,
    );
  }
  return [ms, await Deno.readFile(out)];
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `[median, best]` in ms. */
function summary(times: number[]): [number, number] {
  const sorted = times.toSorted((a, b) => a - b);
  return [sorted[Math.floor(sorted.length / 2)], sorted[0]];
}

const dir = await Deno.makeTempDir({ prefix: "rill_distributed_mult_" });
const workers: RillWorker[] = [];
let cleaned: Promise<void> | undefined;
function cleanUp(): Promise<void> {
  cleaned ??= stopRillWorkers(workers).finally(() =>
    Deno.remove(dir, { recursive: true }).catch(() => {})
  );
  return cleaned;
}
// Ctrl-C skips `finally`; the workers would outlive the bench.
function onInterrupt(): void {
  cleanUp().finally(() => Deno.exit(130));
}
Deno.addSignalListener("SIGINT", onInterrupt);

try {
  const [path, y] = await writeProgram(dir);
  const files = await transpileFiles(path, `${dir}/split`);
  for (let i = 0; i < WORKERS; i++) {
    workers.push(
      await startRillWorker(files.worker, LISTEN_TIMEOUT_MS, "inherit"),
    );
  }
  const addrs = workers.map((w) => w.addr).join(",");
  const singleOut = `${dir}/single.npy`;
  const distributedOut = `${dir}/distributed.npy`;
  const single = () =>
    timeRun([path, "--fetch", `${y}=${singleOut}`], singleOut);
  const distributed = () =>
    timeRun(
      [
        files.master,
        "--worker-addrs",
        addrs,
        "--fetch",
        `${y}=${distributedOut}`,
      ],
      distributedOut,
    );
  // Warm Deno's module cache and the workers' first call.
  await single();
  await distributed();
  const times: Record<"single" | "distributed", number[]> = {
    single: [],
    distributed: [],
  };
  for (let r = 0; r < rounds; r++) {
    const [one, a] = await single();
    const [two, b] = await distributed();
    if (!equalBytes(a, b)) throw new Error(`round ${r}: outputs differ`);
    times.single.push(one);
    times.distributed.push(two);
  }
  const [oneMedian, oneBest] = summary(times.single);
  const [twoMedian, twoBest] = summary(times.distributed);
  console.log(
    `Y = X·W, X ${ROWS}×${INNER}, W ${INNER}×${COLS} float32, ` +
      `${rounds} rounds, whole processes, outputs equal byte for byte:`,
  );
  console.log("| run                              | median   | best     |");
  console.log("| -------------------------------- | -------- | -------- |");
  const row = (what: string, median: number, best: number) =>
    console.log(
      `| ${what.padEnd(32)} | ${`${median.toFixed(0)} ms`.padStart(8)} | ${
        `${best.toFixed(0)} ms`.padStart(8)
      } |`,
    );
  row("one process", oneMedian, oneBest);
  row(`master + ${WORKERS} local workers`, twoMedian, twoBest);
  console.log(
    `distributed ÷ one process: ${
      (twoMedian / oneMedian).toFixed(2)
    } × median, ` +
      `${(twoBest / oneBest).toFixed(2)} × best ` +
      `(+${(twoMedian - oneMedian).toFixed(0)} ms median)`,
  );
} finally {
  Deno.removeSignalListener("SIGINT", onInterrupt);
  await cleanUp();
}
