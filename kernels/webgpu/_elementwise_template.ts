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
//   float16 operands are read as f16 and computed in f32; a float16 result
//   is rounded on bits (_f16_wgsl.ts) and written a word (two elements) per
//   step of the loop, so no two invocations share a word.

import { planBroadcast } from "../broadcast.ts";
import { formatShape } from "../_shape.ts";
import type { GpuBatch } from "./gpu_batch.ts";
import type { GpuDType, GpuTensor } from "./gpu_tensor.ts";
import { IEEE_WGSL } from "./_ieee_wgsl.ts";
import { ENABLE_F16, F16_WGSL } from "./_f16_wgsl.ts";

// Broadcasts needing more dims than this (after coalescing) are refused;
// the integration runs them on the CPU.
const MAX_RANK = 8;
const WORKGROUP = 256;
// A grid-stride loop covers the rest; 65535 is WebGPU's per-dim minimum.
const MAX_WORKGROUPS = 65535;

/**
 * The WGSL type each GPU dtype computes in: float16 computes in f32.
 *
 * @example Usage
 * ```ts
 * import { WGSL_TYPE } from "./_elementwise_template.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals([WGSL_TYPE.float16, WGSL_TYPE.bool], ["f32", "u32"]);
 * ```
 */
export const WGSL_TYPE: Record<GpuDType, string> = {
  float32: "f32",
  float16: "f32",
  int32: "i32",
  bool: "u32",
};

/**
 * A kernel for the templates: op, dtype, WGSL expression, variant, and WGSL
 * functions the expression calls (the map templates include them after
 * the prelude; the op's name keys the pipeline, so it implies them).
 */
export type Kernel = [
  op: string,
  dtype: GpuDType,
  expr: string,
  variant?: string,
  functions?: string,
];

function workgroups(size: number): [number] {
  return [Math.max(1, Math.min(MAX_WORKGROUPS, Math.ceil(size / WORKGROUP)))];
}

// The module's first lines: `enable f16;` when an operand is float16, the
// parameters, the operands (bindings 1..), and the preludes the
// expressions call.
function prelude(
  inputs: string[],
  dtype: GpuDType,
  outDType: GpuDType,
): string {
  const f16 = dtype === "float16", float = f16 || dtype === "float32";
  const element = f16 ? "f16" : WGSL_TYPE[dtype];
  const out = outDType === "float16" ? "u32" : WGSL_TYPE[outDType];
  return [
    f16 ? ENABLE_F16 : "",
    "@group(0) @binding(0) var<storage, read> p: array<u32>;",
    ...inputs.map((name, i) =>
      `@group(0) @binding(${
        i + 1
      }) var<storage, read> ${name}: array<${element}>;`
    ),
    `@group(0) @binding(${
      inputs.length + 1
    }) var<storage, read_write> O: array<${out}>;`,
    float ? IEEE_WGSL : "",
    f16 || outDType === "float16" ? F16_WGSL : "",
  ].join("\n");
}

// X[i] as the compute type (float16 widens to f32, exactly).
function load(name: string, index: string, dtype: GpuDType): string {
  return dtype === "float16" ? `f32(${name}[${index}])` : `${name}[${index}]`;
}

// The main loop over the output: element i is `element_at(i)`. A float16
// output is written a word at a time, both halves by one invocation.
function mainLoop(outDType: GpuDType): string {
  const body = outDType === "float16"
    ? `
  let words = (n + 1u) / 2u;
  for (var w = g.x; w < words; w += nw.x * ${WORKGROUP}u) {
    let i = 2u * w;
    var high = 0u;
    if (i + 1u < n) { high = f32_to_f16(element_at(i + 1u)); }
    O[w] = f32_to_f16(element_at(i)) | (high << 16u);
  }`
    : `
  for (var i = g.x; i < n; i += nw.x * ${WORKGROUP}u) {
    O[i] = element_at(i);
  }`;
  return `
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) g: vec3<u32>,
        @builtin(num_workgroups) nw: vec3<u32>) {
  let n = p[0];${body}
}`;
}

// Invocations the main loop needs for `size` output elements.
function loopSize(outDType: GpuDType, size: number): number {
  return outDType === "float16" ? Math.ceil(size / 2) : size;
}

/**
 * Records `out[i] = expr(a)` with `a = X[i]`; p[0] is the size and
 * `extra` follows it (read as p[1], p[2], ...); the kernel's functions
 * come before the expression. A float16 X is computed in
 * f32 and its result rounded to float16.
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
  [op, dtype, expr, variant = "map", functions = ""]: Kernel,
  x: GpuTensor,
  extra: readonly number[],
): GpuTensor {
  const out = batch.allocate(dtype, x.shape);
  if (out.size === 0) return out;
  const t = WGSL_TYPE[dtype];
  const pipeline = batch.pipelines.get({ op, dtype, variant }, () => `
${prelude(["X"], dtype, dtype)}
${functions}
fn element_at(i: u32) -> ${t} {
  let a = ${load("X", "i", dtype)};
  return ${expr};
}
${mainLoop(dtype)}`);
  batch.dispatch({
    pipeline,
    buffers: [x.buffer, out.buffer],
    params: new Uint32Array([out.size, ...extra]),
    workgroups: workgroups(loopSize(dtype, out.size)),
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
  const pipeline = batch.pipelines.get(
    { op, dtype, variant: "broadcast" },
    () => `
${prelude(["X", "Y"], dtype, outDType)}
fn element_at(i: u32) -> ${WGSL_TYPE[outDType]} {
  let rank = p[1];
  var xi = 0u; var yi = 0u; var r = i;
  for (var d = rank; d > 0u; d--) {
    let dim = p[1u + d];
    let c = r % dim;
    r = r / dim;
    xi += c * p[1u + rank + d];
    yi += c * p[1u + 2u * rank + d];
  }
  let a = ${load("X", "xi", dtype)}; let b = ${load("Y", "yi", dtype)};
  return ${expr};
}
${mainLoop(outDType)}`,
  );
  batch.dispatch({
    pipeline,
    buffers: [x.buffer, y.buffer, out.buffer],
    params: new Uint32Array([out.size, dims.length, ...dims, ...xs, ...ys]),
    workgroups: workgroups(loopSize(outDType, out.size)),
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
