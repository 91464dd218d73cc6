// Dtype conversion with C cast semantics, used by the `cast` op and by every
// kernel that promotes mixed-dtype operands.

import { allocate } from "../allocate.ts";
import { type DType, isFloatDType, type TypedArray } from "../dtype.ts";
import { Tensor } from "../tensor.ts";

/**
 * Converts a tensor to another dtype.
 *
 * Floats truncate toward zero when they become integers; NaN and ±Infinity
 * become 0; integers wrap to the target width; anything becomes bool as
 * `value != 0` (NaN is true). A cast to the same dtype returns `x` itself,
 * which is safe because tensors are immutable.
 *
 * @param x The tensor.
 * @param dtype The target dtype.
 * @returns A tensor of `dtype` and `x`'s shape.
 *
 * @example Usage
 * ```ts
 * import { cast } from "./cast.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([-1.7, 0, 2.5, NaN], "float32");
 * assertEquals(cast(x, "int64").toNested(), [-1n, 0n, 2n, 0n]);
 * assertEquals(cast(x, "bool").toNested(), [true, false, true, true]);
 * ```
 */
export function cast(x: Tensor, dtype: DType): Tensor {
  if (x.dtype === dtype) return x;
  const out = allocate(dtype, x.size);
  convert(x.data, x.dtype, out, dtype);
  return new Tensor(dtype, x.shape, out);
}

function convert(
  src: TypedArray,
  from: DType,
  dst: TypedArray,
  to: DType,
): void {
  const n = src.length;
  if (from === "int64") {
    const s = src as BigInt64Array, d = dst as Float64Array;
    if (to === "bool") {
      for (let i = 0; i < n; i++) d[i] = s[i] !== 0n ? 1 : 0;
    } else if (isFloatDType(to)) {
      for (let i = 0; i < n; i++) d[i] = Number(s[i]);
    } else {
      // 32 low bits first so Number() is exact; the store wraps further.
      for (let i = 0; i < n; i++) d[i] = Number(BigInt.asIntN(32, s[i]));
    }
    return;
  }
  const s = src as Float64Array;
  if (to === "int64") {
    const d = dst as BigInt64Array;
    for (let i = 0; i < n; i++) d[i] = bigFromNumber(s[i]);
  } else if (to === "bool") {
    const d = dst as Uint8Array;
    for (let i = 0; i < n; i++) d[i] = s[i] !== 0 ? 1 : 0;
  } else {
    // Number to number: the typed-array store truncates and wraps exactly as
    // the cast rules say, so set() is the whole conversion.
    (dst as Float64Array).set(s);
  }
}

function bigFromNumber(v: number): bigint {
  if (Number.isSafeInteger(v)) return BigInt(v);
  return Number.isFinite(v) ? BigInt.asIntN(64, BigInt(Math.trunc(v))) : 0n;
}
