// Large elementwise ops, softmax and a row-wise reduction through the
// runtime, split over the pool's workers (intra-op parallelism) vs one
// worker. A goroutine that another worker may run makes the run pooled.
// Each executor runs the program once to warm up, then `rounds` timed runs.
//
//   deno run -A bench/elementwise_workers.ts [n] [count] [rounds]

import {
  elementwiseAdd,
  elementwiseMul,
  Executor,
  exp,
  fillConstant,
  forRange,
  go,
  makeChannel,
  mean,
  print,
  Program,
  recv,
  reduceSum,
  send,
  softmax,
  uniformRandom,
} from "../mod.ts";

const n = Number(Deno.args[0] ?? 1024);
const count = Number(Deno.args[1] ?? 10);
const rounds = Number(Deno.args[2] ?? 5);

const program = new Program();
program.guard(() => {
  const ready = makeChannel({ dtype: "int32" });
  go(() => send(ready, fillConstant({ shape: [1], dtype: "int32" })));
  recv(ready);
  const x = uniformRandom({ shape: [n, n] });
  const y = fillConstant({ shape: [n, n], value: 0 });
  const s = fillConstant({ shape: [n], value: 0 });
  forRange(count, () => {
    exp(elementwiseMul(x, x), { out: y });
    softmax(elementwiseAdd(y, x), { out: y });
    reduceSum(y, { dim: [1], out: s });
  });
  print(mean(s), { message: "checksum" });
});

const results: Record<number, { ms: number; line: string }> = {};
for (const workers of [1, 2]) {
  let line = "";
  const executor = new Executor({ workers, print: (l) => line = l });
  await executor.run(program);
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    await executor.run(program);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  results[workers] = { ms: times[Math.floor(rounds / 2)], line };
}
if (results[1].line !== results[2].line) {
  throw new Error(`outputs differ: ${results[1].line} vs ${results[2].line}`);
}
console.log(
  `${count} rounds of 5 ops over ${n}² float32, median of ${rounds} runs:`,
);
for (const w of [1, 2]) {
  console.log(`  workers ${w}: ${results[w].ms.toFixed(0)} ms`);
}
console.log(`  speed-up: ${(results[1].ms / results[2].ms).toFixed(2)}x`);
