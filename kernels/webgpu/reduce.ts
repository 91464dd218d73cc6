// Reductions (sum, mean, max, min over chosen dims) and softmax on the GPU,
// with the CPU's shapes and special values (kernels/cpu/reduce.ts).
//
// Invariants:
//   One workgroup of WORKGROUP invocations per output element: each
//   invocation folds a strided share of the reduced elements, then a tree
//   in workgroup memory folds the shares. The order is fixed by the shape,
//   so a result is reproducible; it differs from the CPU's float64 sum
//   within TOLERANCE.reduce_sum.
//   max and min propagate NaN (f_max/f_min), as Math.max does.
//   Kept and reduced dims are coalesced, so each walks at most MAX_RANK.
//   float16 reads its elements as f16, accumulates in f32 and rounds each
//   result once to float16 on bits (_f16_wgsl.ts); results are stored a
//   half at a time with store_half, since neighbouring results of one word
//   come from different workgroups.

import {
  contiguousStrides,
  formatShape,
  normalizeAxis,
  reducedDims,
  shapeSize,
} from "../_shape.ts";
import { REDUCE_KINDS, type ReduceKind } from "../kernel_kinds.ts";
import type { ReduceKernelOptions } from "../kernel_options.ts";
import type { GpuBatch } from "./gpu_batch.ts";
import type { GpuDType, GpuTensor } from "./gpu_tensor.ts";
import { coalesce } from "./_elementwise_template.ts";
import { IEEE_WGSL } from "./_ieee_wgsl.ts";
import { ENABLE_F16, F16_WGSL, halfStoreWgsl } from "./_f16_wgsl.ts";

const WORKGROUP = 64;
const MAX_RANK = 8;
const MAX_WORKGROUPS = 65535;

// [initial value, fold step] per kind and the type accumulated in, as WGSL
// (float16 accumulates in f32). prod has none: it stays on the CPU.
const FOLD: Record<
  "f32" | "i32",
  Partial<Record<ReduceKind, [string, string]>>
> = {
  f32: {
    sum: ["0.0", "a + b"],
    mean: ["0.0", "a + b"],
    max: ["inf_f32(true)", "f_max(a, b)"],
    min: ["inf_f32(false)", "f_min(a, b)"],
  },
  i32: {
    sum: ["0", "a + b"],
    mean: ["0", "a + b"],
    max: ["i32(-2147483647 - 1)", "select(b, a, a > b)"],
    min: ["2147483647", "select(b, a, a < b)"],
  },
};

/**
 * The reductions the GPU runs, per dtype: those with a fold in WGSL
 * (prod stays on the CPU).
 *
 * @example Usage
 * ```ts
 * import { GPU_REDUCE } from "./reduce.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(GPU_REDUCE.float32, ["sum", "mean", "max", "min"]);
 * ```
 */
export const GPU_REDUCE: Readonly<
  Record<"float32" | "float16" | "int32", readonly ReduceKind[]>
> = {
  float32: REDUCE_KINDS.filter((kind) => kind in FOLD.f32),
  float16: REDUCE_KINDS.filter((kind) => kind in FOLD.f32),
  int32: REDUCE_KINDS.filter((kind) => kind in FOLD.i32),
};

/**
 * Reduces dims of a float32, float16 or int32 tensor, shaped as the CPU's
 * `reduce`: no dims (or `reduceAll`) reduces all, giving `[1]` without
 * `keepDim`. An int32 mean truncates toward zero; a float mean of nothing
 * is NaN. float16 accumulates in f32 and rounds once.
 *
 * @param batch Where the dispatch goes.
 * @param kind sum, mean, max or min.
 * @param x The tensor.
 * @param options The dims and shape options.
 * @returns A new GPU tensor of x's dtype.
 * @throws {TypeError} If the kind or dtype does not run here.
 * @throws {RangeError} If a dim is out of range, or max, min or an int32
 * mean meet an empty dim.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { reduce } from "./reduce.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([[1, 2, 3], [4, 5, 6]], "float32"));
 *   const [sum, max] = await batch.read([
 *     reduce(batch, "sum", x, { dims: [1] }),
 *     reduce(batch, "max", x, { dims: [0], keepDim: true }),
 *   ]);
 *   assertEquals([sum.toNested(), max.toNested()], [[6, 15], [[4, 5, 6]]]);
 *   gpu.destroy();
 * }
 * ```
 */
export function reduce(
  batch: GpuBatch,
  kind: ReduceKind,
  x: GpuTensor,
  options: ReduceKernelOptions = {},
): GpuTensor {
  const dtype = x.dtype;
  if (dtype === "bool" || !GPU_REDUCE[dtype].includes(kind)) {
    throw new TypeError(`reduce: no GPU kernel for "${kind}" of ${dtype}`);
  }
  const reduced = reducedDims(x.shape, options);
  const kept = x.shape.map((d, i) => (reduced[i] ? 1 : d));
  const count = shapeSize(x.shape.filter((_, i) => reduced[i]));
  // As on the CPU: only sums, and float means (NaN), exist when empty.
  const definedWhenEmpty = kind === "sum" ||
    (kind === "mean" && dtype !== "int32");
  if (count === 0 && !definedWhenEmpty) {
    throw new RangeError(
      `reduce: "${kind}" of an empty dim of ${dtype} ${formatShape(x.shape)}`,
    );
  }
  const shape = options.keepDim === true
    ? kept
    : x.shape.filter((_, i) => !reduced[i]);
  const out = batch.allocate(
    dtype,
    shape.length === 0 && options.keepDim !== true ? [1] : shape,
  );
  if (out.size === 0) return out;
  const strides = contiguousStrides(x.shape);
  // The walk over one group of dims (kept or reduced), the others set to 1.
  const walk = (ofReduced: boolean): [number[], number[]] => {
    const dims = x.shape.map((d, i) => (reduced[i] === ofReduced ? d : 1));
    const [merged, mergedStrides] = coalesce(dims, strides, strides);
    return [merged, mergedStrides];
  };
  const [outDims, outStrides] = walk(false);
  const [redDims, redStrides] = walk(true);
  if (outDims.length > MAX_RANK || redDims.length > MAX_RANK) {
    throw new RangeError(`reduce: ${formatShape(x.shape)} has too many dims`);
  }
  const [init, step] = FOLD[dtype === "int32" ? "i32" : "f32"][kind]!;
  const finish = kind !== "mean"
    ? "v"
    : dtype === "int32"
    ? "v / i32(p[1])"
    : "select(v / f32(p[1]), nan_f32(), p[1] == 0u)";
  const pipeline = batch.pipelines.get(
    { op: `reduce_${kind}`, dtype, variant: "workgroup" },
    () => reduceWgsl(dtype, [init, step, finish]),
  );
  batch.dispatch({
    pipeline,
    buffers: [x.buffer, out.buffer],
    params: new Uint32Array([
      out.size,
      count,
      outDims.length,
      redDims.length,
      ...outDims,
      ...outStrides,
      ...redDims,
      ...redStrides,
    ]),
    workgroups: grid(out.size),
  });
  return out;
}

/**
 * Softmax of a float32 or float16 tensor along one axis:
 * `exp(x - max) / sum`, with the CPU's NaN and infinity behaviour (float16
 * computes in f32 and rounds once).
 *
 * @param batch Where the dispatches go.
 * @param x A float32 or float16 tensor.
 * @param axis The axis; negative counts from the end.
 * @returns A new GPU tensor of x's dtype and shape.
 * @throws {TypeError} If x is not a float tensor.
 * @throws {RangeError} If the axis is out of range.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { softmax } from "./reduce.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertAlmostEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([0, Math.log(3)], "float32"));
 *   const [y] = await batch.read([softmax(batch, x)]);
 *   assertAlmostEquals(y.item(1) as number, 0.75, 1e-6);
 *   gpu.destroy();
 * }
 * ```
 */
export function softmax(batch: GpuBatch, x: GpuTensor, axis = -1): GpuTensor {
  const dtype = x.dtype;
  if (dtype !== "float32" && dtype !== "float16") {
    throw new TypeError(`softmax: no GPU kernel for ${dtype}`);
  }
  const rank = x.shape.length;
  const a = rank === 0 ? 0 : normalizeAxis(axis, rank, "softmax");
  const n = rank === 0 ? 1 : x.shape[a];
  const inner = contiguousStrides(x.shape)[a] ?? 1;
  const out = batch.allocate(dtype, x.shape);
  if (out.size === 0) return out;
  const rows = x.size / n;
  const pipeline = batch.pipelines.get(
    { op: "softmax", dtype, variant: "workgroup" },
    () => softmaxWgsl(dtype),
  );
  batch.dispatch({
    pipeline,
    buffers: [x.buffer, out.buffer],
    params: new Uint32Array([rows, n, inner]),
    workgroups: grid(rows),
  });
  return out;
}

function grid(count: number): [number, number] {
  const x = Math.min(count, MAX_WORKGROUPS);
  return [x, Math.ceil(count / x)];
}

// The bindings and element access of a reduction or softmax over `dtype`:
// X[i] as the type accumulated in, and `store(i, v)` for the results.
// float16 reads f16 and writes halves with store_half.
function access(dtype: GpuDType): string {
  if (dtype !== "float16") {
    const t = dtype === "float32" ? "f32" : "i32";
    return `
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read> X: array<${t}>;
@group(0) @binding(2) var<storage, read_write> O: array<${t}>;
${IEEE_WGSL}
fn load(i: u32) -> ${t} { return X[i]; }
fn store(i: u32, v: ${t}) { O[i] = v; }`;
  }
  return `${ENABLE_F16}
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read> X: array<f16>;
@group(0) @binding(2) var<storage, read_write> O: array<atomic<u32>>;
${IEEE_WGSL}
${F16_WGSL}
${halfStoreWgsl("O")}
fn load(i: u32) -> f32 { return f32(X[i]); }
fn store(i: u32, v: f32) { store_half(i, f32_to_f16(v)); }`;
}

// p: [outputs, count, out rank, reduced rank, out dims, out strides,
// reduced dims, reduced strides]. `o` is uniform in the workgroup, so the
// barriers are in uniform control flow.
function reduceWgsl(
  dtype: GpuDType,
  [init, step, finish]: [string, string, string],
): string {
  const t = dtype === "int32" ? "i32" : "f32";
  return `${access(dtype)}
var<workgroup> part: array<${t}, ${WORKGROUP}>;
fn fold(a: ${t}, b: ${t}) -> ${t} { return ${step}; }
fn walk(index: u32, rank: u32, dims: u32) -> u32 {
  var offset = 0u; var r = index;
  for (var d = rank; d > 0u; d--) {
    let dim = p[dims + d - 1u];
    offset += (r % dim) * p[dims + rank + d - 1u];
    r = r / dim;
  }
  return offset;
}
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) w: vec3<u32>,
        @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
  let o = w.x + w.y * nw.x;
  let outRank = p[2]; let redRank = p[3];
  let base = walk(min(o, p[0] - 1u), outRank, 4u);
  var acc: ${t} = ${init};
  for (var j = l; j < p[1]; j += ${WORKGROUP}u) {
    acc = fold(acc, load(base + walk(j, redRank, 4u + 2u * outRank)));
  }
  part[l] = acc;
  workgroupBarrier();
  for (var s = ${WORKGROUP / 2}u; s > 0u; s = s >> 1u) {
    if (l < s) { part[l] = fold(part[l], part[l + s]); }
    workgroupBarrier();
  }
  if (l == 0u && o < p[0]) {
    let v = part[0];
    store(o, ${finish});
  }
}`;
}

// p: [rows, n, inner]. Row r holds n elements inner apart, from
// (r / inner) · n · inner + r % inner. Workgroups past the last row (the
// 2-D grid rounds up) redo the last row and write the same values.
function softmaxWgsl(dtype: GpuDType): string {
  return `${access(dtype)}
var<workgroup> part: array<f32, ${WORKGROUP}>;
fn tree(l: u32, is_max: bool) -> f32 {
  workgroupBarrier();
  for (var s = ${WORKGROUP / 2}u; s > 0u; s = s >> 1u) {
    if (l < s) {
      part[l] = select(part[l] + part[l + s], f_max(part[l], part[l + s]), is_max);
    }
    workgroupBarrier();
  }
  let v = part[0];
  workgroupBarrier();
  return v;
}
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) w: vec3<u32>,
        @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
  let r = min(w.x + w.y * nw.x, p[0] - 1u);
  let n = p[1]; let inner = p[2];
  let base = (r / inner) * n * inner + r % inner;
  var m = inf_f32(true);
  for (var k = l; k < n; k += ${WORKGROUP}u) { m = f_max(m, load(base + k * inner)); }
  part[l] = m;
  let top = tree(l, true);
  var s = 0.0;
  for (var k = l; k < n; k += ${WORKGROUP}u) { s += f_exp(load(base + k * inner) - top); }
  part[l] = s;
  let total = tree(l, false);
  for (var k = l; k < n; k += ${WORKGROUP}u) {
    store(base + k * inner, f_exp(load(base + k * inner) - top) / total);
  }
}`;
}
