/**
 * PIR's constant ops, `1.full` (a filled tensor) and `1.full_int_array` (a
 * list of integers): their values, which the conversion folds into the
 * attributes operands map to, and the Rill op that makes the same tensor
 * (`fill_constant`, `assign_value`) for an operand that reads it as one.
 *
 * @module
 */
import {
  AttrType,
  type OpDesc_Attr,
  VarType_Type,
} from "../../gen/rill/v1/framework_pb.ts";
import { attr, dtypeNameCode, intAttr } from "./_pir_attr_convert.ts";
import type { PirAttr, PirOp } from "./pir_program.ts";

/** The names of PIR's constant ops. */
export const CONSTANT_OPS: ReadonlySet<string> = new Set([
  "1.full",
  "1.full_int_array",
]);

/**
 * The values of a constant op: `1.full`'s one value, `1.full_int_array`'s
 * list.
 *
 * @param op A constant op.
 * @returns Its values, or `undefined` when its `value` is not numbers.
 *
 * @example Usage
 * ```ts
 * import { constantValues } from "./_pir_constants.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const op = { name: "1.full", operands: [], results: [], regions: [],
 *   attrs: [{ name: "value", value: { kind: "f64", value: 2 } } as const] };
 * assertEquals(constantValues(op), [2]);
 * ```
 */
export function constantValues(op: PirOp): number[] | undefined {
  const value: PirAttr | undefined = op.attrs.find((a) => a.name === "value")
    ?.value;
  if (value === undefined) return undefined;
  if (value.kind === "array") {
    const items = value.value.map((a) =>
      "value" in a && typeof a.value === "number" ? a.value : undefined
    );
    return items.includes(undefined) ? undefined : items as number[];
  }
  if (value.kind === "intarray") return [...value.value];
  return "value" in value && typeof value.value === "number"
    ? [value.value]
    : undefined;
}

/**
 * The Rill op that makes a constant op's tensor: its type and attributes.
 *
 * @param op A constant op.
 * @param values Its values (`constantValues`).
 * @returns The op, or the name of the dtype Rill does not know.
 *
 * @example Usage
 * ```ts
 * import { constantOp } from "./_pir_constants.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const op = { name: "1.full_int_array", operands: [], regions: [],
 *   results: [{ id: 1, type: { kind: "dense", element: "0.t_i64", dims: [2] } } as const],
 *   attrs: [{ name: "dtype", value: { kind: "dtype", value: "int64" } } as const] };
 * const made = constantOp(op, [1, -1]);
 * assertEquals(typeof made !== "string" && made.type, "assign_value");
 * ```
 */
export function constantOp(
  op: PirOp,
  values: readonly number[],
): { type: string; attrs: OpDesc_Attr[] } | string {
  const dtype = op.attrs.find((a) => a.name === "dtype")?.value;
  const name = dtype?.kind === "dtype" ? dtype.value : String(dtype?.kind);
  const code = dtypeNameCode(name);
  if (code === undefined) return `${op.name}.dtype (${name})`;
  const type = op.results[0].type;
  if (op.name === "1.full") {
    const dims = type.kind === "dense" ? type.dims : [1];
    const [v] = values;
    const attrs = [
      attr("shape", { type: AttrType.LONGS, longs: dims.map(BigInt) }),
      intAttr("dtype", code),
      attr("value", { type: AttrType.FLOAT, f: v }),
    ];
    // `value` is a float32; Paddle's `full` holds a double. A value the
    // float32 rounds (a float64 0.1, an int64 above 2^24) goes exactly in
    // `str_value`, which fill_constant reads first.
    if (!Number.isNaN(v) && Math.fround(v) !== v) {
      const s = code === VarType_Type.INT64 ? String(Math.trunc(v)) : String(v);
      attrs.push(attr("str_value", { type: AttrType.STRING, s }));
    }
    return { type: "fill_constant", attrs };
  }
  const list = code === VarType_Type.INT64
    ? attr("int64_values", { type: AttrType.LONGS, longs: values.map(BigInt) })
    : attr("int32_values", { type: AttrType.INTS, ints: [...values] });
  return {
    type: "assign_value",
    attrs: [
      attr("shape", { type: AttrType.INTS, ints: [values.length] }),
      intAttr("dtype", code),
      list,
    ],
  };
}
