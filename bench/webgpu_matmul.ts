// float32 matmul C = A·B, square n×n, across devices and peers in one run:
// Rill's WGSL kernel and TensorFlow.js's WebGPU backend on the same adapter,
// Rill's CPU kernel (kernels/cpu matmul, WASM SIMD, one thread),
// TensorFlow.js's WASM backend (XNNPACK; under Deno its Node build, one
// thread) and its plain-JS CPU backend. Run:
//   XDG_RUNTIME_DIR=/tmp/xdg deno bench -A bench/webgpu_matmul.ts
//
// What one timed iteration is:
//   - GPU rows: one product plus its read-back (one mapAsync round, about
//     10 ms in Deno), inputs already on the device;
//   - CPU rows: one product into a new array the caller can read (for the
//     tfjs backends `dataSync()`, which for wasm copies C out of its heap,
//     about 3 % of a 1024² product).
// GFLOPS (2·n³ per product) of the median and of the best iteration are
// printed at the end, with the two ratios the issue asks for. tfjs-cpu runs
// only up to 1024² (about 2.5 s a product there; 2048² would take 20 s).
// The peers are benchmark-only dependencies, pinned by full npm:
// specifiers here rather than in deno.json.
// deno-lint-ignore-file no-import-prefix

import * as tf from "npm:@tensorflow/tfjs-core@4.22.0";
import "npm:@tensorflow/tfjs-backend-webgpu@4.22.0";
import "npm:@tensorflow/tfjs-backend-wasm@4.22.0";
import "npm:@tensorflow/tfjs-backend-cpu@4.22.0";
import { GpuDevice } from "../kernels/webgpu/gpu_device.ts";
import { GpuBatch } from "../kernels/webgpu/gpu_batch.ts";
import { matmul as gpuMatmul } from "../kernels/webgpu/matmul.ts";
import { matmul as cpuMatmul } from "../kernels/cpu/matmul.ts";
import { Tensor } from "../kernels/tensor.ts";
import { randomFloat32, Timings } from "./_timings.ts";

const ROWS = [
  "rill webgpu",
  "tfjs webgpu",
  "rill cpu",
  "tfjs wasm",
  "tfjs cpu",
] as const;
type Row = typeof ROWS[number];

// Size, timed iterations, and the largest size each slow row runs at.
const SIZES: readonly [number, number][] = [
  [256, 20],
  [512, 10],
  [1024, 5],
  [2048, 2],
];
const MAX_SIZE: Partial<Record<Row, number>> = { "tfjs cpu": 1024 };
const WARMUP = 1;

const gpu = await GpuDevice.request();
if (!(gpu instanceof GpuDevice)) {
  throw new Error(`webgpu_matmul: no WebGPU device: ${gpu.explain}`);
}
console.log(`adapter: ${gpu.explain}`);
const batch = new GpuBatch(gpu);
const timings = new Timings();
// Σ|C| of each row's first product, by size: a check that all compute C.
const checksums = new Map<number, Map<Row, number>>();

function check(n: number, row: Row, c: Float32Array): void {
  let map = checksums.get(n);
  if (map === undefined) checksums.set(n, map = new Map());
  if (map.has(row)) return;
  let sum = 0;
  for (let i = 0; i < c.length; i++) sum += Math.abs(c[i]);
  map.set(row, sum);
}

// A tfjs backend's operands for size n, made after switching to it (a
// tensor lives in the backend that was active when it was made).
const tfOperands = new Map<string, [tf.Tensor2D, tf.Tensor2D, number]>();

async function tfjs(
  backend: string,
  n: number,
  a: Float32Array,
  b: Float32Array,
): Promise<[tf.Tensor2D, tf.Tensor2D]> {
  if (tf.getBackend() !== backend) {
    if (!await tf.setBackend(backend)) {
      throw new Error(`webgpu_matmul: tfjs backend ${backend} failed`);
    }
  }
  const have = tfOperands.get(backend);
  if (have !== undefined && have[2] === n) return [have[0], have[1]];
  have?.[0].dispose();
  have?.[1].dispose();
  const made: [tf.Tensor2D, tf.Tensor2D] = [
    tf.tensor2d(a, [n, n]),
    tf.tensor2d(b, [n, n]),
  ];
  tfOperands.set(backend, [...made, n]);
  return made;
}

for (const [n, iterations] of SIZES) {
  const a = randomFloat32(n * n, 1), b = randomFloat32(n * n, 2);
  const ga = batch.upload(new Tensor("float32", [n, n], a));
  const gb = batch.upload(new Tensor("float32", [n, n], b));
  const ca = new Tensor("float32", [n, n], a);
  const cb = new Tensor("float32", [n, n], b);
  const group = `${n}²`;

  const work: Record<Row, () => Promise<void>> = {
    "rill webgpu": async () => {
      await timings.time(`rill webgpu ${n}`, WARMUP, async () => {
        const out = gpuMatmul(batch, ga, gb);
        const [c] = await batch.read([out]);
        out.release();
        check(n, "rill webgpu", c.data as Float32Array);
      });
    },
    "tfjs webgpu": async () => {
      const [ta, tb] = await tfjs("webgpu", n, a, b);
      await timings.time(`tfjs webgpu ${n}`, WARMUP, async () => {
        const c = tf.matMul(ta, tb);
        check(n, "tfjs webgpu", await c.data() as Float32Array);
        c.dispose();
      });
    },
    "rill cpu": async () => {
      await timings.time(`rill cpu ${n}`, WARMUP, () => {
        check(n, "rill cpu", cpuMatmul(ca, cb).data as Float32Array);
      });
    },
    "tfjs wasm": async () => {
      const [ta, tb] = await tfjs("wasm", n, a, b);
      await timings.time(`tfjs wasm ${n}`, WARMUP, () => {
        const c = tf.matMul(ta, tb);
        check(n, "tfjs wasm", c.dataSync() as Float32Array);
        c.dispose();
      });
    },
    "tfjs cpu": async () => {
      const [ta, tb] = await tfjs("cpu", n, a, b);
      await timings.time(`tfjs cpu ${n}`, WARMUP, () => {
        const c = tf.matMul(ta, tb);
        check(n, "tfjs cpu", c.dataSync() as Float32Array);
        c.dispose();
      });
    },
  };

  for (const row of ROWS) {
    if (n > (MAX_SIZE[row] ?? Infinity)) continue;
    Deno.bench({
      name: `${row} ${group}`,
      group,
      baseline: row === "rill webgpu",
      n: iterations,
      warmup: WARMUP,
      fn: work[row],
    });
  }
}

globalThis.addEventListener("unload", () => {
  const pad = (s: string) => s.padStart(13);
  console.log(
    "\nGFLOPS, median iteration (best), read-back included on the GPU:",
  );
  console.log(`${"n".padStart(6)}${ROWS.map(pad).join("")}  ratios`);
  for (const [n] of SIZES) {
    const flops = 2 * n ** 3;
    const median = new Map<Row, number>();
    const cells = ROWS.map((row) => {
      const t = timings.get(`${row} ${n}`);
      if (t === undefined) return pad("—");
      median.set(row, flops / t[0] / 1e6);
      return pad(
        `${(flops / t[0] / 1e6).toFixed(2)} (${
          (flops / t[1] / 1e6).toFixed(1)
        })`,
      );
    });
    const ratio = (x: Row, y: Row) => {
      const r = (median.get(x) ?? NaN) / (median.get(y) ?? NaN);
      return `${x}/${y} ${r.toFixed(2)}×`;
    };
    const sums = [...(checksums.get(n)?.values() ?? [])];
    const spread = (Math.max(...sums) - Math.min(...sums)) / Math.max(...sums);
    console.log(
      `${`${n}²`.padStart(6)}${cells.join("")}  ${
        ratio("rill webgpu", "tfjs webgpu")
      }, ${ratio("rill cpu", "tfjs wasm")}; Σ|C| spread ${
        spread.toExponential(1)
      }`,
    );
  }
});
