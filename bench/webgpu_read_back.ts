// The cost of one read-back in Deno: a 4-byte and a 4 MiB buffer already on
// the device, read through Rill's GpuBatch (a submit holding the copy into
// a pooled staging buffer, mapAsync, a copy out of the mapped range) and
// through bare WebGPU calls doing the same with one staging buffer made
// up front. No compute runs: this is the floor under every value that
// leaves the GPU. Run:
//   XDG_RUNTIME_DIR=/tmp/xdg deno bench -A bench/webgpu_read_back.ts

import { GpuDevice } from "../kernels/webgpu/gpu_device.ts";
import { GpuBatch } from "../kernels/webgpu/gpu_batch.ts";
import { Tensor } from "../kernels/tensor.ts";
import { randomFloat32, Timings } from "./_timings.ts";

const ITERATIONS = 50;
const WARMUP = 3;

const gpu = await GpuDevice.request();
if (!(gpu instanceof GpuDevice)) {
  throw new Error(`webgpu_read_back: no WebGPU device: ${gpu.explain}`);
}
console.log(`adapter: ${gpu.explain}`);
const batch = new GpuBatch(gpu);
const device = gpu.device;
const timings = new Timings();
const SIZES: readonly [string, number][] = [["4 B", 4], ["4 MiB", 2 ** 22]];

for (const [label, bytes] of SIZES) {
  const host = randomFloat32(bytes / 4, 1);
  const tensor = batch.upload(new Tensor("float32", [bytes / 4], host));
  const staging = device.createBuffer({
    size: bytes,
    usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
  });

  Deno.bench({
    name: `rill GpuBatch.read ${label}`,
    group: label,
    baseline: true,
    n: ITERATIONS,
    warmup: WARMUP,
    async fn() {
      await timings.time(`rill ${label}`, WARMUP, async () => {
        const [back] = await batch.read([tensor]);
        if (back.data[0] !== host[0]) throw new Error("wrong read-back");
      });
    },
  });

  Deno.bench({
    name: `bare WebGPU ${label}`,
    group: label,
    n: ITERATIONS,
    warmup: WARMUP,
    async fn() {
      await timings.time(`bare ${label}`, WARMUP, async () => {
        const encoder = device.createCommandEncoder();
        encoder.copyBufferToBuffer(tensor.buffer, 0, staging, 0, bytes);
        device.queue.submit([encoder.finish()]);
        await staging.mapAsync(GPUMapMode.READ);
        const back = new Float32Array(staging.getMappedRange().slice(0));
        staging.unmap();
        if (back[0] !== host[0]) throw new Error("wrong read-back");
      });
    },
  });
}

globalThis.addEventListener("unload", () => {
  console.log("\none read-back, ms median (best):");
  for (const [label] of SIZES) {
    const cells = ["rill", "bare"].map((who) => {
      const t = timings.get(`${who} ${label}`);
      return t === undefined
        ? `${who} —`
        : `${who} ${t[0].toFixed(2)} (${t[1].toFixed(2)})`;
    });
    console.log(`  ${label.padEnd(6)} ${cells.join("  ")}`);
  }
});
