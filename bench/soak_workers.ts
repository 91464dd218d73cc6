// Soak test for pooled runs: runs programs again and again as whole
// `deno run -A mod.ts prog.pb --workers 2` processes, `parallel` at a time
// (so that the workers compete for the cores and their interleavings vary),
// and checks that every run exits 0 and prints what `--workers 1` prints.
// A race shows up here as a rare failure that no single test run catches:
// this found the shared heap's stale views (a worker writing a block's
// header through views that ended before it), about one run in 30.
//
//   deno run -A bench/soak_workers.ts [runs per program] [parallel]
//
// The programs: the examples that use goroutines and channels, a
// parallel_for whose iterations write large tensors into a shared array (the
// shape that found the race), large tensors streamed over a channel from
// both workers, and Go's doubleselect with large tensors.

import {
  arrayToTensor,
  arrayWrite,
  createArray,
  elementwiseAdd,
  fillConstant,
  forRange,
  go,
  makeChannel,
  matmul,
  mean,
  parallelFor,
  print,
  Program,
  recv,
  scale,
  select,
  send,
  uniformRandom,
} from "../mod.ts";

const runs = Number(Deno.args[0] ?? 20);
const parallel = Number(Deno.args[1] ?? 2);
const root = new URL("../", import.meta.url).pathname;

function parallelForProgram(): Program {
  const program = new Program();
  program.guard(() => {
    const out = createArray({ dtype: "float32" });
    parallelFor(8, (index) => {
      // Many large outputs soon dead: the shared heap grows while the
      // workers allocate in it.
      const x = uniformRandom({ shape: [512, 512] });
      const y = fillConstant({ shape: [512, 512], value: 0 });
      forRange(150, () => {
        scale(x, { scale: 0.5, out: y });
      });
      arrayWrite(matmul(y, x), index, out);
    });
    print(mean(arrayToTensor(out)), { message: "checksum" });
  });
  return program;
}

// Two goroutines (movable: one on each worker) send large tensors over one
// buffered channel; the main thread sums them. Each is all ones, so the sum
// is exact in any order.
function pipelineProgram(): Program {
  const program = new Program();
  program.guard(() => {
    const tensors = makeChannel({ capacity: 4, dtype: "float32" });
    const done = makeChannel({ dtype: "int64" });
    for (let producer = 0; producer < 2; producer++) {
      go(() => {
        forRange(60, () => {
          send(tensors, fillConstant({ shape: [512, 512], value: 1 }));
        });
        send(done, fillConstant({ shape: [1], dtype: "int64", value: 1 }));
      });
    }
    const total = fillConstant({ shape: [512, 512], value: 0 });
    forRange(120, () => {
      elementwiseAdd(total, recv(tensors), { out: total });
    });
    recv(done);
    recv(done);
    print(mean(total), { message: "mean" });
  });
  return program;
}

// Go's doubleselect with large tensors: a goroutine on each worker offers
// every tensor on either of two channels; the main thread takes them with
// a select over both. All ones again: the sum is exact in any order, and a
// tensor delivered twice or lost changes it.
function doubleSelectProgram(): Program {
  const program = new Program();
  program.guard(() => {
    const c1 = makeChannel({ dtype: "float32" });
    const c2 = makeChannel({ dtype: "float32" });
    for (let sender = 0; sender < 2; sender++) {
      go(() => {
        forRange(50, () => {
          const t = fillConstant({ shape: [256, 256], value: 1 });
          select((s) => {
            s.send(c1, t);
            s.send(c2, t);
          });
        });
      });
    }
    const total = fillConstant({ shape: [256, 256], value: 0 });
    forRange(100, () => {
      select((s) => {
        s.recv(c1, (v) => elementwiseAdd(total, v, { out: total }));
        s.recv(c2, (v) => elementwiseAdd(total, v, { out: total }));
      });
    });
    print(mean(total), { message: "mean" });
  });
  return program;
}

async function run(path: string, workers: number): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    // A seed: parallel_for's uniform_random draws from the run's seed, and
    // a seed fixes every thread's draws whatever the worker count.
    args: [
      "run",
      "-A",
      `${root}mod.ts`,
      path,
      "--workers",
      String(workers),
      "--seed",
      "1",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) +
    new TextDecoder().decode(out.stderr);
  return `exit ${out.code}\n${text}`;
}

const dir = await Deno.makeTempDir();
const programs = [
  "prime_sieve",
  "select",
  "goroutine",
  "buffered_channel",
  "parallel_mult",
].map((name) => `${root}examples/${name}.pb`);
const built = [
  ["parallel_for", parallelForProgram],
  ["pipeline", pipelineProgram],
  ["double_select", doubleSelectProgram],
] as const;
for (const [name, build] of built) {
  const path = `${dir}/${name}.pb`;
  await build().save(path);
  programs.push(path);
}

let failures = 0;
for (const path of programs) {
  const expected = await run(path, 1);
  let failed = 0;
  for (let done = 0; done < runs; done += parallel) {
    const batch = Math.min(parallel, runs - done);
    const got = await Promise.all(
      Array.from({ length: batch }, () => run(path, 2)),
    );
    for (const text of got) {
      if (text === expected) continue;
      failed++;
      console.log(`${path}: differs from --workers 1:\n${text.slice(0, 400)}`);
    }
  }
  console.log(
    `${path.slice(path.lastIndexOf("/") + 1)}: ${failed} of ${runs} failed`,
  );
  failures += failed;
}
await Deno.remove(dir, { recursive: true });
if (failures > 0) Deno.exit(1);
