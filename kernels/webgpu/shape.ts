// Kernels that move elements without computing on them, on the GPU:
// transpose, concat, stack, slice, split and broadcastTo (gather is in
// gather.ts), with the semantics and error messages of
// kernels/cpu/shape.ts.
//
// Invariants:
//   Every kernel is a copy of bits (_strided_copy.ts: 32-bit words, or
//   16-bit halves for float16), so results are bit-identical to the CPU's
//   for float32, float16, int32 and bool alike.
//   Arguments are checked here, before anything is recorded, with the
//   CPU's messages; a check the CPU does not make (mixed dtypes, a
//   fractional slice bound) throws here so the device table runs the CPU.
//   A call that moves nothing (an identity transpose or slice, one concat
//   operand) returns a view of X's buffer, never X itself, so releasing the
//   result never releases X.

import {
  contiguousStrides,
  formatShape,
  normalizeAxis,
  sameShape,
} from "../_shape.ts";
import type { SplitKernelOptions } from "../kernel_options.ts";
import type { GpuBatch } from "./gpu_batch.ts";
import type { GpuTensor } from "./gpu_tensor.ts";
import { copyStrided } from "./_strided_copy.ts";
import {
  aroundAxis,
  broadcastToStrides,
  concatLayout,
  nearEqualLayout,
  sliceLayout,
  splitLayout,
  transposePerm,
} from "../layout.ts";

/**
 * Permutes dims: result dim `i` is X's dim `axes[i]`.
 *
 * @param batch Where the dispatch goes.
 * @param x The tensor.
 * @param axes A permutation of `0..rank-1`; negative entries count from the end.
 * @returns A new GPU tensor (a view when no element moves).
 * @throws {RangeError} If `axes` is not a permutation of X's dims.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { transpose } from "./shape.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([[1, 2, 3], [4, 5, 6]], "float32"));
 *   const [y] = await batch.read([transpose(batch, x, [1, 0])]);
 *   assertEquals(y.toNested(), [[1, 4], [2, 5], [3, 6]]);
 *   gpu.destroy();
 * }
 * ```
 */
export function transpose(
  batch: GpuBatch,
  x: GpuTensor,
  axes: readonly number[],
): GpuTensor {
  const perm = transposePerm(x.shape, axes);
  const shape = perm.map((a) => x.shape[a]);
  // Dims of size 1 do not decide where elements are: if the others keep
  // their order, the layout is unchanged.
  const moved = perm.filter((a) => x.shape[a] !== 1);
  if (x.size === 0 || moved.every((a, i) => i === 0 || moved[i - 1] < a)) {
    return x.view(shape);
  }
  const strides = contiguousStrides(x.shape);
  const out = batch.allocate(x.dtype, shape);
  copyStrided(batch, x, out, {
    dims: shape,
    xBase: 0,
    xStrides: perm.map((a) => strides[a]),
    outBase: 0,
    outStrides: contiguousStrides(shape),
  });
  return out;
}

/**
 * Joins tensors of one dtype along an existing axis.
 *
 * @param batch Where the dispatches go (one per operand).
 * @param xs One or more tensors whose dims agree except along `axis`.
 * @param axis The axis; negative counts from the end.
 * @returns A new GPU tensor.
 * @throws {RangeError} If `xs` is empty, the axis is out of range or the
 * other dims differ.
 * @throws {TypeError} If the dtypes differ (the CPU promotes them).
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { concat } from "./shape.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const a = batch.upload(Tensor.fromArray([[1], [2]], "int32"));
 *   const b = batch.upload(Tensor.fromArray([[3, 4], [5, 6]], "int32"));
 *   const [y] = await batch.read([concat(batch, [a, b], -1)]);
 *   assertEquals(y.toNested(), [[1, 3, 4], [2, 5, 6]]);
 *   gpu.destroy();
 * }
 * ```
 */
export function concat(
  batch: GpuBatch,
  xs: readonly GpuTensor[],
  axis = 0,
): GpuTensor {
  const { axis: a, shape } = concatLayout(xs.map((x) => x.shape), axis);
  const total = shape[a];
  for (const x of xs) {
    if (x.dtype !== xs[0].dtype) {
      throw new TypeError(
        `concat: the GPU kernel takes one dtype, got ${
          xs[0].dtype
        } and ${x.dtype}`,
      );
    }
  }
  if (xs.length === 1) return xs[0].view(shape);
  const [outer, , inner] = aroundAxis(shape, a);
  const out = batch.allocate(xs[0].dtype, shape);
  let start = 0;
  for (const x of xs) {
    // Each operand is `outer` blocks of `dim · inner` elements, landing at
    // column `start · inner` of the output's rows of `total · inner`.
    const block = x.shape[a] * inner;
    copyStrided(batch, x, out, {
      dims: [outer, block],
      xBase: 0,
      xStrides: [block, 1],
      outBase: start * inner,
      outStrides: [total * inner, 1],
    });
    start += x.shape[a];
  }
  return out;
}

/**
 * A box of X: along each of `axes`, indices `[start, end)`, counting from
 * the end when negative and clamped to the dim, as the CPU's `slice`.
 *
 * @param batch Where the dispatch goes.
 * @param x The tensor.
 * @param axes The axes sliced; others are kept whole.
 * @param starts One start per axis.
 * @param ends One end per axis.
 * @returns A new GPU tensor, same rank as `x` (a view when nothing is cut).
 * @throws {RangeError} If the lists differ in length, an axis is out of
 * range, or a bound is not an integer (which the CPU takes).
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { slice } from "./shape.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([[1, 2, 3], [4, 5, 6]], "int32"));
 *   const [y] = await batch.read([slice(batch, x, [1], [-2], [100])]);
 *   assertEquals(y.toNested(), [[2, 3], [5, 6]]);
 *   gpu.destroy();
 * }
 * ```
 */
export function slice(
  batch: GpuBatch,
  x: GpuTensor,
  axes: readonly number[],
  starts: readonly number[],
  ends: readonly number[],
): GpuTensor {
  const { begin, shape } = sliceLayout(x.shape, axes, starts, ends);
  if (!begin.every(Number.isInteger) || !shape.every(Number.isInteger)) {
    throw new RangeError(
      `slice: bounds ${formatShape(starts)} to ${
        formatShape(ends)
      } are not integers (the GPU kernel needs them)`,
    );
  }
  if (sameShape(shape, x.shape)) return x.view(shape);
  const strides = contiguousStrides(x.shape);
  const out = batch.allocate(x.dtype, shape);
  copyStrided(batch, x, out, {
    dims: shape,
    xBase: begin.reduce((p, b, d) => p + b * strides[d], 0),
    xStrides: strides,
    outBase: 0,
    outStrides: contiguousStrides(shape),
  });
  return out;
}

/**
 * Cuts a tensor along an axis into `num` equal parts, or into parts of the
 * given `sections` sizes, one of which may be -1 (the rest).
 *
 * @param batch Where the dispatches go (one per non-empty part).
 * @param x The tensor.
 * @param axis The axis; negative counts from the end.
 * @param options `{ num }` or `{ sections }`.
 * @returns New GPU tensors, in order.
 * @throws {RangeError} If the parts do not add up to the dim or the axis is
 * out of range.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { split } from "./shape.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([1, 2, 3, 4, 5], "int32"));
 *   const parts = await batch.read(split(batch, x, 0, { sections: [1, -1, 2] }));
 *   assertEquals(parts.map((p) => p.toNested()), [[1], [2, 3], [4, 5]]);
 *   gpu.destroy();
 * }
 * ```
 */
export function split(
  batch: GpuBatch,
  x: GpuTensor,
  axis: number,
  options: SplitKernelOptions,
): GpuTensor[] {
  const { axis: a, sizes } = splitLayout(x.shape, axis, options);
  return cutAlong(batch, x, a, sizes);
}

/**
 * Cuts a tensor along an axis into `num` parts whose sizes differ by at most
 * 1, larger parts first (10 rows into 3: 4, 3, 3), as the CPU's
 * `splitNearEqual`.
 *
 * @param batch Where the dispatches go (one per non-empty part).
 * @param x The tensor.
 * @param num How many parts, at least 1.
 * @param axis The axis; negative counts from the end.
 * @returns New GPU tensors, in order.
 * @throws {RangeError} If `num` is not a positive integer or the axis is
 * out of range.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { splitNearEqual } from "./shape.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([1, 2, 3, 4, 5], "float32"));
 *   const parts = await batch.read(splitNearEqual(batch, x, 3));
 *   assertEquals(parts.map((p) => p.toNested()), [[1, 2], [3, 4], [5]]);
 *   gpu.destroy();
 * }
 * ```
 */
export function splitNearEqual(
  batch: GpuBatch,
  x: GpuTensor,
  num: number,
  axis = 0,
): GpuTensor[] {
  const { axis: a, sizes } = nearEqualLayout(x.shape, axis, num);
  return cutAlong(batch, x, a, sizes);
}

/**
 * Joins tensors of one shape and dtype along a new axis: a concat of
 * views with a dim of 1 at the axis.
 *
 * @param batch Where the dispatches go (one per operand).
 * @param xs One or more tensors of one shape.
 * @param axis Where the new dim goes, in `[-(rank + 1), rank]`.
 * @returns A new GPU tensor.
 * @throws {RangeError} If `xs` is empty, the shapes differ or the axis is
 * out of range.
 * @throws {TypeError} If the dtypes differ (the CPU promotes them).
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { stack } from "./shape.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const a = batch.upload(Tensor.fromArray([1, 2], "float32"));
 *   const b = batch.upload(Tensor.fromArray([3, 4], "float32"));
 *   const [y] = await batch.read([stack(batch, [a, b], 1)]);
 *   assertEquals(y.toNested(), [[1, 3], [2, 4]]);
 *   gpu.destroy();
 * }
 * ```
 */
export function stack(
  batch: GpuBatch,
  xs: readonly GpuTensor[],
  axis = 0,
): GpuTensor {
  if (xs.length === 0) throw new RangeError("stack: no inputs");
  const shape = xs[0].shape;
  const a = normalizeAxis(axis, shape.length + 1, "stack");
  for (const x of xs) {
    if (!sameShape(x.shape, shape)) {
      throw new RangeError(
        `stack: shapes ${formatShape(shape)} and ${
          formatShape(x.shape)
        } differ`,
      );
    }
  }
  const expanded = [...shape.slice(0, a), 1, ...shape.slice(a)];
  return concat(batch, xs.map((x) => x.view(expanded)), a);
}

/**
 * X repeated to a larger shape, as the CPU's `broadcastTo`: one strided
 * copy that reads each repeated dim with stride 0.
 *
 * @param batch Where the dispatch goes.
 * @param x The tensor.
 * @param shape The result's dims, of at least X's rank.
 * @returns A new GPU tensor of `shape` (a view when nothing repeats).
 * @throws {RangeError} If X does not broadcast to `shape`.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { broadcastTo } from "./shape.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([[1], [2]], "float32"));
 *   const [y] = await batch.read([broadcastTo(batch, x, [2, 3])]);
 *   assertEquals(y.toNested(), [[1, 1, 1], [2, 2, 2]]);
 *   gpu.destroy();
 * }
 * ```
 */
export function broadcastTo(
  batch: GpuBatch,
  x: GpuTensor,
  shape: readonly number[],
): GpuTensor {
  const strides = broadcastToStrides(x.shape, shape);
  const size = shape.reduce((p, d) => p * d, 1);
  if (size === x.size) return x.view([...shape]);
  const out = batch.allocate(x.dtype, [...shape]);
  if (size === 0) return out;
  copyStrided(batch, x, out, {
    dims: [...shape],
    xBase: 0,
    xStrides: strides,
    outBase: 0,
    outStrides: contiguousStrides(shape),
  });
  return out;
}

// Precondition: sizes are non-negative integers summing to x.shape[axis].
function cutAlong(
  batch: GpuBatch,
  x: GpuTensor,
  a: number,
  sizes: readonly number[],
): GpuTensor[] {
  const [outer, dim, inner] = aroundAxis(x.shape, a);
  let start = 0;
  return sizes.map((size) => {
    const out = batch.allocate(x.dtype, x.shape.with(a, size));
    copyStrided(batch, x, out, {
      dims: [outer, size * inner],
      xBase: start * inner,
      xStrides: [dim * inner, 1],
      outBase: 0,
      outStrides: [size * inner, 1],
    });
    start += size;
    return out;
  });
}
