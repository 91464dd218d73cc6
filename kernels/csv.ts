// Numeric CSV as a [rows, columns] tensor, for the `read` op.
//
// Fields are separated by commas and trimmed; blank lines are skipped. When
// any field of the first line is not a number, that line is a header: it is
// skipped but still fixes the column count. Numbers are JS number syntax,
// plus Python's `nan`, `inf` and `-inf` in any case; int64 fields that are
// plain integers are read exactly.

import type { DType, Scalar } from "./dtype.ts";
import { Tensor } from "./tensor.ts";

/** Which data rows {@linkcode parseCsvRows} reads. */
export interface ParseCsvRowsOptions {
  /**
   * The first data row read, counting from 0 after any header.
   *
   * @default {0}
   */
  readonly start?: number;
  /**
   * The most rows read; fewer when the text ends first.
   *
   * @default {Infinity}
   */
  readonly count?: number;
}

const SPECIAL: ReadonlyMap<string, number> = new Map([
  ["nan", NaN],
  ["+nan", NaN],
  ["-nan", NaN],
  ["inf", Infinity],
  ["+inf", Infinity],
  ["-inf", -Infinity],
  ["infinity", Infinity],
  ["+infinity", Infinity],
  ["-infinity", -Infinity],
]);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Parses numeric CSV text into a tensor of shape `[rows, columns]`.
 *
 * @param text The CSV text.
 * @param dtype The element type of the result.
 * @param options Which data rows to read.
 * @returns The rows read; `[0, columns]` when there are none.
 * @throws {RangeError} If a row's field count differs from the first row's,
 * a field is not a number, or an int64 field is out of range; the message
 * names the line.
 *
 * @example Usage
 * ```ts
 * import { parseCsvRows } from "./csv.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const text = "x,y\n1,2\n3,4\n5,6\n";
 * assertEquals(parseCsvRows(text, "float32").shape, [3, 2]);
 * assertEquals(parseCsvRows(text, "int32", { start: 1, count: 1 }).toNested(), [[3, 4]]);
 * ```
 */
export function parseCsvRows(
  text: string,
  dtype: DType,
  options: ParseCsvRowsOptions = {},
): Tensor {
  const start = options.start ?? 0, count = options.count ?? Infinity;
  const values: Scalar[] = [];
  let columns = -1, rowIndex = 0, rows = 0;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length && rows < count; i++) {
    const line = lines[i].trim();
    if (line === "") continue;
    const fields = line.split(",");
    if (columns === -1) {
      columns = fields.length;
      if (fields.some((f) => parseNumber(f.trim()) === undefined)) continue;
    } else if (fields.length !== columns) {
      throw new RangeError(
        `parse csv: line ${i + 1} has ${fields.length} fields, ` +
          `expected ${columns}`,
      );
    }
    if (rowIndex++ < start) continue;
    fields.forEach((f, j) =>
      values.push(parseField(f.trim(), dtype, i + 1, j + 1))
    );
    rows++;
  }
  return Tensor.fromArray(values, dtype, [rows, Math.max(columns, 0)]);
}

function parseNumber(field: string): number | undefined {
  const special = SPECIAL.get(field.toLowerCase());
  if (special !== undefined) return special;
  const n = field === "" ? NaN : Number(field);
  return Number.isNaN(n) ? undefined : n;
}

function parseField(
  field: string,
  dtype: DType,
  line: number,
  column: number,
): Scalar {
  if (dtype === "int64" && /^[+-]?\d+$/.test(field)) {
    const v = BigInt(field);
    if (v < INT64_MIN || v > INT64_MAX) {
      throw new RangeError(
        `parse csv: line ${line}, field ${column}: "${field}" is out of range for int64`,
      );
    }
    return v;
  }
  const n = parseNumber(field);
  if (n === undefined) {
    throw new RangeError(
      `parse csv: line ${line}, field ${column}: "${field}" is not a number`,
    );
  }
  return n;
}
