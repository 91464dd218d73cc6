// A large float32 matmul through the runtime, split over the pool's
// workers (intra-op parallelism) vs one worker; a run is `count` products
// of two n×n matrices; the bench also times runs of 4 × count to give the
// cost of one product once the run is going.
//
//   deno run -A bench/matmul_workers.ts [n] [count] [rounds]

import {
  fillConstant,
  forRange,
  matmul,
  mean,
  print,
  Program,
  uniformRandom,
} from "../mod.ts";
import { timeOneAndTwoWorkers } from "./_one_and_two_workers.ts";

const n = Number(Deno.args[0] ?? 1024);
const count = Number(Deno.args[1] ?? 10);
const rounds = Number(Deno.args[2] ?? 5);

// A run of `products` matmuls, printing a checksum.
function productsProgram(products: number): Program {
  const program = new Program();
  program.guard(() => {
    const x = uniformRandom({ shape: [n, n] });
    const w = uniformRandom({ shape: [n, n] });
    const y = fillConstant({ shape: [n, n], value: 0 });
    forRange(products, () => {
      matmul(x, w, { out: y });
    });
    print(mean(y), { message: "checksum" });
  });
  return program;
}

// Whole runs include the pool's start-up and the run's first products,
// whose outputs take fresh pages of the new run's shared memory; the
// difference between a run of 4 × count products and one of count is the
// cost of a product once both are behind.
const ms = await timeOneAndTwoWorkers(productsProgram(count), rounds);
const longer = await timeOneAndTwoWorkers(productsProgram(4 * count), rounds);
const gflops = (t: number, products: number) =>
  (2 * n ** 3 * products / t / 1e6).toFixed(1);
console.log(`${count} matmuls of ${n}², median of ${rounds} runs:`);
const each = { 1: 0, 2: 0 };
for (const w of [1, 2] as const) {
  each[w] = (longer[w] - ms[w]) / (3 * count);
  console.log(
    `  workers ${w}: ${ms[w].toFixed(0)} ms a run (${
      gflops(ms[w], count)
    } GFLOPS); ` +
      `${each[w].toFixed(1)} ms a product past the first ${count}`,
  );
}
console.log(
  `  speed-up: ${(ms[1] / ms[2]).toFixed(2)}x a run, ` +
    `${(each[1] / each[2]).toFixed(2)}x a product`,
);
