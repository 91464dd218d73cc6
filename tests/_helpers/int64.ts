/**
 * The int64 scalar the program tests build their counters, indices and
 * channel values from.
 *
 * @module
 */
import { fillConstant, type Variable } from "../../mod.ts";

/**
 * Appends a `fill_constant` of shape [1] and dtype int64.
 *
 * @param value The value; a bigint is exact beyond 2^53.
 * @returns The filled variable.
 */
export function int64(value: number | bigint): Variable {
  return fillConstant({ shape: [1], dtype: "int64", value });
}
