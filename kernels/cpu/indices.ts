// Kernels whose results are positions: argMax, topK and oneHot (Paddle's
// arg_max, top_k_v2 and one_hot_v2), on the CPU only; the WebGPU device
// runs them here by its table.
//
// Order of values (Paddle's comparators): a larger value comes first, NaN
// counts as larger than every number, and equal values keep the order of
// their positions (argMax gives the first largest).

import { allocate } from "../allocate.ts";
import { formatShape, normalizeAxis, shapeSize } from "../_shape.ts";
import { type DType, isIntegerDType, type StorageArray } from "../dtype.ts";
import { aroundAxis } from "../layout.ts";
import { Tensor } from "../tensor.ts";

type Element = number | bigint;

// Whether value a at position i comes before value b at position j (int64
// compares as bigints, exactly).
function before(a: Element, i: number, b: Element, j: number): boolean {
  const aNaN = Number.isNaN(a), bNaN = Number.isNaN(b);
  if (aNaN !== bNaN) return aNaN;
  if (a !== b && !aNaN) return a > b;
  return i < j;
}

/**
 * The position of the first largest element along an axis (NaN counts as
 * largest); the axis leaves the result.
 *
 * @param x The tensor, not bool.
 * @param axis The axis; negative counts from the end.
 * @param dtype The result's dtype: int32 or int64.
 * @returns The positions, of x's dims without the axis.
 * @throws {RangeError} If the axis is out of range or its dim is 0.
 * @throws {TypeError} If `dtype` is not int32 or int64.
 *
 * @example Usage
 * ```ts
 * import { argMax } from "./indices.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([[1, 5, 5], [7, 0, 2]], "float32");
 * assertEquals(argMax(x, 1, "int64").toNested(), [1n, 0n]);
 * assertEquals(argMax(x, 0, "int32").toNested(), [1, 0, 0]);
 * ```
 */
export function argMax(x: Tensor, axis: number, dtype: DType): Tensor {
  if (dtype !== "int32" && dtype !== "int64") {
    throw new TypeError(`argMax: dtype "${dtype}" is not int32 or int64`);
  }
  const a = normalizeAxis(axis, x.rank, "argMax");
  const [outer, dim, inner] = aroundAxis(x.shape, a);
  if (dim === 0) {
    throw new RangeError(
      `argMax: axis ${axis} of ${formatShape(x.shape)} has no elements`,
    );
  }
  const v = x.data as ArrayLike<Element>;
  const shape = x.shape.filter((_, i) => i !== a);
  const out = allocate(dtype, outer * inner) as StorageArray;
  for (let o = 0; o < outer; o++) {
    for (let n = 0; n < inner; n++) {
      const base = o * dim * inner + n;
      let best = 0;
      for (let i = 1; i < dim; i++) {
        if (before(v[base + i * inner], i, v[base + best * inner], best)) {
          best = i;
        }
      }
      out[o * inner + n] = dtype === "int64" ? BigInt(best) : best;
    }
  }
  return new Tensor(dtype, shape, out as Int32Array);
}

/**
 * The `k` largest (or smallest) elements along an axis, in order, and
 * their positions: NaN counts as larger than every number, and equal
 * values come in the order of their positions.
 *
 * @param x The tensor, not bool.
 * @param k How many, at most the axis's dim.
 * @param axis The axis; negative counts from the end.
 * @param largest The largest first; else the smallest first.
 * @returns `[values, indices]`: x's dims with `k` along the axis; the
 * indices are int64.
 * @throws {RangeError} If the axis is out of range or `k` is not in
 * `[0, dim]`.
 *
 * @example Usage
 * ```ts
 * import { topK } from "./indices.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([3, 1, 4, 1, 5], "float32");
 * const [values, indices] = topK(x, 2);
 * assertEquals(values.toNested(), [5, 4]);
 * assertEquals(indices.toNested(), [4n, 2n]);
 * assertEquals(topK(x, 2, -1, false)[1].toNested(), [1n, 3n]);
 * ```
 */
export function topK(
  x: Tensor,
  k: number,
  axis = -1,
  largest = true,
): Tensor[] {
  const a = normalizeAxis(axis, x.rank, "topK");
  const [outer, dim, inner] = aroundAxis(x.shape, a);
  if (!(Number.isInteger(k) && k >= 0 && k <= dim)) {
    throw new RangeError(
      `topK: k ${k} is not in [0, ${dim}] for axis ${axis} of ${
        formatShape(x.shape)
      }`,
    );
  }
  const v = x.data as ArrayLike<Element>;
  const shape = x.shape.with(a, k);
  const values = allocate(x.dtype, shapeSize(shape)) as StorageArray;
  const indices = new BigInt64Array(shapeSize(shape));
  const source = x.data as StorageArray;
  const order = new Array<number>(dim);
  for (let o = 0; o < outer; o++) {
    for (let n = 0; n < inner; n++) {
      const base = o * dim * inner + n;
      for (let i = 0; i < dim; i++) order[i] = i;
      const at = (i: number) => v[base + i * inner];
      order.sort((i, j) =>
        largest
          ? (before(at(i), i, at(j), j) ? -1 : 1)
          : (before(at(j), i, at(i), j) ? -1 : 1)
      );
      for (let r = 0; r < k; r++) {
        const to = o * k * inner + r * inner + n;
        values[to] = source[base + order[r] * inner];
        indices[to] = BigInt(order[r]);
      }
    }
  }
  return [
    new Tensor(x.dtype, shape, values as Int32Array),
    new Tensor("int64", shape, indices),
  ];
}

/**
 * One-hot rows: for each element `i` of X, a row of `depth` zeros with a
 * one at `i`, appended as a new last dim.
 *
 * @param x Integer positions.
 * @param depth The row length, at least 1.
 * @param dtype The result's dtype.
 * @param allowOutOfRange Give a row of zeros for a position outside
 * `[0, depth)` instead of throwing.
 * @returns A tensor of dims `[...x.shape, depth]`.
 * @throws {TypeError} If X is not an integer tensor.
 * @throws {RangeError} If `depth` is not positive, or a position is out of
 * range and that is not allowed.
 *
 * @example Usage
 * ```ts
 * import { oneHot } from "./indices.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([2, 0], "int64");
 * assertEquals(oneHot(x, 3, "float32").toNested(), [[0, 0, 1], [1, 0, 0]]);
 * ```
 */
export function oneHot(
  x: Tensor,
  depth: number,
  dtype: DType,
  allowOutOfRange = false,
): Tensor {
  if (!isIntegerDType(x.dtype)) {
    throw new TypeError(
      `oneHot: X's dtype "${x.dtype}" is not an integer type`,
    );
  }
  if (!(Number.isInteger(depth) && depth >= 1)) {
    throw new RangeError(`oneHot: depth ${depth} is not positive`);
  }
  const v = Array.from(x.data as ArrayLike<Element>, Number);
  const out = allocate(dtype, x.size * depth) as StorageArray;
  const one = dtype === "int64" ? 1n : 1;
  for (let i = 0; i < x.size; i++) {
    const p = v[i];
    if (p >= 0 && p < depth) {
      out[i * depth + p] = one;
    } else if (!allowOutOfRange) {
      throw new RangeError(
        `oneHot: position ${p} is out of range for depth ${depth}`,
      );
    }
  }
  return new Tensor(dtype, [...x.shape, depth], out as Int32Array);
}
