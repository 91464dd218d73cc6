// float32 matmul on WebGPU: Rill's WGSL kernel beside TensorFlow.js's
// WebGPU backend, on the same adapter, in one run. Run:
//   XDG_RUNTIME_DIR=/tmp/xdg deno bench -A bench/webgpu_matmul.ts
//
// Every timed iteration is one product plus its read-back (one mapAsync
// round, about 10 ms in Deno), for both libraries alike; inputs stay on the
// device. GFLOPS (2·n³ per product, median iteration) are printed at the
// end. The peers are benchmark-only dependencies, pinned by full npm:
// specifiers here rather than in deno.json.
// deno-lint-ignore-file no-import-prefix

import * as tf from "npm:@tensorflow/tfjs-core@4.22.0";
import "npm:@tensorflow/tfjs-backend-webgpu@4.22.0";
import { GpuDevice } from "../kernels/webgpu/gpu_device.ts";
import { GpuBatch } from "../kernels/webgpu/gpu_batch.ts";
import { matmul } from "../kernels/webgpu/matmul.ts";
import { Tensor } from "../kernels/tensor.ts";

// 2048² takes about 2 s per product for Rill and 5 s for tfjs on llvmpipe,
// so it runs only a few iterations.
const SIZES: readonly [number, number][] = [
  [256, 20],
  [512, 10],
  [1024, 5],
  [2048, 1],
];

const gpu = await GpuDevice.request();
if (!(gpu instanceof GpuDevice)) {
  throw new Error(`webgpu_matmul: no WebGPU device: ${gpu.explain}`);
}
console.log(`adapter: ${gpu.explain}`);
const batch = new GpuBatch(gpu);
await tf.setBackend("webgpu");
await tf.ready();

const timings = new Map<string, number[]>();

function record(name: string, ms: number): void {
  let list = timings.get(name);
  if (list === undefined) timings.set(name, list = []);
  list.push(ms);
}

function random(n: number, seed: number): Float32Array {
  const data = new Float32Array(n * n);
  let s = seed;
  for (let i = 0; i < data.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    data[i] = s / 2 ** 32 - 0.5;
  }
  return data;
}

for (const [n, iterations] of SIZES) {
  const a = random(n, 1), b = random(n, 2);
  const ga = batch.upload(new Tensor("float32", [n, n], a));
  const gb = batch.upload(new Tensor("float32", [n, n], b));
  const ta = tf.tensor2d(a, [n, n]), tb = tf.tensor2d(b, [n, n]);
  const group = `${n}²`;

  Deno.bench({
    name: `rill webgpu ${group}`,
    group,
    baseline: true,
    n: iterations,
    warmup: 1,
    async fn() {
      const t0 = performance.now();
      const out = matmul(batch, ga, gb);
      await batch.read([out]);
      out.release();
      record(`rill ${n}`, performance.now() - t0);
    },
  });

  Deno.bench({
    name: `tfjs webgpu ${group}`,
    group,
    n: iterations,
    warmup: 1,
    async fn() {
      const t0 = performance.now();
      const c = tf.matMul(ta, tb);
      await c.data();
      c.dispose();
      record(`tfjs ${n}`, performance.now() - t0);
    },
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)];
}

globalThis.addEventListener("unload", () => {
  console.log("\nGFLOPS (median iteration, read-back included):");
  for (const [n] of SIZES) {
    const flops = 2 * n ** 3;
    const rill = timings.get(`rill ${n}`), peer = timings.get(`tfjs ${n}`);
    if (rill === undefined || peer === undefined) continue;
    const r = flops / median(rill) / 1e6, t = flops / median(peer) / 1e6;
    console.log(
      `  ${n}²: rill ${r.toFixed(2)}  tfjs-webgpu ${t.toFixed(2)}  ratio ${
        (r / t).toFixed(2)
      }×`,
    );
  }
});
