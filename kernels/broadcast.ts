// Broadcasting of two shapes: NumPy's rule, plus Fluid's `axis` rule that
// aligns the lower-rank operand to the other from a given dim.
//
// Fluid's rule is reduced to NumPy's: the lower-rank shape, trailing 1s
// dropped, is padded with 1s on both sides to the higher rank so that it
// starts at `axis` (Y into X when the ranks are equal); NumPy broadcasting of
// the padded shapes then gives the answer. With axis -1 nothing is padded.

import { contiguousStrides, formatShape } from "./_shape.ts";

/** How two operands map onto their broadcast result. */
export interface BroadcastPlan {
  /** The result's dims. */
  readonly shape: readonly number[];
  /** X's stride per result dim, in elements; 0 where X is broadcast. */
  readonly xStrides: readonly number[];
  /** Y's stride per result dim, in elements; 0 where Y is broadcast. */
  readonly yStrides: readonly number[];
}

/**
 * The shape of a binary op's result.
 *
 * @param x X's dims.
 * @param y Y's dims.
 * @param axis -1 for NumPy broadcasting; otherwise the dim of the
 * higher-rank operand where the lower-rank one starts (Fluid).
 * @returns The broadcast dims.
 * @throws {RangeError} If the shapes do not broadcast or `axis` does not fit.
 *
 * @example Usage
 * ```ts
 * import { broadcastShapes } from "./broadcast.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(broadcastShapes([2, 1], [3]), [2, 3]);
 * assertEquals(broadcastShapes([2, 3, 4], [3], 1), [2, 3, 4]);
 * ```
 */
export function broadcastShapes(
  x: readonly number[],
  y: readonly number[],
  axis = -1,
): number[] {
  const [xs, ys] = alignForAxis(x, y, axis);
  const rank = Math.max(xs.length, ys.length);
  const shape = new Array<number>(rank);
  for (let d = 0; d < rank; d++) {
    const a = dimFromEnd(xs, rank - d);
    const b = dimFromEnd(ys, rank - d);
    if (a !== b && a !== 1 && b !== 1) throw mismatch(x, y, axis);
    shape[d] = a === 1 ? b : a;
  }
  return shape;
}

/**
 * The result shape of a binary op plus each operand's strides over it, so a
 * kernel can walk the result once and read both inputs.
 *
 * @param x X's dims.
 * @param y Y's dims.
 * @param axis As for {@linkcode broadcastShapes}.
 * @returns The plan.
 * @throws {RangeError} If the shapes do not broadcast or `axis` does not fit.
 *
 * @example Usage
 * ```ts
 * import { planBroadcast } from "./broadcast.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const plan = planBroadcast([2, 3], [3]);
 * assertEquals(plan.shape, [2, 3]);
 * assertEquals(plan.xStrides, [3, 1]);
 * assertEquals(plan.yStrides, [0, 1]);
 * ```
 */
export function planBroadcast(
  x: readonly number[],
  y: readonly number[],
  axis = -1,
): BroadcastPlan {
  const shape = broadcastShapes(x, y, axis);
  const [xs, ys] = alignForAxis(x, y, axis);
  return {
    shape,
    xStrides: stridesOver(xs, shape),
    yStrides: stridesOver(ys, shape),
  };
}

function alignForAxis(
  x: readonly number[],
  y: readonly number[],
  axis: number,
): [readonly number[], readonly number[]] {
  if (axis === -1) return [x, y];
  if (!Number.isInteger(axis) || axis < -1) {
    throw new RangeError(
      `broadcast: axis ${axis} is invalid for shapes ${formatShape(x)} and ${
        formatShape(y)
      }`,
    );
  }
  if (x.length >= y.length) return [x, placeAt(y, axis, x.length, x, y)];
  return [placeAt(x, axis, y.length, x, y), y];
}

function placeAt(
  small: readonly number[],
  axis: number,
  rank: number,
  x: readonly number[],
  y: readonly number[],
): number[] {
  let end = small.length;
  while (end > 0 && small[end - 1] === 1) end--;
  if (axis + end > rank) {
    throw new RangeError(
      `broadcast: axis ${axis} is out of range for shapes ${
        formatShape(x)
      } and ${formatShape(y)}`,
    );
  }
  const placed = new Array<number>(rank).fill(1);
  for (let i = 0; i < end; i++) placed[axis + i] = small[i];
  return placed;
}

function dimFromEnd(shape: readonly number[], k: number): number {
  return k <= shape.length ? shape[shape.length - k] : 1;
}

function stridesOver(
  shape: readonly number[],
  out: readonly number[],
): number[] {
  const own = contiguousStrides(shape);
  const offset = out.length - shape.length;
  const strides = new Array<number>(out.length).fill(0);
  for (let d = 0; d < shape.length; d++) {
    if (shape[d] !== 1) strides[offset + d] = own[d];
  }
  return strides;
}

function mismatch(
  x: readonly number[],
  y: readonly number[],
  axis: number,
): RangeError {
  const at = axis === -1 ? "" : ` with axis ${axis}`;
  return new RangeError(
    `broadcast: shapes ${formatShape(x)} and ${
      formatShape(y)
    } do not match${at}`,
  );
}
