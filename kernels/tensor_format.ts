// Tensor values as `print` shows them (docs/architecture.md §5): the shortest text that
// reads back to the same element in the tensor's own dtype.

import type { DType } from "./dtype.ts";
import type { Tensor } from "./tensor.ts";

/** Options of {@linkcode formatTensor}. */
export interface FormatTensorOptions {
  /**
   * The most elements to show, as Paddle's `print` op's `summarize`: a
   * tensor with more shows its first `summarize` elements in row-major
   * order, flat, then `...` (`[1, 2, 3, ...]`); -1 shows every element.
   *
   * @default {-1}
   */
  summarize?: number;
}

/**
 * A tensor as one line of text.
 *
 * bool prints `true`/`false`, integers in decimal, and floats in the
 * shortest form that reads back to the same value in their own dtype
 * (float32 `0.1`, not `0.10000000149011612`; `2`, not `2.0`), with `NaN`,
 * `Infinity` and `-Infinity`, and exponents as JS writes them (`1e+21`).
 * A tensor of one element and rank <= 1 prints as that element; an empty
 * one as `[]`; any other nested, `[[1, 2], [3, 4]]`. With `summarize` N
 * ≥ 0, a tensor of more than N elements prints its first N, flat, then
 * `...`.
 *
 * @param t The tensor.
 * @param options How many elements to show.
 * @returns Its text.
 *
 * @example Usage
 * ```ts
 * import { formatTensor } from "./tensor_format.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(formatTensor(Tensor.scalar(0.1, "float32")), "0.1");
 * assertEquals(formatTensor(Tensor.fromArray([[1, 2], [3, 4]], "int64")), "[[1, 2], [3, 4]]");
 * assertEquals(formatTensor(Tensor.fromArray([true], "bool")), "true");
 * const big = Tensor.fromArray([[1, 2, 3], [4, 5, 6]], "int32");
 * assertEquals(formatTensor(big, { summarize: 4 }), "[1, 2, 3, 4, ...]");
 * assertEquals(formatTensor(big, { summarize: 6 }), "[[1, 2, 3], [4, 5, 6]]");
 * ```
 */
export function formatTensor(
  t: Tensor,
  options: FormatTensorOptions = {},
): string {
  const format = elementFormatter(t.dtype);
  const summarize = options.summarize ?? -1;
  if (summarize >= 0 && t.size > summarize) {
    const shown: string[] = [];
    for (let i = 0; i < summarize; i++) shown.push(format(t.data[i]));
    return `[${[...shown, "..."].join(", ")}]`;
  }
  if (t.size === 1 && t.shape.length <= 1) return format(t.data[0]);
  if (t.size === 0) return "[]";
  const parts: string[] = [];
  nest(t, format, 0, 0, parts);
  return parts.join("");
}

/**
 * A list of strings (a RAW value) as `print` shows it: `["a", "b"]`, each
 * string escaped as in JSON.
 *
 * @param list The strings.
 * @returns Its text.
 *
 * @example Usage
 * ```ts
 * import { formatStrings } from "./tensor_format.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(formatStrings(["a", "b\"c"]), '["a", "b\\"c"]');
 * assertEquals(formatStrings([]), "[]");
 * ```
 */
export function formatStrings(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(", ")}]`;
}

/**
 * The shortest text of a float that reads back to the same value after
 * rounding to a dtype.
 *
 * @param value A value of the dtype.
 * @param dtype float16, float32 or float64.
 * @returns Text in JS number syntax.
 *
 * @example Usage
 * ```ts
 * import { formatFloat } from "./tensor_format.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(formatFloat(Math.fround(0.1), "float32"), "0.1");
 * assertEquals(formatFloat(Math.f16round(0.1), "float16"), "0.1");
 * assertEquals(formatFloat(1e21, "float32"), "1e+21");
 * ```
 */
export function formatFloat(value: number, dtype: DType): string {
  const round = dtype === "float32"
    ? Math.fround
    : dtype === "float16"
    ? Math.f16round
    : null;
  if (round === null || !Number.isFinite(value)) return String(value);
  // 9 significant digits always identify a float32 (5 a float16); the loop
  // stops at the first precision that does.
  for (let p = 1; p < 17; p++) {
    const shortest = Number(value.toPrecision(p));
    if (round(shortest) === value) return String(shortest);
  }
  return String(value);
}

function elementFormatter(dtype: DType): (v: number | bigint) => string {
  if (dtype === "bool") return (v) => (v !== 0 ? "true" : "false");
  if (dtype === "float32" || dtype === "float16") {
    return (v) => formatFloat(v as number, dtype);
  }
  return String;
}

function nest(
  t: Tensor,
  format: (v: number | bigint) => string,
  dim: number,
  offset: number,
  parts: string[],
): number {
  parts.push("[");
  const n = t.shape[dim];
  for (let i = 0; i < n; i++) {
    if (i > 0) parts.push(", ");
    if (dim === t.shape.length - 1) parts.push(format(t.data[offset++]));
    else offset = nest(t, format, dim + 1, offset, parts);
  }
  parts.push("]");
  return offset;
}
