// Shape arithmetic shared by the tensor class and the kernels: element
// counts, row-major strides, axis normalisation and shape text for errors.

/**
 * The number of elements of a shape: the product of its dims, 1 for rank 0.
 *
 * @param shape Non-negative dims.
 * @returns The element count.
 *
 * @example Usage
 * ```ts
 * import { shapeSize } from "./_shape.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(shapeSize([2, 3]), 6);
 * assertEquals(shapeSize([]), 1);
 * ```
 */
export function shapeSize(shape: readonly number[]): number {
  let size = 1;
  for (let i = 0; i < shape.length; i++) size *= shape[i];
  return size;
}

/**
 * The most elements a tensor may have: V8's limit on a typed array's length
 * (2^32 - 1 is the smallest of the limits it has had on 64-bit machines).
 */
export const MAX_TENSOR_ELEMENTS = 2 ** 32 - 1;

/**
 * The number of elements of a shape that new storage is made for, checked:
 * every dim a whole number of at least 0, and the product within
 * {@linkcode MAX_TENSOR_ELEMENTS}.
 *
 * @param shape The dims, as a program gave them.
 * @returns The element count.
 * @throws {RangeError} Naming the shape and what is wrong with it.
 *
 * @example Usage
 * ```ts
 * import { checkedShapeSize } from "./_shape.ts";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * assertEquals(checkedShapeSize([2, 3]), 6);
 * assertThrows(() => checkedShapeSize([1, -2]), RangeError, "shape [1, -2]: dim 1 is -2");
 * ```
 */
export function checkedShapeSize(shape: readonly number[]): number {
  let size = 1;
  for (let i = 0; i < shape.length; i++) {
    const d = shape[i];
    if (!(Number.isInteger(d) && d >= 0)) {
      throw new RangeError(
        `shape ${
          formatShape(shape)
        }: dim ${i} is ${d}, not a whole number >= 0`,
      );
    }
    size *= d;
  }
  if (size > MAX_TENSOR_ELEMENTS) {
    throw new RangeError(
      `shape ${
        formatShape(shape)
      }: ${size} elements, more than a tensor may hold (${MAX_TENSOR_ELEMENTS})`,
    );
  }
  return size;
}

/**
 * The row-major strides of a shape, in elements.
 *
 * @param shape The dims.
 * @returns One stride per dim; the last is 1.
 *
 * @example Usage
 * ```ts
 * import { contiguousStrides } from "./_shape.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(contiguousStrides([2, 3, 4]), [12, 4, 1]);
 * ```
 */
export function contiguousStrides(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let stride = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return strides;
}

/**
 * Maps a possibly negative axis into `[0, rank)`.
 *
 * @param axis The axis; negative counts from the end.
 * @param rank The tensor's rank.
 * @param action The failing action, named first in the error message.
 * @returns The axis in `[0, rank)`.
 * @throws {RangeError} If the axis is outside `[-rank, rank)`.
 *
 * @example Usage
 * ```ts
 * import { normalizeAxis } from "./_shape.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(normalizeAxis(-1, 3, "concat"), 2);
 * ```
 */
export function normalizeAxis(
  axis: number,
  rank: number,
  action: string,
): number {
  if (!Number.isInteger(axis) || axis < -rank || axis >= rank) {
    throw new RangeError(
      `${action}: axis ${axis} is out of range for rank ${rank}`,
    );
  }
  return axis < 0 ? axis + rank : axis;
}

/**
 * Which dims of a tensor a reduction reduces: `dims` (negative counting
 * from the end), or every dim with `reduceAll` or no `dims`.
 *
 * @param shape The tensor's dims.
 * @param options The reduction's dims and flags.
 * @returns One flag per dim.
 * @throws {RangeError} If a dim is out of range.
 *
 * @example Usage
 * ```ts
 * import { reducedDims } from "./_shape.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(reducedDims([2, 3, 4], { dims: [-1, 0] }), [true, false, true]);
 * assertEquals(reducedDims([2, 3], {}), [true, true]);
 * ```
 */
export function reducedDims(
  shape: readonly number[],
  options: {
    readonly dims?: readonly number[];
    readonly reduceAll?: boolean;
  },
): boolean[] {
  const dims = options.dims ?? [];
  const all = options.reduceAll === true || dims.length === 0;
  const reduced = new Array<boolean>(shape.length).fill(all);
  if (!all) {
    for (const d of dims) {
      reduced[normalizeAxis(d, shape.length, "reduce")] = true;
    }
  }
  return reduced;
}

/**
 * Whether two shapes are equal dim by dim.
 *
 * @param a A shape.
 * @param b Another shape.
 * @returns `true` when they have the same rank and dims.
 *
 * @example Usage
 * ```ts
 * import { sameShape } from "./_shape.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(sameShape([2, 3], [2, 3]), true);
 * assertEquals(sameShape([6], [2, 3]), false);
 * ```
 */
export function sameShape(a: readonly number[], b: readonly number[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * A shape as error messages quote it: `[2, 3]`.
 *
 * @param shape The dims.
 * @returns The bracketed list.
 *
 * @example Usage
 * ```ts
 * import { formatShape } from "./_shape.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(formatShape([2, 3]), "[2, 3]");
 * assertEquals(formatShape([]), "[]");
 * ```
 */
export function formatShape(shape: readonly number[]): string {
  return `[${shape.join(", ")}]`;
}
