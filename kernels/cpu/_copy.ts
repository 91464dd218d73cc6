// Walking strided views row by row, and the copies built on that walk.
//
// A "row" is a run along the last dim. Kernels ask for the start offset of
// every row once (one odometer, here) and then run a tight inner loop, which
// keeps per-element work to an add and a load.

import { shapeSize } from "../_shape.ts";
import type { StorageArray, TypedArray } from "../dtype.ts";

// Below this many elements a plain loop beats subarray() + set(), which
// allocate a view per call.
const SET_THRESHOLD = 64;

/**
 * The start offset of every row of `shape` in a view with the given strides.
 *
 * @param shape The dims walked, row-major; rank >= 1.
 * @param strides The view's stride per dim, in elements (0 broadcasts).
 * @param base The offset of the view's first element.
 * @returns `size / lastDim` offsets, in row-major order (empty if size is 0).
 *
 * @example Usage
 * ```ts
 * import { rowOffsets } from "./_copy.ts";
 * import { assertEquals } from "@std/assert";
 *
 * // Rows of a [2, 3] view of a transposed [3, 2] array.
 * assertEquals([...rowOffsets([2, 3], [1, 2])], [0, 1]);
 * ```
 */
export function rowOffsets(
  shape: readonly number[],
  strides: readonly number[],
  base = 0,
): Float64Array {
  const rank = shape.length;
  const inner = shape[rank - 1];
  const rows = inner === 0 ? 0 : shapeSize(shape) / inner;
  const offsets = new Float64Array(rows);
  const index = new Array<number>(rank).fill(0);
  let offset = base;
  for (let r = 0; r < rows; r++) {
    offsets[r] = offset;
    for (let d = rank - 2; d >= 0; d--) {
      offset += strides[d];
      if (++index[d] < shape[d]) break;
      offset -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
  return offsets;
}

/**
 * Copies a strided view of `src` into `out`, row-major.
 *
 * @param src The source elements.
 * @param view Where to read: the first element's offset, and a stride per dim.
 * @param shape The dims of the view, which is also `out`'s shape.
 * @param out The destination, same element kind as `src`, `size` long.
 *
 * @example Usage
 * ```ts
 * import { stridedCopy } from "./_copy.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const out = new Int32Array(6);
 * // The transpose of [[1, 2, 3], [4, 5, 6]].
 * stridedCopy(new Int32Array([1, 2, 3, 4, 5, 6]), { offset: 0, strides: [1, 3] }, [3, 2], out);
 * assertEquals([...out], [1, 4, 2, 5, 3, 6]);
 * ```
 */
export function stridedCopy(
  src: StorageArray,
  view: { readonly offset: number; readonly strides: readonly number[] },
  shape: readonly number[],
  out: StorageArray,
): void {
  if (shape.length === 0) {
    out[0] = src[view.offset];
    return;
  }
  const inner = shape[shape.length - 1];
  const step = view.strides[shape.length - 1];
  const rows = rowOffsets(shape, view.strides, view.offset);
  let o = 0;
  for (let r = 0; r < rows.length; r++) {
    for (let j = 0, p = rows[r]; j < inner; j++, p += step) out[o++] = src[p];
  }
}

/**
 * Copies `n` consecutive elements between two arrays of the same type.
 *
 * @param src The source; same typed-array type as `dst`.
 * @param from The first element read.
 * @param dst The destination.
 * @param to The first element written.
 * @param n How many elements.
 *
 * @example Usage
 * ```ts
 * import { copyRange } from "./_copy.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const dst = new Float32Array(4);
 * copyRange(new Float32Array([1, 2, 3]), 1, dst, 2, 2);
 * assertEquals([...dst], [0, 0, 2, 3]);
 * ```
 */
export function copyRange(
  src: TypedArray,
  from: number,
  dst: TypedArray,
  to: number,
  n: number,
): void {
  if (n >= SET_THRESHOLD) {
    // Same runtime type on both sides (the caller's precondition), so set()
    // copies bytes; the casts only satisfy the union's overloads.
    (dst as Uint8Array).set((src as Uint8Array).subarray(from, from + n), to);
    return;
  }
  const s = src as StorageArray, d = dst as StorageArray;
  for (let i = 0; i < n; i++) d[to + i] = s[from + i];
}
