// Whole-process timing of a CPU-bound parallel_for: `deno run -A mod.ts
// prog.pb --workers W` for W = 1 and 2 in turn, start-up included.
//
// The program: 8 iterations, each multiplying 384² float32 matrices
// `MATMULS` times on the CPU device (uniform_random inputs drawn in the
// iteration, results written into a shared array), then a checksum print
// that both worker counts must agree on.
//
//   deno run -A bench/parallel_for_process.ts [rounds] [matmuls]

import {
  arrayToTensor,
  arrayWrite,
  createArray,
  fillConstant,
  forRange,
  matmul,
  mean,
  parallelFor,
  print,
  Program,
  scale,
  uniformRandom,
} from "../mod.ts";

const rounds = Number(Deno.args[0] ?? 5);
const matmuls = Number(Deno.args[1] ?? 48);
const N = 384;

function build(): Program {
  const program = new Program();
  program.guard(() => {
    const out = createArray({ dtype: "float32" });
    parallelFor(8, (index) => {
      const x = uniformRandom({ shape: [N, N] });
      const w = scale(uniformRandom({ shape: [N, N] }), { scale: 1 / N });
      const y = fillConstant({ shape: [N, N], value: 0 });
      forRange(matmuls, () => {
        matmul(x, w, { out: y });
      });
      arrayWrite(y, index, out);
    });
    print(mean(arrayToTensor(out)), { message: "checksum" });
  });
  return program;
}

const dir = await Deno.makeTempDir();
const path = `${dir}/parallel_for.pb`;
await build().save(path);
const mod = new URL("../mod.ts", import.meta.url).pathname;

async function timeRun(workers: number): Promise<[number, string]> {
  const t0 = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", mod, path, "--workers", String(workers), "--seed", "1"],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const ms = performance.now() - t0;
  if (!out.success) throw new Error(`--workers ${workers} failed`);
  return [ms, new TextDecoder().decode(out.stdout).trim()];
}

await timeRun(1); // warm the module cache
const times: Record<number, number[]> = { 1: [], 2: [] };
const ratios: number[] = [];
for (let r = 0; r < rounds; r++) {
  const [one, a] = await timeRun(1);
  const [two, b] = await timeRun(2);
  if (a !== b) throw new Error(`outputs differ: "${a}" vs "${b}"`);
  times[1].push(one);
  times[2].push(two);
  ratios.push(one / two);
}
const median = (xs: number[]) =>
  [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)];
console.log(
  `8 iterations x ${matmuls} matmuls of ${N}², ${rounds} rounds, medians:`,
);
console.log(`  --workers 1: ${median(times[1]).toFixed(0)} ms`);
console.log(`  --workers 2: ${median(times[2]).toFixed(0)} ms`);
console.log(
  `  speed-up: ${
    (median(times[1]) / median(times[2])).toFixed(2)
  }x (median of paired rounds ${median(ratios).toFixed(2)}x)`,
);
await Deno.remove(dir, { recursive: true });
