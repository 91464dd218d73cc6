// Whole-process timing of an interpreted `while` (issue 23): `deno run -A
// mod.ts prog.pb` of a loop of `passes` passes that adds the index into a
// total (`elementwise_add`, `increment`, `less_than`), minus the same
// process running a loop of 1 pass (start-up, decode, validate). CPython's
// `while i < n: t += i; i += 1` runs beside it when `python3` exists (CI
// has none; this comparison lives only here). Each round runs both; the
// last line gives the ratio of the medians, of wall time and of the
// children's CPU time (Linux), which a loaded host disturbs less.
//
//   deno run -A bench/while_process.ts [rounds] [passes]

import {
  elementwiseAdd,
  fillConstant,
  increment,
  lessThan,
  print,
  Program,
  whileLoop,
} from "../mod.ts";

const rounds = Number(Deno.args[0] ?? 5);
const passes = Number(Deno.args[1] ?? 3_000_000);

function build(n: number): Program {
  const program = new Program();
  program.guard(() => {
    const i = fillConstant({ shape: [1], dtype: "int64", value: 0 });
    const total = fillConstant({ shape: [1], dtype: "int64", value: 0 });
    const limit = fillConstant({ shape: [1], dtype: "int64", value: n });
    const cond = lessThan(i, limit);
    whileLoop(cond, () => {
      elementwiseAdd(total, i, { out: total });
      increment(i);
      lessThan(i, limit, { out: cond });
    });
    print(total, { message: "total" });
  });
  return program;
}

const dir = await Deno.makeTempDir();
const mod = new URL("../mod.ts", import.meta.url).pathname;
const longPath = `${dir}/while.pb`;
const shortPath = `${dir}/while_1.pb`;
await build(passes).save(longPath);
await build(1).save(shortPath);

// The CPU time (user + system, ms) of this process's finished children,
// from /proc/self/stat (Linux; `undefined` elsewhere). On a loaded host the
// wall time of a child carries the other processes' share of the cores;
// its CPU time mostly does not.
function childCpuMs(): number | undefined {
  try {
    const stat = Deno.readTextFileSync("/proc/self/stat");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // cutime and cstime are fields 16 and 17 (1-based), in clock ticks.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return undefined;
  }
}

/** Wall and child-CPU ms of one run of `cmd`. */
async function time(
  cmd: string,
  args: string[],
): Promise<[number, number | undefined]> {
  const c0 = childCpuMs();
  const t0 = performance.now();
  const out = await new Deno.Command(cmd, {
    args,
    stdout: "null",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`${cmd} failed`);
  const wall = performance.now() - t0;
  const c1 = childCpuMs();
  return [wall, c0 === undefined || c1 === undefined ? undefined : c1 - c0];
}

// A long run minus a short one: [wall, cpu].
async function net(
  cmd: string,
  long: string[],
  short: string[],
): Promise<[number, number | undefined]> {
  const [w1, c1] = await time(cmd, long);
  const [w0, c0] = await time(cmd, short);
  return [w1 - w0, c1 === undefined || c0 === undefined ? undefined : c1 - c0];
}

const script = (n: number) =>
  `i = 0\nt = 0\nn = ${n}\nwhile i < n:\n    t += i\n    i += 1\nprint(t)`;

async function hasPython(): Promise<boolean> {
  try {
    return (await new Deno.Command("python3", { args: ["-c", "1"] }).output())
      .success;
  } catch {
    return false;
  }
}

const python = await hasPython();
const fmt = (ms: number) => ms.toFixed(0).padStart(6);
const median = (xs: number[]) =>
  xs.slice().sort((a, b) => a - b)[xs.length >> 1];
console.log(`${passes} passes; ms with start-up subtracted (wall, CPU)`);
const rows: { rill: [number, number?]; py?: [number, number?] }[] = [];
for (let r = 0; r < rounds; r++) {
  const deno = Deno.execPath();
  const rill = await net(deno, ["run", "-A", mod, longPath], [
    "run",
    "-A",
    mod,
    shortPath,
  ]);
  let line = `rill ${fmt(rill[0])} wall, ${fmt(rill[1] ?? NaN)} CPU (${
    (rill[0] * 1e6 / passes).toFixed(0)
  } ns/pass wall)`;
  const row: (typeof rows)[number] = { rill };
  if (python) {
    const py = await net("python3", ["-c", script(passes)], [
      "-c",
      script(1),
    ]);
    row.py = py;
    line += `  python3 ${fmt(py[0])} wall, ${fmt(py[1] ?? NaN)} CPU`;
  }
  rows.push(row);
  console.log(line);
}
if (python && rounds > 0) {
  const ratio = (i: 0 | 1) =>
    (median(rows.map((r) => r.rill[i] ?? NaN)) /
      median(rows.map((r) => r.py![i] ?? NaN))).toFixed(2);
  console.log(`medians: rill/python3 ${ratio(0)} wall, ${ratio(1)} CPU`);
}
await Deno.remove(dir, { recursive: true });
