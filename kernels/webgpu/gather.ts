// gather on the GPU: picks slices of X along an axis by host indices, with
// the semantics and error messages of kernels/cpu/shape.ts's gather.
//
// Invariants:
//   The index is read on the host and every entry checked against the dim
//   before anything is recorded, so the kernel never reads out of range and
//   an int64 index beyond int32 never reaches the GPU (it throws the CPU's
//   RangeError). The checked entries go up as a small int32 buffer.
//   Like every copy kernel, gather moves bits, never values: 32-bit words,
//   or for float16 16-bit halves written with store_half (_f16_wgsl.ts).

import { formatShape, normalizeAxis } from "../_shape.ts";
import { isIntegerDType } from "../dtype.ts";
import { Tensor } from "../tensor.ts";
import type { GpuBatch } from "./gpu_batch.ts";
import type { GpuTensor } from "./gpu_tensor.ts";
import { aroundAxis } from "../layout.ts";
import { WORKGROUP, workgroups } from "./_strided_copy.ts";
import { halfStoreWgsl } from "./_f16_wgsl.ts";

/**
 * Picks slices of X along an axis: result index `i` on that axis is X's
 * index `index[i]`. The index is a host tensor of any integer dtype, read
 * flat; it is checked here and uploaded as int32.
 *
 * @param batch Where the dispatch goes.
 * @param x The tensor.
 * @param index Integer indices in `[0, dim)`, on the host.
 * @param axis The axis; negative counts from the end.
 * @returns A new GPU tensor.
 * @throws {TypeError} If `index` is not an integer tensor.
 * @throws {RangeError} If an index or the axis is out of range (so an
 * int64 index beyond int32 never reaches the GPU).
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { gather } from "./gather.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([[1, 2], [3, 4], [5, 6]], "float32"));
 *   const index = Tensor.fromArray([2, 0], "int64");
 *   const [y] = await batch.read([gather(batch, x, index)]);
 *   assertEquals(y.toNested(), [[5, 6], [1, 2]]);
 *   gpu.destroy();
 * }
 * ```
 */
export function gather(
  batch: GpuBatch,
  x: GpuTensor,
  index: Tensor,
  axis = 0,
): GpuTensor {
  if (!isIntegerDType(index.dtype)) {
    throw new TypeError(
      `gather: index dtype "${index.dtype}" is not an integer type`,
    );
  }
  const a = normalizeAxis(axis, x.shape.length, "gather");
  const around = aroundAxis(x.shape, a);
  const dim = around[1];
  const picks = Int32Array.from(
    index.data as ArrayLike<number | bigint>,
    (v) => {
      const p = Number(v);
      if (!(p >= 0 && p < dim)) {
        throw new RangeError(
          `gather: index ${p} is out of range for dim ${dim} of ${
            formatShape(x.shape)
          }`,
        );
      }
      return p;
    },
  );
  const out = batch.allocate(x.dtype, x.shape.with(a, picks.length));
  if (out.size === 0) return out;
  const rows = batch.upload(new Tensor("int32", [picks.length], picks));
  const bits = x.dtype === "float16" ? 16 : 32;
  const pipeline = batch.pipelines.get(
    { op: "gather", dtype: `u${bits}` },
    () => gatherWgsl(bits),
  );
  batch.dispatch({
    pipeline,
    buffers: [x.buffer, rows.buffer, out.buffer],
    params: new Uint32Array([out.size, picks.length, dim, around[2]]),
    workgroups: workgroups(out.size),
  });
  // Safe before the dispatch runs: the pool reuses it only after a submit.
  rows.release();
  return out;
}

// X viewed as [outer, dim, inner], the output as [outer, m, inner]: output
// element i is (o, j, k) and reads X's (o, I[j], k).
// p[0] = n, p[1] = m (index count), p[2] = dim, p[3] = inner.
function gatherWgsl(bits: 16 | 32): string {
  const move = bits === 16
    ? "store_half(i, (X[xi >> 1u] >> ((xi & 1u) * 16u)) & 0xffffu);"
    : "O[i] = X[xi];";
  return `
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read> X: array<u32>;
@group(0) @binding(2) var<storage, read> I: array<i32>;
@group(0) @binding(3) var<storage, read_write> O: array<${
    bits === 16 ? "atomic<u32>" : "u32"
  }>;
${bits === 16 ? halfStoreWgsl("O") : ""}
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) g: vec3<u32>,
        @builtin(num_workgroups) nw: vec3<u32>) {
  let n = p[0]; let m = p[1]; let dim = p[2]; let inner = p[3];
  for (var i = g.x; i < n; i += nw.x * ${WORKGROUP}u) {
    let k = i % inner;
    let r = i / inner;
    let row = u32(I[r % m]);
    let xi = ((r / m) * dim + row) * inner + k;
    ${move}
  }
}`;
}
