// The elementwise templates (kernels/webgpu/elementwise.ts feeds them an
// expression per kind): one for maps, one for broadcast binary ops.
//
// Invariants:
//   Both walk the output with a grid-stride loop, so any size runs within
//   WebGPU's 65535-workgroup limit.
//   The broadcast template reads coalesced dims (at most MAX_RANK), so the
//   contiguous and scalar cases walk rank 1.
//   Float kernels include _ieee_wgsl.ts, whose functions the expressions
//   call for NaN- and infinity-exact results.

import { planBroadcast } from "../broadcast.ts";
import { formatShape } from "../_shape.ts";
import type { GpuBatch } from "./gpu_batch.ts";
import type { GpuDType, GpuTensor } from "./gpu_tensor.ts";
import { IEEE_WGSL } from "./_ieee_wgsl.ts";

// Broadcasts needing more dims than this (after coalescing) are refused;
// the integration runs them on the CPU.
const MAX_RANK = 8;
const WORKGROUP = 256;
// A grid-stride loop covers the rest; 65535 is WebGPU's per-dim minimum.
const MAX_WORKGROUPS = 65535;

/** The WGSL type of each GPU dtype's elements. */
export const WGSL_TYPE: Record<GpuDType, string> = {
  float32: "f32",
  int32: "i32",
  bool: "u32",
};

/** A kernel for the templates: op, dtype, WGSL expression, variant. */
export type Kernel = [
  op: string,
  dtype: GpuDType,
  expr: string,
  variant?: string,
];

function workgroups(size: number): [number] {
  return [Math.max(1, Math.min(MAX_WORKGROUPS, Math.ceil(size / WORKGROUP)))];
}

// out[i] = expr(X[i]); p[0] = size, p[1..] = extra parameters.
/**
 * Records `out[i] = expr(a)` with `a = X[i]`; p[0] is the size and
 * `extra` follows it (read as p[1], p[2], ...).
 *
 * @param batch Where the dispatch goes.
 * @param kernel The op, dtype, expression and variant.
 * @param x The operand.
 * @param extra Further parameter words.
 * @returns The new GPU tensor.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { mapDispatch } from "./_elementwise_template.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([1, 2], "int32"));
 *   const y = mapDispatch(batch, ["twice", "int32", "a * 2"], x, []);
 *   assertEquals((await batch.read([y]))[0].toNested(), [2, 4]);
 *   gpu.destroy();
 * }
 * ```
 */
export function mapDispatch(
  batch: GpuBatch,
  [op, dtype, expr, variant = "map"]: Kernel,
  x: GpuTensor,
  extra: readonly number[],
): GpuTensor {
  const out = batch.allocate(dtype, x.shape);
  if (out.size === 0) return out;
  const t = WGSL_TYPE[dtype];
  const pipeline = batch.pipelines.get({ op, dtype, variant }, () => `
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read> X: array<${t}>;
@group(0) @binding(2) var<storage, read_write> O: array<${t}>;
${dtype === "float32" ? IEEE_WGSL : ""}
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) g: vec3<u32>,
        @builtin(num_workgroups) nw: vec3<u32>) {
  let n = p[0];
  for (var i = g.x; i < n; i += nw.x * ${WORKGROUP}u) {
    let a = X[i];
    O[i] = ${expr};
  }
}`);
  batch.dispatch({
    pipeline,
    buffers: [x.buffer, out.buffer],
    params: new Uint32Array([out.size, ...extra]),
    workgroups: workgroups(out.size),
  });
  return out;
}

// out[i] = expr(X[xi], Y[yi]) over the broadcast shape. Parameters: p[0]
// = size, p[1] = rank, then the dims, X's strides and Y's strides.
/**
 * Records `out[i] = expr(a, b)` over the broadcast shape of X and Y.
 *
 * @param batch Where the dispatch goes.
 * @param kernel The op, dtype (of X and Y), expression and variant.
 * @param operands X, Y and the broadcast axis.
 * @param outDType The result's dtype.
 * @returns The new GPU tensor.
 * @throws {RangeError} If the shapes do not broadcast or need more than
 * MAX_RANK dims.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { broadcastDispatch } from "./_elementwise_template.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([[1], [2]], "int32"));
 *   const y = batch.upload(Tensor.fromArray([10, 20], "int32"));
 *   const z = broadcastDispatch(batch, ["plus", "int32", "a + b"], [x, y, -1], "int32");
 *   assertEquals((await batch.read([z]))[0].toNested(), [[11, 21], [12, 22]]);
 *   gpu.destroy();
 * }
 * ```
 */
export function broadcastDispatch(
  batch: GpuBatch,
  [op, dtype, expr]: Kernel,
  [x, y, axis]: [GpuTensor, GpuTensor, number],
  outDType: GpuDType,
): GpuTensor {
  const plan = planBroadcast(x.shape, y.shape, axis);
  const out = batch.allocate(outDType, plan.shape);
  if (out.size === 0) return out;
  const [dims, xs, ys] = coalesce(plan.shape, plan.xStrides, plan.yStrides);
  if (dims.length > MAX_RANK) {
    throw new RangeError(
      `${op}: broadcast shape ${
        formatShape(plan.shape)
      } has more than ${MAX_RANK} independent dims`,
    );
  }
  const t = WGSL_TYPE[dtype], o = WGSL_TYPE[outDType];
  const pipeline = batch.pipelines.get(
    { op, dtype, variant: "broadcast" },
    () => `
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read> X: array<${t}>;
@group(0) @binding(2) var<storage, read> Y: array<${t}>;
@group(0) @binding(3) var<storage, read_write> O: array<${o}>;
${dtype === "float32" ? IEEE_WGSL : ""}
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) g: vec3<u32>,
        @builtin(num_workgroups) nw: vec3<u32>) {
  let n = p[0]; let rank = p[1];
  for (var i = g.x; i < n; i += nw.x * ${WORKGROUP}u) {
    var xi = 0u; var yi = 0u; var r = i;
    for (var d = rank; d > 0u; d--) {
      let dim = p[1u + d];
      let c = r % dim;
      r = r / dim;
      xi += c * p[1u + rank + d];
      yi += c * p[1u + 2u * rank + d];
    }
    let a = X[xi]; let b = Y[yi];
    O[i] = ${expr};
  }
}`,
  );
  batch.dispatch({
    pipeline,
    buffers: [x.buffer, y.buffer, out.buffer],
    params: new Uint32Array([out.size, dims.length, ...dims, ...xs, ...ys]),
    workgroups: workgroups(out.size),
  });
  return out;
}

/**
 * Merges neighbouring dims that both operands walk contiguously (or both
 * broadcast), and drops dims of size 1, so common cases walk rank 1.
 *
 * @param shape The broadcast dims.
 * @param xStrides X's strides per dim (0 where broadcast).
 * @param yStrides Y's strides per dim.
 * @returns The merged dims and both operands' strides; rank >= 1.
 *
 * @example Usage
 * ```ts
 *
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(coalesce([2, 3, 4], [12, 4, 1], [12, 4, 1]), [[24], [1], [1]]);
 * assertEquals(coalesce([2, 3], [3, 1], [0, 1]), [[2, 3], [3, 1], [0, 1]]);
 * ```
 */
export function coalesce(
  shape: readonly number[],
  xStrides: readonly number[],
  yStrides: readonly number[],
): [number[], number[], number[]] {
  const dims: number[] = [], xs: number[] = [], ys: number[] = [];
  for (let d = 0; d < shape.length; d++) {
    if (shape[d] === 1) continue;
    const last = dims.length - 1;
    if (
      last >= 0 &&
      xs[last] === xStrides[d] * shape[d] &&
      ys[last] === yStrides[d] * shape[d]
    ) {
      dims[last] *= shape[d];
      xs[last] = xStrides[d];
      ys[last] = yStrides[d];
    } else {
      dims.push(shape[d]);
      xs.push(xStrides[d]);
      ys.push(yStrides[d]);
    }
  }
  if (dims.length === 0) return [[1], [0], [0]];
  return [dims, xs, ys];
}
