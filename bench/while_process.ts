// Whole-process timing of an interpreted `while` (issue 23): `deno run -A
// mod.ts prog.pb` of a loop of `passes` passes that adds the index into a
// total (`elementwise_add`, `increment`, `less_than`), minus the same
// process running a loop of 1 pass (start-up, decode, validate). CPython's
// `while i < n: t += i; i += 1` runs beside it when `python3` exists (CI
// has none; this comparison lives only here).
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

async function time(cmd: string, args: string[]): Promise<number> {
  const t0 = performance.now();
  const out = await new Deno.Command(cmd, {
    args,
    stdout: "null",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`${cmd} failed`);
  return performance.now() - t0;
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
console.log(`${passes} passes; ms with start-up subtracted`);
for (let r = 0; r < rounds; r++) {
  const rill = await time(Deno.execPath(), ["run", "-A", mod, longPath]) -
    await time(Deno.execPath(), ["run", "-A", mod, shortPath]);
  let line = `rill ${fmt(rill)} (${(rill * 1e6 / passes).toFixed(0)} ns/pass)`;
  if (python) {
    const py = await time("python3", ["-c", script(passes)]) -
      await time("python3", ["-c", script(1)]);
    line += `  python3 ${fmt(py)}  ratio ${(rill / py).toFixed(2)}`;
  }
  console.log(line);
}
await Deno.remove(dir, { recursive: true });
