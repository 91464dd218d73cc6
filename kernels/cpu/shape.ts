// Kernels that rearrange elements without computing on them: reshape,
// transpose, concat, stack, split, slice, gather and broadcastTo.
//
// Cuts and joins along an axis view the tensor as [outer, dim, inner]
// (outer = product of the dims before the axis, inner = after it), so each
// moves `outer` contiguous blocks per operand.

import { allocate } from "../allocate.ts";
import {
  contiguousStrides,
  formatShape,
  normalizeAxis,
  sameShape,
  shapeSize,
} from "../_shape.ts";
import { isIntegerDType, promoteTypes } from "../dtype.ts";
import type { SplitKernelOptions } from "../kernel_options.ts";
import {
  aroundAxis,
  broadcastToStrides,
  concatLayout,
  nearEqualLayout,
  reshapeDims,
  sliceLayout,
  splitLayout,
  transposePerm,
} from "../layout.ts";
import { Tensor } from "../tensor.ts";
import { copyRange, stridedCopy } from "./_copy.ts";
import { cast } from "./cast.ts";

/**
 * The same elements under new dims. A -1 dim is inferred from the others; a
 * 0 dim copies X's dim at that index. The result shares `x`'s storage.
 *
 * @param x The tensor.
 * @param shape The new dims.
 * @returns A tensor of the new shape.
 * @throws {RangeError} If the dims do not hold exactly `x.size` elements.
 *
 * @example Usage
 * ```ts
 * import { reshape } from "./shape.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([1, 2, 3, 4, 5, 6], "int32");
 * assertEquals(reshape(x, [2, -1]).toNested(), [[1, 2, 3], [4, 5, 6]]);
 * ```
 */
export function reshape(x: Tensor, shape: readonly number[]): Tensor {
  return new Tensor(x.dtype, reshapeDims(x.shape, shape), x.data);
}

/**
 * Permutes dims: result dim `i` is X's dim `axes[i]`.
 *
 * @param x The tensor.
 * @param axes A permutation of `0..rank-1`; negative entries count from the end.
 * @returns The transposed tensor.
 * @throws {RangeError} If `axes` is not a permutation of X's dims.
 *
 * @example Usage
 * ```ts
 * import { transpose } from "./shape.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([[1, 2, 3], [4, 5, 6]], "float32");
 * assertEquals(transpose(x, [1, 0]).toNested(), [[1, 4], [2, 5], [3, 6]]);
 * ```
 */
export function transpose(x: Tensor, axes: readonly number[]): Tensor {
  const perm = transposePerm(x.shape, axes);
  const strides = contiguousStrides(x.shape);
  const shape = perm.map((a) => x.shape[a]);
  const data = allocate(x.dtype, x.size);
  if (x.size > 0) {
    stridedCopy(
      x.data,
      { offset: 0, strides: perm.map((a) => strides[a]) },
      shape,
      data,
    );
  }
  return new Tensor(x.dtype, shape, data);
}

/**
 * Joins tensors along an existing axis. Dtypes promote as `binary` does.
 *
 * @param xs One or more tensors whose dims agree except along `axis`.
 * @param axis The axis; negative counts from the end.
 * @returns The joined tensor.
 * @throws {RangeError} If `xs` is empty, the axis is out of range or the
 * other dims differ.
 *
 * @example Usage
 * ```ts
 * import { concat } from "./shape.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const a = Tensor.fromArray([[1, 2]], "int32");
 * const b = Tensor.fromArray([[3, 4], [5, 6]], "int32");
 * assertEquals(concat([a, b], 0).toNested(), [[1, 2], [3, 4], [5, 6]]);
 * ```
 */
export function concat(xs: readonly Tensor[], axis = 0): Tensor {
  const { axis: a, shape } = concatLayout(xs.map((x) => x.shape), axis);
  const dtype = xs.reduce((d, x) => promoteTypes(d, x.dtype), xs[0].dtype);
  const [outer, , inner] = aroundAxis(shape, a);
  const data = allocate(dtype, shapeSize(shape));
  const parts = xs.map((x) => cast(x, dtype));
  let o = 0;
  for (let i = 0; i < outer; i++) {
    for (const x of parts) {
      const block = x.shape[a] * inner;
      copyRange(x.data, i * block, data, o, block);
      o += block;
    }
  }
  return new Tensor(dtype, shape, data);
}

/**
 * Joins same-shape tensors along a new axis.
 *
 * @param xs One or more tensors of one shape.
 * @param axis Where the new dim goes, in `[-(rank + 1), rank]`.
 * @returns The stacked tensor.
 * @throws {RangeError} If `xs` is empty, the shapes differ or the axis is
 * out of range.
 *
 * @example Usage
 * ```ts
 * import { stack } from "./shape.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const a = Tensor.fromArray([1, 2], "int32");
 * const b = Tensor.fromArray([3, 4], "int32");
 * assertEquals(stack([a, b], 1).toNested(), [[1, 3], [2, 4]]);
 * ```
 */
export function stack(xs: readonly Tensor[], axis = 0): Tensor {
  if (xs.length === 0) throw new RangeError("stack: no inputs");
  const shape = xs[0].shape;
  const a = normalizeAxis(axis, shape.length + 1, "stack");
  const expanded = [...shape.slice(0, a), 1, ...shape.slice(a)];
  return concat(
    xs.map((x) => {
      if (!sameShape(x.shape, shape)) {
        throw new RangeError(
          `stack: shapes ${formatShape(shape)} and ${
            formatShape(x.shape)
          } differ`,
        );
      }
      return new Tensor(x.dtype, expanded, x.data);
    }),
    a,
  );
}

/**
 * Cuts a tensor along an axis into `num` equal parts, or into parts of the
 * given `sections` sizes, one of which may be -1 (the rest).
 *
 * @param x The tensor.
 * @param axis The axis; negative counts from the end.
 * @param options `{ num }` or `{ sections }`.
 * @returns The parts, in order.
 * @throws {RangeError} If the parts do not add up to the dim.
 *
 * @example Usage
 * ```ts
 * import { split } from "./shape.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([1, 2, 3, 4, 5], "int32");
 * const parts = split(x, 0, { sections: [1, -1, 2] });
 * assertEquals(parts.map((p) => p.toNested()), [[1], [2, 3], [4, 5]]);
 * ```
 */
export function split(
  x: Tensor,
  axis: number,
  options: SplitKernelOptions,
): Tensor[] {
  const { axis: a, sizes } = splitLayout(x.shape, axis, options);
  return cutAlong(x, a, sizes);
}

/**
 * Cuts a tensor along an axis into `num` parts whose sizes differ by at most
 * 1, larger parts first (10 rows into 3: 4, 3, 3). Parts may be empty when
 * `num` exceeds the dim.
 *
 * @param x The tensor.
 * @param num How many parts, at least 1.
 * @param axis The axis; negative counts from the end.
 * @returns The parts, in order.
 * @throws {RangeError} If `num` is not a positive integer or the axis is
 * out of range.
 *
 * @example Usage
 * ```ts
 * import { splitNearEqual } from "./shape.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([1, 2, 3, 4, 5], "int32");
 * assertEquals(splitNearEqual(x, 3).map((p) => p.toNested()), [[1, 2], [3, 4], [5]]);
 * ```
 */
export function splitNearEqual(x: Tensor, num: number, axis = 0): Tensor[] {
  const { axis: a, sizes } = nearEqualLayout(x.shape, axis, num);
  return cutAlong(x, a, sizes);
}

/**
 * A box of X: along each of `axes`, indices `[start, end)`. Starts and ends
 * count from the end when negative and clamp to the dim, as Python slices
 * do; an end before its start gives an empty dim.
 *
 * @param x The tensor.
 * @param axes The axes sliced; others are kept whole.
 * @param starts One start per axis.
 * @param ends One end per axis.
 * @returns The sliced tensor, same rank as `x`.
 * @throws {RangeError} If the lists differ in length or an axis is out of range.
 *
 * @example Usage
 * ```ts
 * import { slice } from "./shape.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([[1, 2, 3], [4, 5, 6]], "int32");
 * assertEquals(slice(x, [1], [-2], [100]).toNested(), [[2, 3], [5, 6]]);
 * ```
 */
export function slice(
  x: Tensor,
  axes: readonly number[],
  starts: readonly number[],
  ends: readonly number[],
): Tensor {
  const { begin, shape } = sliceLayout(x.shape, axes, starts, ends);
  if (sameShape(shape, x.shape)) return x;
  const strides = contiguousStrides(x.shape);
  const offset = begin.reduce((p, b, d) => p + b * strides[d], 0);
  const data = allocate(x.dtype, shapeSize(shape));
  if (data.length > 0) stridedCopy(x.data, { offset, strides }, shape, data);
  return new Tensor(x.dtype, shape, data);
}

/**
 * Picks slices of X along an axis: result index `i` on that axis is X's
 * index `index[i]`. The index tensor is read flat (`[n]`, `[n, 1]` and rank
 * 0 all work), and its length replaces the axis's dim.
 *
 * @param x The tensor.
 * @param index Integer indices in `[0, dim)`.
 * @param axis The axis; negative counts from the end.
 * @returns The gathered tensor.
 * @throws {TypeError} If `index` is not an integer tensor.
 * @throws {RangeError} If an index or the axis is out of range.
 *
 * @example Usage
 * ```ts
 * import { gather } from "./shape.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([[1, 2], [3, 4], [5, 6]], "float32");
 * const index = Tensor.fromArray([2, 0], "int64");
 * assertEquals(gather(x, index).toNested(), [[5, 6], [1, 2]]);
 * ```
 */
export function gather(x: Tensor, index: Tensor, axis = 0): Tensor {
  if (!isIntegerDType(index.dtype)) {
    throw new TypeError(
      `gather: index dtype "${index.dtype}" is not an integer type`,
    );
  }
  const a = normalizeAxis(axis, x.shape.length, "gather");
  const [outer, dim, inner] = aroundAxis(x.shape, a);
  const picks = Array.from(index.data as ArrayLike<number | bigint>, Number);
  for (const p of picks) {
    if (!(p >= 0 && p < dim)) {
      throw new RangeError(
        `gather: index ${p} is out of range for dim ${dim} of ${
          formatShape(x.shape)
        }`,
      );
    }
  }
  const shape = x.shape.with(a, picks.length);
  const data = allocate(x.dtype, shapeSize(shape));
  let o = 0;
  for (let i = 0; i < outer; i++) {
    for (const p of picks) {
      copyRange(x.data, (i * dim + p) * inner, data, o, inner);
      o += inner;
    }
  }
  return new Tensor(x.dtype, shape, data);
}

/**
 * X repeated to a larger shape, NumPy's `broadcast_to`: X's dims align
 * with the last dims of `shape`, and each dim of 1 repeats.
 *
 * @param x The tensor.
 * @param shape The result's dims, of at least X's rank.
 * @returns A new tensor of `shape`.
 * @throws {RangeError} If X does not broadcast to `shape`.
 *
 * @example Usage
 * ```ts
 * import { broadcastTo } from "./shape.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([[1], [2]], "int32");
 * assertEquals(broadcastTo(x, [2, 2, 3]).toNested(), [
 *   [[1, 1, 1], [2, 2, 2]],
 *   [[1, 1, 1], [2, 2, 2]],
 * ]);
 * ```
 */
export function broadcastTo(x: Tensor, shape: readonly number[]): Tensor {
  const strides = broadcastToStrides(x.shape, shape);
  const data = allocate(x.dtype, shapeSize(shape));
  if (data.length > 0) stridedCopy(x.data, { offset: 0, strides }, shape, data);
  return new Tensor(x.dtype, [...shape], data);
}

// Precondition: sizes are non-negative integers summing to x.shape[axis].
function cutAlong(x: Tensor, axis: number, sizes: readonly number[]): Tensor[] {
  const [outer, dim, inner] = aroundAxis(x.shape, axis);
  let start = 0;
  return sizes.map((size) => {
    const shape = x.shape.with(axis, size);
    const data = allocate(x.dtype, shapeSize(shape));
    for (let i = 0; i < outer; i++) {
      copyRange(
        x.data,
        (i * dim + start) * inner,
        data,
        i * size * inner,
        size * inner,
      );
    }
    start += size;
    return new Tensor(x.dtype, shape, data);
  });
}
