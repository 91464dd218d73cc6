// A large float32 matmul through the runtime, split over the pool's
// workers (intra-op parallelism) vs one worker. Each executor runs the
// program once to warm up (and start its pool), then `rounds` timed runs;
// a run is `count` products of two n×n matrices.
//
//   deno run -A bench/matmul_workers.ts [n] [count] [rounds]

import {
  Executor,
  fillConstant,
  forRange,
  matmul,
  mean,
  print,
  Program,
  uniformRandom,
} from "../mod.ts";

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
const gflops = (ms: number) => (2 * n ** 3 * count / ms / 1e6).toFixed(1);
console.log(`${count} matmuls of ${n}², median of ${rounds} runs:`);
for (const w of [1, 2]) {
  console.log(
    `  workers ${w}: ${results[w].ms.toFixed(0)} ms (${
      gflops(results[w].ms)
    } GFLOPS)`,
  );
}
console.log(`  speed-up: ${(results[1].ms / results[2].ms).toFixed(2)}x`);
