// Whole-process timing of a CPU-bound parallel_for: `deno run -A mod.ts
// prog.pb --workers W` for W = 1 and 2 in turn, start-up included.
//
// The program: 8 iterations, each multiplying 384² float32 matrices
// `MATMULS` times on the CPU device (uniform_random inputs drawn in the
// iteration, results written into a shared array), then a checksum print
// that both worker counts must agree on.
//
//   deno run -A bench/parallel_for_process.ts [rounds] [matmuls] [other mod.ts]
//
// Given another checkout's mod.ts (the commit before, say), each round
// runs both, alternating, and prints both side by side. Every run passes
// --seed 1, so that the checksums of every run agree.

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
const mods = [new URL("../mod.ts", import.meta.url).pathname];
if (Deno.args[2] !== undefined) mods.push(Deno.args[2]);

async function timeRun(
  mod: string,
  workers: number,
): Promise<[number, string]> {
  const t0 = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", mod, path, "--workers", String(workers), "--seed", "1"],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const ms = performance.now() - t0;
  if (!out.success) throw new Error(`${mod} --workers ${workers} failed`);
  return [ms, new TextDecoder().decode(out.stdout).trim()];
}

for (const mod of mods) await timeRun(mod, 1); // warm the module caches
const times = mods.map(() => ({ 1: [] as number[], 2: [] as number[] }));
const ratios: number[][] = mods.map(() => []);
let checksum: string | undefined;
for (let r = 0; r < rounds; r++) {
  for (const [m, mod] of mods.entries()) {
    const [one, a] = await timeRun(mod, 1);
    const [two, b] = await timeRun(mod, 2);
    for (const out of [a, b]) {
      checksum ??= out;
      if (out !== checksum) {
        throw new Error(`outputs differ: "${checksum}" vs "${out}"`);
      }
    }
    times[m][1].push(one);
    times[m][2].push(two);
    ratios[m].push(one / two);
  }
}
const median = (xs: number[]) =>
  [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)];
console.log(
  `8 iterations x ${matmuls} matmuls of ${N}², ${rounds} rounds, medians:`,
);
for (const [m, mod] of mods.entries()) {
  if (mods.length > 1) console.log(mod);
  console.log(`  --workers 1: ${median(times[m][1]).toFixed(0)} ms`);
  console.log(`  --workers 2: ${median(times[m][2]).toFixed(0)} ms`);
  console.log(
    `  speed-up: ${
      (median(times[m][1]) / median(times[m][2])).toFixed(2)
    }x (median of paired rounds ${median(ratios[m]).toFixed(2)}x)`,
  );
}
await Deno.remove(dir, { recursive: true });
