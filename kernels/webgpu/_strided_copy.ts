// The strided-copy WGSL kernel: kernels/webgpu/shape.ts builds transpose,
// slice, concat and split on it (gather.ts has its own, indexed, kernel).
//
// Invariants:
//   Copies move bits, never values: 32-bit words (`array<u32>`) for
//   float32, int32 and bool (one pipeline serves all three), 16-bit halves
//   of words for float16. A NaN's payload, ±Infinity and -0 pass through
//   bit for bit (no float load or store that a compiler could
//   canonicalize).
//   A 16-bit element is written with store_half (_f16_wgsl.ts): two
//   atomics, each touching only its half, since the other half of the word
//   may be written at the same time (by the invocation for the neighbouring
//   element) or may already hold another part (a concat operand).
//   Copies walk their output with a grid-stride loop, so any size runs within
//   WebGPU's 65535-workgroup limit.
//   Callers have checked every offset: the kernel does no bounds checks
//   beyond WGSL's own (which clamp, never fault).

import { coalesce } from "./_elementwise_template.ts";
import { halfStoreWgsl } from "./_f16_wgsl.ts";
import type { GpuBatch } from "./gpu_batch.ts";
import type { GpuTensor } from "./gpu_tensor.ts";

/** Invocations per workgroup of the copy kernels. */
export const WORKGROUP = 256;
const MAX_WORKGROUPS = 65535;

/**
 * Where a strided copy reads and writes: element `c` (a multi-index over
 * `dims`) goes from `xBase + Σ c[d]·xStrides[d]` of X to
 * `outBase + Σ c[d]·outStrides[d]` of the output.
 */
export interface CopyPlan {
  /** The dims walked, outermost first. */
  readonly dims: readonly number[];
  /** X's offset of the first element. */
  readonly xBase: number;
  /** X's stride per dim, in elements. */
  readonly xStrides: readonly number[];
  /** The output's offset of the first element. */
  readonly outBase: number;
  /** The output's stride per dim, in elements. */
  readonly outStrides: readonly number[];
}

/**
 * The workgroup count of a grid-stride copy of `size` elements.
 *
 * @param size The elements to write.
 * @returns `[x]`, at least 1 and at most 65535.
 *
 * @example Usage
 * ```ts
 * import { workgroups } from "./_strided_copy.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(workgroups(1000), [4]);
 * assertEquals(workgroups(1e9), [65535]);
 * ```
 */
export function workgroups(size: number): [number] {
  return [Math.max(1, Math.min(MAX_WORKGROUPS, Math.ceil(size / WORKGROUP)))];
}

/**
 * Records a strided copy from X into `out` (which may already hold other
 * parts: only the plan's elements are written).
 *
 * @param batch Where the dispatch goes.
 * @param x The source.
 * @param out The destination, of x's element size (float16 with float16).
 * @param plan The walk; every offset it reaches must be in range.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { copyStrided } from "./_strided_copy.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([[1, 2, 3], [4, 5, 6]], "int32"));
 *   const out = batch.allocate("int32", [3, 2]); // the transpose
 *   copyStrided(batch, x, out, {
 *     dims: [3, 2], xBase: 0, xStrides: [1, 3], outBase: 0, outStrides: [2, 1],
 *   });
 *   assertEquals((await batch.read([out]))[0].toNested(), [[1, 4], [2, 5], [3, 6]]);
 *   gpu.destroy();
 * }
 * ```
 */
export function copyStrided(
  batch: GpuBatch,
  x: GpuTensor,
  out: GpuTensor,
  plan: CopyPlan,
): void {
  let n = 1;
  for (const d of plan.dims) n *= d;
  if (n === 0) return;
  // Merging dims both sides walk contiguously makes the common cases
  // (a contiguous block, a concat or split piece) rank 1 or 2.
  const [dims, xs, os] = coalesce(plan.dims, plan.xStrides, plan.outStrides);
  const pipeline = x.dtype === "float16"
    ? batch.pipelines.get(
      { op: "copy_strided", dtype: "u16" },
      () => stridedWgsl(16),
    )
    : batch.pipelines.get(
      { op: "copy_strided", dtype: "u32" },
      () => stridedWgsl(32),
    );
  batch.dispatch({
    pipeline,
    buffers: [x.buffer, out.buffer],
    params: new Uint32Array([
      n,
      dims.length,
      plan.xBase,
      plan.outBase,
      ...dims,
      ...xs,
      ...os,
    ]),
    workgroups: workgroups(n),
  });
}

// p[0] = n, p[1] = rank, p[2] = X's base, p[3] = O's base, then rank dims,
// rank X strides and rank O strides.
// The hard part, once: the flat index i of the walk is decomposed into the
// multi-index c innermost dim first (c = r % dim, r = r / dim), and each
// coordinate is scaled by both sides' strides at once, so no index array
// is ever materialized.
function stridedWgsl(bits: 16 | 32): string {
  const out = bits === 16 ? "atomic<u32>" : "u32";
  const move = bits === 16
    ? "store_half(oi, (X[xi >> 1u] >> ((xi & 1u) * 16u)) & 0xffffu);"
    : "O[oi] = X[xi];";
  return `
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read> X: array<u32>;
@group(0) @binding(2) var<storage, read_write> O: array<${out}>;
${bits === 16 ? halfStoreWgsl("O") : ""}
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) g: vec3<u32>,
        @builtin(num_workgroups) nw: vec3<u32>) {
  let n = p[0]; let rank = p[1];
  for (var i = g.x; i < n; i += nw.x * ${WORKGROUP}u) {
    var xi = p[2]; var oi = p[3]; var r = i;
    for (var d = rank; d > 0u; d--) {
      let dim = p[3u + d];
      let c = r % dim;
      r = r / dim;
      xi += c * p[3u + rank + d];
      oi += c * p[3u + 2u * rank + d];
    }
    ${move}
  }
}`;
}
