// Encoding of recorded dispatches (kernels/webgpu/gpu_batch.ts): one
// arena buffer for every dispatch's parameters, one compute pass.
//
// Invariants:
//   Dispatches are encoded in recording order into one compute pass; each
//   dispatch is its own usage scope, so it sees the writes of the ones
//   before it.
//   Each dispatch's parameters start at a multiple of `align` bytes (the
//   device's storage offset alignment) in the arena, which is written once
//   with writeBuffer and released at once: the pool frees it only after the
//   submit that carries these commands.

import type { GpuBufferPool } from "./gpu_buffer_pool.ts";
import type { GpuDispatch } from "./gpu_batch.ts";

/**
 * Encodes dispatches into a new command encoder (not yet finished).
 *
 * @param pool The pool of the device (for the parameter arena).
 * @param pending The dispatches, in order.
 * @param align The storage offset alignment in bytes, a multiple of 16.
 * @returns The encoder; the caller finishes and submits it.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBufferPool } from "./gpu_buffer_pool.ts";
 * import { encodeDispatches } from "./_encode_dispatches.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const pool = new GpuBufferPool(gpu);
 *   const encoder = encodeDispatches(pool, [], 256);
 *   pool.submit([encoder.finish()]);
 *   assertEquals(pool.stats().submits, 1);
 *   gpu.destroy();
 * }
 * ```
 */
export function encodeDispatches(
  pool: GpuBufferPool,
  pending: readonly GpuDispatch[],
  align: number,
): GPUCommandEncoder {
  const device = pool.gpu.device;
  const encoder = device.createCommandEncoder({ label: "rill batch" });
  if (pending.length === 0) return encoder;
  const offsets: number[] = [];
  let words = 0;
  for (const d of pending) {
    offsets.push(words);
    words += Math.ceil(Math.max(d.params.length, 1) * 4 / align) *
      (align / 4);
  }
  const arena = new Uint32Array(words);
  pending.forEach((d, i) => arena.set(d.params, offsets[i]));
  const arenaBuffer = pool.upload(arena);
  const pass = encoder.beginComputePass({ label: "rill batch" });
  pending.forEach((d, i) => {
    const entries: GPUBindGroupEntry[] = [{
      binding: 0,
      resource: {
        buffer: arenaBuffer,
        offset: offsets[i] * 4,
        size: Math.max(d.params.length, 1) * 4,
      },
    }];
    d.buffers.forEach((buffer, j) =>
      entries.push({ binding: j + 1, resource: { buffer } })
    );
    pass.setPipeline(d.pipeline);
    pass.setBindGroup(
      0,
      device.createBindGroup({
        label: d.pipeline.label,
        layout: d.pipeline.getBindGroupLayout(0),
        entries,
      }),
    );
    const [x, y = 1, z = 1] = d.workgroups;
    if (x > 0 && y > 0 && z > 0) pass.dispatchWorkgroups(x, y, z);
  });
  pass.end();
  pool.release(arenaBuffer);
  return encoder;
}
