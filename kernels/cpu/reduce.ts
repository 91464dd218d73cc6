// Reductions (sum, mean, max, min, prod over chosen dims), softmax, the
// many-input sum and the mean of everything.
//
// A reduction walks X once in row-major order and folds each element into
// its output slot; the slot's offset per X row comes from rowOffsets over
// X's shape with the output's strides (0 on reduced dims). Float reductions
// accumulate in float64 and round once when stored, so they are at least as
// accurate as a float32 accumulator; integer ones are exact modulo 2^32
// (2^64 for int64), which after the store equals wrapping at every step.

import { allocate } from "../allocate.ts";
import {
  contiguousStrides,
  formatShape,
  normalizeAxis,
  reducedDims,
  sameShape,
  shapeSize,
} from "../_shape.ts";
import {
  type DType,
  isFloatDType,
  promoteTypes,
  type StorageArray,
  type TypedArray,
} from "../dtype.ts";
import type { ReduceKind } from "../kernel_kinds.ts";
import type { ReduceKernelOptions } from "../kernel_options.ts";
import { Tensor } from "../tensor.ts";
import {
  BIG_REDUCE_ALU,
  FLOAT_REDUCE_ALU,
  INT_REDUCE_ALU,
  type ReduceAlu,
} from "./alu.ts";
import { rowOffsets } from "./_copy.ts";
import { cast } from "./cast.ts";
import { binary } from "./elementwise.ts";

/**
 * Reduces dims of a tensor.
 *
 * `dims` empty or `reduceAll` reduces every dim; a full reduction without
 * `keepDim` gives shape `[1]`, as in Paddle. Each dtype reduces to itself,
 * except bool: sum and prod give int64, mean float32, max and min bool.
 * Integer means truncate toward zero. max and min propagate NaN.
 *
 * @param kind The reduction.
 * @param x The tensor.
 * @param options The dims and shape options.
 * @returns The reduced tensor.
 * @throws {RangeError} If a dim is out of range, or max/min/integer mean
 * meet an empty dim.
 *
 * @example Usage
 * ```ts
 * import { reduce } from "./reduce.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([[1, 2, 3], [4, 5, 6]], "int32");
 * assertEquals(reduce("sum", x, { dims: [1] }).toNested(), [6, 15]);
 * assertEquals(reduce("max", x, { dims: [0], keepDim: true }).toNested(), [[4, 5, 6]]);
 * assertEquals(reduce("prod", x).toNested(), [720]);
 * ```
 */
export function reduce(
  kind: ReduceKind,
  x: Tensor,
  options: ReduceKernelOptions = {},
): Tensor {
  if (FLOAT_REDUCE_ALU[kind] === undefined) {
    throw new TypeError(`reduce: unknown kind "${kind}"`);
  }
  if (x.dtype === "bool" && kind !== "max" && kind !== "min") {
    const counted = kind === "mean" ? "float32" : "int64";
    return reduce(kind, cast(x, counted), options);
  }
  const reduced = reducedDims(x.shape, options);
  const keptShape = x.shape.map((d, i) => (reduced[i] ? 1 : d));
  const count = shapeSize(x.shape.filter((_, i) => reduced[i]));
  if (count === 0 && !definedWhenEmpty(kind, x.dtype)) {
    throw new RangeError(
      `reduce: "${kind}" of an empty dim of ${x.dtype} ${formatShape(x.shape)}`,
    );
  }
  const acc = accumulate(kind, x, reduced, keptShape);
  const data = allocate(x.dtype, acc.length);
  storeResults(acc, data, kind === "mean" ? count : 1, x.dtype);
  return new Tensor(
    x.dtype,
    outputShape(x.shape, reduced, keptShape, options),
    data,
  );
}

/**
 * Softmax along one axis: `exp(x - max) / sum(exp(x - max))`, computed in
 * float64 and rounded once. Integer and bool inputs give float32.
 *
 * @param x The tensor.
 * @param axis The axis; negative counts from the end.
 * @returns A float tensor of `x`'s shape.
 * @throws {RangeError} If the axis is out of range.
 *
 * @example Usage
 * ```ts
 * import { softmax } from "./reduce.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertAlmostEquals } from "@std/assert";
 *
 * const y = softmax(Tensor.fromArray([0, Math.log(3)], "float64"));
 * assertAlmostEquals(y.item(0) as number, 0.25);
 * assertAlmostEquals(y.item(1) as number, 0.75);
 * ```
 */
export function softmax(x: Tensor, axis = -1): Tensor {
  if (!isFloatDType(x.dtype)) return softmax(cast(x, "float32"), axis);
  const rank = x.shape.length;
  const a = rank === 0 ? 0 : normalizeAxis(axis, rank, "softmax");
  const n = rank === 0 ? 1 : x.shape[a];
  const inner = contiguousStrides(x.shape)[a] ?? 1;
  const src = x.data as Float64Array;
  const data = allocate(x.dtype, x.size);
  const out = data as Float64Array;
  const row = new Float64Array(n);
  for (let base = 0; base < x.size; base += n * inner) {
    for (let i = 0; i < inner; i++) {
      let max = -Infinity;
      for (let k = 0; k < n; k++) {
        max = Math.max(max, src[base + i + k * inner]);
      }
      let sum = 0;
      for (let k = 0; k < n; k++) {
        row[k] = Math.exp(src[base + i + k * inner] - max);
        sum += row[k];
      }
      for (let k = 0; k < n; k++) out[base + i + k * inner] = row[k] / sum;
    }
  }
  return new Tensor(x.dtype, x.shape, data);
}

/**
 * The elementwise sum of same-shape tensors (the `sum` op), added left to
 * right with each partial sum rounded to the promoted dtype.
 *
 * @param xs One or more tensors of one shape.
 * @returns Their sum.
 * @throws {RangeError} If `xs` is empty or the shapes differ.
 *
 * @example Usage
 * ```ts
 * import { addN } from "./reduce.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const a = Tensor.fromArray([1, 2], "int64");
 * assertEquals(addN([a, a, a]).toNested(), [3n, 6n]);
 * ```
 */
export function addN(xs: readonly Tensor[]): Tensor {
  if (xs.length === 0) throw new RangeError("sum: no inputs");
  let dtype = xs[0].dtype;
  for (const x of xs) {
    if (!sameShape(x.shape, xs[0].shape)) {
      throw new RangeError(
        `sum: shapes ${formatShape(xs[0].shape)} and ${
          formatShape(x.shape)
        } differ`,
      );
    }
    dtype = promoteTypes(dtype, x.dtype);
  }
  let total = cast(xs[0], dtype);
  for (let i = 1; i < xs.length; i++) total = binary("add", total, xs[i]);
  return total;
}

/**
 * The mean of every element, shape `[1]`.
 *
 * @param x The tensor.
 * @returns The mean; NaN for an empty float tensor.
 * @throws {RangeError} If `x` is an empty integer tensor.
 *
 * @example Usage
 * ```ts
 * import { mean } from "./reduce.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(mean(Tensor.fromArray([[1, 2], [3, 6]], "float32")).toNested(), [3]);
 * ```
 */
export function mean(x: Tensor): Tensor {
  return reduce("mean", x, { reduceAll: true });
}

// Sum and prod of nothing are 0 and 1; a float mean of nothing is NaN.
function definedWhenEmpty(kind: ReduceKind, dtype: DType): boolean {
  return kind === "sum" || kind === "prod" ||
    (kind === "mean" && isFloatDType(dtype));
}

// Writes acc / divisor into data, a new array of dtype: float division
// for float dtypes, truncating division for integers.
function storeResults(
  acc: Float64Array | BigInt64Array,
  data: TypedArray,
  divisor: number,
  dtype: DType,
): void {
  const out = data as StorageArray;
  if (divisor === 1) {
    for (let i = 0; i < acc.length; i++) out[i] = acc[i];
  } else if (acc instanceof BigInt64Array) {
    const d = BigInt(divisor);
    for (let i = 0; i < acc.length; i++) out[i] = acc[i] / d;
  } else {
    const round = isFloatDType(dtype) ? (v: number) => v : Math.trunc;
    for (let i = 0; i < acc.length; i++) out[i] = round(acc[i] / divisor);
  }
}

function outputShape(
  shape: readonly number[],
  reduced: readonly boolean[],
  keptShape: number[],
  options: ReduceKernelOptions,
): number[] {
  if (options.keepDim === true) return keptShape;
  const out = shape.filter((_, i) => !reduced[i]);
  return out.length === 0 ? [1] : out;
}

// Folds every element of x into a float64 (or, for int64, BigInt64)
// accumulator laid out like keptShape.
function accumulate(
  kind: ReduceKind,
  x: Tensor,
  reduced: readonly boolean[],
  keptShape: readonly number[],
): Float64Array | BigInt64Array {
  const strides = contiguousStrides(keptShape);
  const outStrides = strides.map((s, i) => (reduced[i] ? 0 : s));
  const outSize = shapeSize(keptShape);
  if (x.dtype === "int64") {
    return fold(
      BIG_REDUCE_ALU[kind],
      x,
      new BigInt64Array(outSize),
      outStrides,
    );
  }
  const alu = isFloatDType(x.dtype)
    ? FLOAT_REDUCE_ALU[kind]
    : INT_REDUCE_ALU[kind];
  return fold(alu, x, new Float64Array(outSize), outStrides);
}

function fold<
  T extends number | bigint,
  A extends Float64Array | BigInt64Array,
>(
  alu: ReduceAlu<T>,
  x: Tensor,
  acc: A,
  outStrides: readonly number[],
): A {
  const { init, step } = alu;
  const slots = acc as unknown as T[];
  const src = x.data as unknown as ArrayLike<T>;
  slots.fill(init);
  if (acc.length === 1) {
    let total = init;
    for (let i = 0; i < src.length; i++) total = step(total, src[i]);
    slots[0] = total;
    return acc;
  }
  const last = x.shape.length - 1;
  const inner = x.shape[last], s = outStrides[last];
  const rows = rowOffsets(x.shape, outStrides);
  let i = 0;
  for (let r = 0; r < rows.length; r++) {
    for (let j = 0, o = rows[r]; j < inner; j++, o += s) {
      slots[o] = step(slots[o], src[i++]);
    }
  }
  return acc;
}
