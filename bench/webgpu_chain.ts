// An elementwise chain, relu((x + y) * z) over 4M float32 elements, on Rill
// WebGPU (three dispatches recorded on a GpuBatch, encoded in one submit,
// one read-back), on Rill's CPU kernels and on TensorFlow.js's WebGPU
// backend. Run:
//   XDG_RUNTIME_DIR=/tmp/xdg deno bench -A bench/webgpu_chain.ts
//
// One timed iteration is the chain from operands already in place to the
// result readable by the caller: for the GPU rows that includes reading
// back the 16 MiB result. A second Rill WebGPU row reads back only 4 bytes
// of it (the chain's submit, then a read-back submit), to show what the 16
// MiB read-back costs. Median and best ms are printed at the end, with a
// check that every row computed the same values (add, mul and relu are
// exactly rounded, so the bits must agree).
// deno-lint-ignore-file no-import-prefix

import * as tf from "npm:@tensorflow/tfjs-core@4.22.0";
import "npm:@tensorflow/tfjs-backend-webgpu@4.22.0";
import { GpuDevice } from "../kernels/webgpu/gpu_device.ts";
import { GpuBatch } from "../kernels/webgpu/gpu_batch.ts";
import type { GpuTensor } from "../kernels/webgpu/gpu_tensor.ts";
import * as gpuOps from "../kernels/webgpu/elementwise.ts";
import * as cpuOps from "../kernels/cpu/elementwise.ts";
import { Tensor } from "../kernels/tensor.ts";
import { randomFloat32, Timings } from "./_timings.ts";

const SIZE = 4 * 2 ** 20;
const ITERATIONS = 20;
const WARMUP = 1;

const gpu = await GpuDevice.request();
if (!(gpu instanceof GpuDevice)) {
  throw new Error(`webgpu_chain: no WebGPU device: ${gpu.explain}`);
}
console.log(`adapter: ${gpu.explain}`);
const batch = new GpuBatch(gpu);
await tf.setBackend("webgpu");
await tf.ready();
const timings = new Timings();

const x = randomFloat32(SIZE, 1), y = randomFloat32(SIZE, 2);
const z = randomFloat32(SIZE, 3);
const [cx, cy, cz] = [x, y, z].map((d) => new Tensor("float32", [SIZE], d));
const [gx, gy, gz] = [cx, cy, cz].map((t) => batch.upload(t));
const [tx, ty, tz] = [x, y, z].map((d) => tf.tensor1d(d));

// Σ of each row's first result, to compare rows.
const checksums = new Map<string, number>();
function check(row: string, c: Float32Array): void {
  if (checksums.has(row)) return;
  let sum = 0;
  for (let i = 0; i < c.length; i++) sum += c[i];
  checksums.set(row, sum);
}

// Records the chain; the two intermediates go back to the pool.
function gpuChain(): GpuTensor {
  const sum = gpuOps.binary(batch, "add", gx, gy);
  const product = gpuOps.binary(batch, "mul", sum, gz);
  sum.release();
  const out = gpuOps.unary(batch, "relu", product);
  product.release();
  return out;
}

Deno.bench({
  name: "rill webgpu, one submit, 16 MiB read-back",
  baseline: true,
  n: ITERATIONS,
  warmup: WARMUP,
  async fn() {
    const row = "rill webgpu";
    await timings.time(row, WARMUP, async () => {
      const submits = batch.pool.stats().submits;
      const out = gpuChain();
      const [c] = await batch.read([out]);
      out.release();
      if (batch.pool.stats().submits !== submits + 1) {
        throw new Error("webgpu_chain: the chain took more than one submit");
      }
      check(row, c.data as Float32Array);
    });
  },
});

Deno.bench({
  name: "rill webgpu, one submit, 4-byte read-back",
  n: ITERATIONS,
  warmup: WARMUP,
  async fn() {
    await timings.time("rill webgpu 4 B", WARMUP, async () => {
      const out = gpuChain();
      batch.submit();
      await batch.pool.readBack([{ buffer: out.buffer, bytes: 4 }]);
      out.release();
    });
  },
});

Deno.bench({
  name: "tfjs webgpu, 16 MiB read-back",
  n: ITERATIONS,
  warmup: WARMUP,
  async fn() {
    const row = "tfjs webgpu";
    await timings.time(row, WARMUP, async () => {
      const out = tf.tidy(() => tf.relu(tf.mul(tf.add(tx, ty), tz)));
      check(row, await out.data() as Float32Array);
      out.dispose();
    });
  },
});

Deno.bench({
  name: "rill cpu",
  n: ITERATIONS,
  warmup: WARMUP,
  async fn() {
    const row = "rill cpu";
    await timings.time(row, WARMUP, () => {
      const sum = cpuOps.binary("add", cx, cy);
      const out = cpuOps.unary("relu", cpuOps.binary("mul", sum, cz));
      check(row, out.data as Float32Array);
    });
  },
});

globalThis.addEventListener("unload", () => {
  console.log(`\nrelu((x + y) * z) over ${SIZE} float32, ms median (best):`);
  for (
    const row of ["rill webgpu", "rill webgpu 4 B", "tfjs webgpu", "rill cpu"]
  ) {
    const t = timings.get(row);
    if (t === undefined) continue;
    console.log(`  ${row.padEnd(16)} ${t[0].toFixed(1)} (${t[1].toFixed(1)})`);
  }
  const sums = new Set(checksums.values());
  console.log(
    `  results: ${sums.size === 1 ? "identical sums" : "DIFFERENT sums"} (${
      [...checksums].map(([r, s]) => `${r} ${s}`).join(", ")
    })`,
  );
});
