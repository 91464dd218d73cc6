// A large float32 matmul through the runtime, split over the pool's
// workers (intra-op parallelism) vs one worker; a run is `count` products
// of two n×n matrices.
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

const program = new Program();
program.guard(() => {
  const x = uniformRandom({ shape: [n, n] });
  const w = uniformRandom({ shape: [n, n] });
  const y = fillConstant({ shape: [n, n], value: 0 });
  forRange(count, () => {
    matmul(x, w, { out: y });
  });
  print(mean(y), { message: "checksum" });
});

const ms = await timeOneAndTwoWorkers(program, rounds);
const gflops = (t: number) => (2 * n ** 3 * count / t / 1e6).toFixed(1);
console.log(`${count} matmuls of ${n}², median of ${rounds} runs:`);
for (const w of [1, 2] as const) {
  console.log(
    `  workers ${w}: ${ms[w].toFixed(0)} ms (${gflops(ms[w])} GFLOPS)`,
  );
}
console.log(`  speed-up: ${(ms[1] / ms[2]).toFixed(2)}x`);
