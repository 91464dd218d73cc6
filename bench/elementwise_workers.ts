// Large elementwise ops, softmax and a row-wise reduction through the
// runtime, split over the pool's workers (intra-op parallelism) vs one
// worker. A goroutine that another worker may run makes the run pooled.
//
//   deno run -A bench/elementwise_workers.ts [n] [count] [rounds]

import {
  elementwiseAdd,
  elementwiseMul,
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
import { timeOneAndTwoWorkers } from "./_one_and_two_workers.ts";

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

const ms = await timeOneAndTwoWorkers(program, rounds);
console.log(
  `${count} rounds of 5 ops over ${n}² float32, median of ${rounds} runs:`,
);
for (const w of [1, 2] as const) {
  console.log(`  workers ${w}: ${ms[w].toFixed(0)} ms`);
}
console.log(`  speed-up: ${(ms[1] / ms[2]).toFixed(2)}x`);
