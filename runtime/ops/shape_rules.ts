/**
 * Static shape rules shared by op definitions: what an output's type is
 * given its inputs', with -1 for dimensions unknown until the program runs.
 * A rule throws a `RangeError` when known dimensions cannot fit, which the
 * validator reports before anything runs.
 *
 * @module
 */
import { broadcastShapes } from "../../kernels/broadcast.ts";
import type { DType } from "../../kernels/dtype.ts";
import type { InferredType } from "../core/op_def.ts";

/**
 * The same type as the input.
 *
 * @param x The input's type.
 * @returns A copy of it.
 *
 * @example Usage
 * ```ts
 * import { sameAs } from "./shape_rules.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(sameAs({ dtype: "float32", shape: [2] }), { dtype: "float32", shape: [2] });
 * ```
 */
export function sameAs(x: InferredType | undefined): InferredType {
  return { ...x };
}

/**
 * The type of an elementwise result: the broadcast of both shapes (Paddle's
 * `axis` rule when ≥ 0), with the given dtype or X's.
 *
 * @param x X's type.
 * @param y Y's type.
 * @param axis Paddle's axis attribute.
 * @param dtype The result dtype; default X's.
 * @returns The result type.
 *
 * @example Usage
 * ```ts
 * import { broadcastRule } from "./shape_rules.ts";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * assertEquals(broadcastRule({ shape: [2, 3] }, { shape: [3] }, -1).shape, [2, 3]);
 * assertThrows(() => broadcastRule({ shape: [2, 3] }, { shape: [4] }, -1));
 * ```
 */
export function broadcastRule(
  x: InferredType | undefined,
  y: InferredType | undefined,
  axis: number,
  dtype?: DType,
): InferredType {
  const outDtype = dtype ?? x?.dtype;
  if (x?.shape === undefined || y?.shape === undefined) {
    return { dtype: outDtype };
  }
  const shape = axis < 0 && sameKnownShape(x.shape, y.shape)
    ? x.shape
    : broadcastWithUnknowns(x.shape, y.shape, axis);
  return { dtype: outDtype, shape };
}

// The common case of same-shape operands, without the general rule's arrays.
function sameKnownShape(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i] || a[i] < 0) return false;
  }
  return true;
}

// Unknown (-1) dimensions match anything; the known ones must broadcast.
function broadcastWithUnknowns(
  a: readonly number[],
  b: readonly number[],
  axis: number,
): number[] {
  const known = (s: readonly number[]) => s.map((d) => (d < 0 ? 1 : d));
  const shape = broadcastShapes(known(a), known(b), axis);
  const unknownAt = (s: readonly number[], i: number, offset: number) =>
    s[i - offset] !== undefined && s[i - offset] < 0;
  const offA = shape.length - a.length;
  const offB = axis >= 0 ? axis : shape.length - b.length;
  return shape.map((d, i) =>
    d === 1 && (unknownAt(a, i, offA) || unknownAt(b, i, offB)) ? -1 : d
  );
}
