/**
 * `exactText`, shared by the builders of the fill ops (`fill_constant`,
 * `fill_constant_batch_size_like`), whose `value` attribute is a float32.
 *
 * @module
 */
import type { DType } from "../../kernels/dtype.ts";

/**
 * The `str_value` a fill op needs: `value` is a float32 on the wire, so a
 * value it cannot hold goes in `str_value` too, and 2 ** 60 (int64) or 0.1
 * (float64) stay exact.
 *
 * @param v The value.
 * @param dtype The filled tensor's dtype.
 * @returns The exact text, or `undefined` when float32 holds `v`.
 *
 * @example Usage
 * ```ts
 * import { exactText } from "./_exact_text.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(exactText(0.1, "float64"), "0.1");
 * assertEquals(exactText(0.5, "float32"), undefined);
 * ```
 */
export function exactText(
  v: number | bigint | boolean,
  dtype: DType,
): string | undefined {
  if (typeof v === "bigint") return v.toString();
  if (typeof v !== "number" || Object.is(Math.fround(v), v)) return undefined;
  if (dtype !== "int64") return String(v);
  return Number.isFinite(v) ? BigInt(Math.trunc(v)).toString() : undefined;
}
