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
import {
  median,
  timeRounds,
  type WorkerTimes,
} from "./_one_and_two_workers.ts";

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
// cost of a product once both are behind. Each round times all four runs,
// and its ratios are taken within the round.
const rounds_ = await timeRounds(
  [productsProgram(count), productsProgram(4 * count)],
  rounds,
);
const each = (round: WorkerTimes[], w: 1 | 2) =>
  (round[1][w] - round[0][w]) / (3 * count);
console.log(`${count} and ${4 * count} matmuls of ${n}², ${rounds} rounds:`);
for (const w of [1, 2] as const) {
  const run = median(rounds_.map((round) => round[0][w]));
  const gflops = (2 * n ** 3 * count / run / 1e6).toFixed(1);
  console.log(
    `  workers ${w}: ${run.toFixed(0)} ms a run of ${count} ` +
      `(${gflops} GFLOPS); ${
        median(rounds_.map((round) => each(round, w))).toFixed(1)
      } ms a product past the first ${count}`,
  );
}
const runRatio = median(rounds_.map((round) => round[0][1] / round[0][2]));
const productRatio = median(
  rounds_.map((round) => each(round, 1) / each(round, 2)),
);
console.log(
  `  speed-up (median of rounds): ${runRatio.toFixed(2)}x a run, ` +
    `${productRatio.toFixed(2)}x a product`,
);
