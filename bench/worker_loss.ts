// What losing a worker costs a transpiled run (issue 21, item 3), with
// real processes on 127.0.0.1:
//
// 1. Retry after `kill -9`: a `send`'s call (the ops' own callPiece, with
//    retry) of one piece to worker 1, which is killed as soon as it serves
//    the piece (its health says so), so the piece goes to worker 0. The
//    time from the kill to the reply, less the time worker 0 takes to
//    compute the piece alone, is the retry's own cost (bar: ≤ 1 s). For
//    context, whole master runs over 3 workers, with no loss and with
//    worker 1 killed the same way (on 2 cores the loss also frees a core,
//    so the whole runs say little).
// 2. Keepalive detection of a stopped worker with the default keepalive
//    (10 s): a client call to a worker that is `kill -STOP`ped once it
//    serves the call; the time from the stop until the call fails
//    `unavailable` (bar: ≤ 15 s).
//
// The program: 1,500 rows of 128 float32 through 400 products by a
// 128 × 128 matrix, each followed by relu, then a product to 2 columns,
// printed; pieces of 500 rows. Workers are started per round and killed
// at the end of it; the temporary directory goes too.
//
//   deno run -A bench/worker_loss.ts [rounds]

import {
  assignValue,
  encodeNpy,
  mul,
  print,
  Program,
  read,
  relu,
  Tensor,
  transpileFiles,
} from "../mod.ts";
import { connectWorker } from "../runtime/cluster/worker_client.ts";
import type { RunServices } from "../runtime/core/thread_context.ts";
import { callPiece } from "../runtime/ops/_worker_calls.ts";
import {
  type RillWorker,
  startRillWorker,
  stopRillWorkers,
} from "../tests/_helpers/rill_worker.ts";

const rounds = Number(Deno.args[0] ?? 3);
const [ROWS, WIDTH, STEPS, WORKERS] = [1_500, 128, 400, 3];
const LISTEN_TIMEOUT_MS = 60_000;
const mod = new URL("../mod.ts", import.meta.url).pathname;

/** Writes the program and its input; returns the program's path. */
async function writeProgram(dir: string): Promise<string> {
  const x = Tensor.fromArray(
    Array.from({ length: ROWS * WIDTH }, (_, i) => ((i * 37) % 101) / 101),
    "float32",
    [ROWS, WIDTH],
  );
  await Deno.writeFile(`${dir}/x.npy`, encodeNpy(x));
  const w = Array.from(
    { length: WIDTH * WIDTH },
    (_, i) => i % (WIDTH + 1) === 0 ? 1 : 0,
  );
  const out = Array.from({ length: WIDTH * 2 }, (_, i) => (i % 7) - 3);
  const p = new Program();
  p.guard(() => {
    const [xs] = read(`${dir}/x.npy`);
    const wv = assignValue(w, { shape: [WIDTH, WIDTH] });
    let y = xs;
    for (let i = 0; i < STEPS; i++) y = relu(mul(y, wv));
    print(mul(y, assignValue(out, { shape: [WIDTH, 2] })), { message: "Y" });
  });
  await p.save(`${dir}/slow.pb`);
  return `${dir}/slow.pb`;
}

async function startWorkers(workerPb: string): Promise<RillWorker[]> {
  const workers: RillWorker[] = [];
  for (let i = 0; i < WORKERS; i++) {
    workers.push(await startRillWorker(workerPb, LISTEN_TIMEOUT_MS));
  }
  return workers;
}

async function untilServing(addr: string): Promise<void> {
  using client = connectWorker(addr, { token: "" });
  for (let i = 0; i < 3_000; i++) {
    if ((await client.health({ timeoutMs: 5_000 })).callsInFlight > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`worker ${addr} served no call`);
}

/** One master run; `lose` runs once worker 1 serves. Returns ms. */
async function masterRun(
  master: string,
  workers: RillWorker[],
  lose?: (w: RillWorker) => void,
): Promise<number> {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      mod,
      master,
      "--worker-addrs",
      workers.map((w) => w.addr).join(","),
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (lose !== undefined) {
    await untilServing(workers[1].addr);
    lose(workers[1]);
  }
  const { code, stderr } = await child;
  if (code !== 0) throw new Error(new TextDecoder().decode(stderr));
  return performance.now() - started;
}

/** One piece (ROWS / WORKERS rows) computed by one idle worker, in ms. */
async function pieceTime(addr: string, fingerprint: string): Promise<number> {
  using client = connectWorker(addr, { token: "" });
  const rows = ROWS / WORKERS;
  const piece = Tensor.fromArray(
    Array.from({ length: rows * WIDTH }, (_, i) => ((i * 37) % 101) / 101),
    "float32",
    [rows, WIDTH],
  );
  const started = performance.now();
  await client.call("listen_and_do", { input: piece }, {
    program: fingerprint,
  });
  return performance.now() - started;
}

/** From a kill -9 of worker 1 to the retried piece's reply, in ms. */
async function retryTime(workers: RillWorker[], fingerprint: string) {
  const rows = ROWS / WORKERS;
  const piece = Tensor.fromArray(
    Array.from({ length: rows * WIDTH }, (_, i) => ((i * 37) % 101) / 101),
    "float32",
    [rows, WIDTH],
  );
  const call = callPiece(
    {} as RunServices,
    {
      endpoints: [workers[0].addr, workers[1].addr],
      index: 1,
      program: fingerprint,
      retry: true,
    },
    piece,
  );
  await untilServing(workers[1].addr);
  workers[1].child.kill("SIGKILL");
  const killed = performance.now();
  await call;
  return performance.now() - killed;
}

/** From a stop to the failure of the call in flight, in ms. */
async function detection(addr: string, fingerprint: string, w: RillWorker) {
  using client = connectWorker(addr, { token: "" });
  const piece = Tensor.fromArray(
    new Array(ROWS * WIDTH).fill(0.5),
    "float32",
    [ROWS, WIDTH],
  );
  const call = client.call("listen_and_do", { input: piece }, {
    program: fingerprint,
  }).then(() => "replied", (e) => String(e.message));
  await untilServing(addr);
  w.child.kill("SIGSTOP");
  const stopped = performance.now();
  const outcome = await call;
  return { ms: performance.now() - stopped, outcome };
}

const dir = await Deno.makeTempDir({ prefix: "rill_bench_loss_" });
try {
  const files = await transpileFiles(await writeProgram(dir), `${dir}/out`);
  for (let r = 0; r < rounds; r++) {
    let workers = await startWorkers(files.worker);
    try {
      const piece = await pieceTime(workers[0].addr, files.fingerprint);
      const retry = await retryTime(workers, files.fingerprint);
      await stopRillWorkers(workers);
      workers = await startWorkers(files.worker);
      const base = await masterRun(files.master, workers);
      const lost = await masterRun(
        files.master,
        workers,
        (w) => w.child.kill("SIGKILL"),
      );
      await stopRillWorkers(workers);
      workers = await startWorkers(files.worker);
      const stop = await detection(
        workers[2].addr,
        files.fingerprint,
        workers[2],
      );
      console.log(
        `round ${r + 1}: kill -9 to reply ${retry.toFixed(0)} ms, one piece ` +
          `alone ${piece.toFixed(0)} ms: retry cost ${
            (retry - piece).toFixed(0)
          } ms; kill -STOP noticed after ${
            stop.ms.toFixed(0)
          } ms (${stop.outcome}); ` +
          `whole runs ${base.toFixed(0)} ms, with kill -9 ${
            lost.toFixed(0)
          } ms`,
      );
    } finally {
      for (const w of workers) {
        try {
          w.child.kill("SIGCONT");
        } catch {
          // gone
        }
      }
      await stopRillWorkers(workers);
    }
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
