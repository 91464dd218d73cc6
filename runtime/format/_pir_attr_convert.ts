/**
 * PIR attributes, element types and constants as a `ProgramDesc` holds
 * them. Each function returns `undefined` (or a problem's name) for what it
 * cannot express, so that the conversion can list it rather than stop.
 *
 * Attribute types follow the PIR tag, and Rill's attribute reader converts
 * where an op's schema asks for another width (`docs/architecture.md` §2:
 * INT and LONG, INTS and LONGS, FLOAT64 read as a float): `0.a_i32` is an
 * INT, `0.a_i64` a LONG, `0.a_f32` a FLOAT, `0.a_f64` a FLOAT64,
 * `1.a_intarray` LONGS, `1.a_dtype` the INT code of the element type.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import {
  AttrType,
  type OpDesc_Attr,
  OpDesc_AttrSchema,
  VarType_Type,
} from "../../gen/rill/v1/framework_pb.ts";
import type { PirAttr } from "./_pir_attr_type.ts";
import type { PirConstantKind } from "./pir_op_table.ts";

/** The element type tags of `0.t_dtensor`, as VarType codes. */
const ELEMENT_TYPES: Readonly<Record<string, VarType_Type>> = {
  "0.t_bool": VarType_Type.BOOL,
  "0.t_i8": VarType_Type.INT8,
  "0.t_ui8": VarType_Type.UINT8,
  "0.t_i16": VarType_Type.INT16,
  "0.t_i32": VarType_Type.INT32,
  "0.t_i64": VarType_Type.INT64,
  "0.t_f16": VarType_Type.FP16,
  "0.t_bf16": VarType_Type.BF16,
  "0.t_f32": VarType_Type.FP32,
  "0.t_f64": VarType_Type.FP64,
};

/** The `1.a_dtype` names, as VarType codes. */
const DTYPE_NAMES: Readonly<Record<string, VarType_Type>> = {
  bool: VarType_Type.BOOL,
  int8: VarType_Type.INT8,
  uint8: VarType_Type.UINT8,
  int16: VarType_Type.INT16,
  int32: VarType_Type.INT32,
  int64: VarType_Type.INT64,
  float16: VarType_Type.FP16,
  bfloat16: VarType_Type.BF16,
  float32: VarType_Type.FP32,
  float64: VarType_Type.FP64,
};

/**
 * The VarType code of an element type tag (`0.t_f32` → FP32).
 *
 * @param tag The tag.
 * @returns The code, or `undefined` for a tag Rill does not know.
 *
 * @example Usage
 * ```ts
 * import { elementTypeCode } from "./_pir_attr_convert.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(elementTypeCode("0.t_i64"), 3);
 * assertEquals(elementTypeCode("0.t_c64"), undefined);
 * ```
 */
export function elementTypeCode(tag: string): VarType_Type | undefined {
  return Object.hasOwn(ELEMENT_TYPES, tag) ? ELEMENT_TYPES[tag] : undefined;
}

/**
 * The VarType code of a `1.a_dtype` name (`float32` → FP32).
 *
 * @param name The name.
 * @returns The code, or `undefined` for a name Rill does not know.
 *
 * @example Usage
 * ```ts
 * import { dtypeNameCode } from "./_pir_attr_convert.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(dtypeNameCode("float32"), 5);
 * ```
 */
export function dtypeNameCode(name: string): VarType_Type | undefined {
  return Object.hasOwn(DTYPE_NAMES, name) ? DTYPE_NAMES[name] : undefined;
}

/**
 * A PIR attribute as an `OpDesc` attribute named `name`.
 *
 * @param name The Rill attribute's name.
 * @param value The PIR attribute.
 * @returns The attribute, or the name of what cannot be expressed (an
 * attribute tag, `0.a_array` of mixed kinds, a dtype name).
 *
 * @example Usage
 * ```ts
 * import { pirAttrToDesc } from "./_pir_attr_convert.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const a = pirAttrToDesc("strides", { kind: "array", value: [{ kind: "i64", value: 2 }] });
 * assertEquals(typeof a !== "string" && a.longs, [2n]);
 * assertEquals(pirAttrToDesc("x", { kind: "opaque", tag: "1.a_new" }), "1.a_new");
 * ```
 */
export function pirAttrToDesc(
  name: string,
  value: PirAttr,
): OpDesc_Attr | string {
  switch (value.kind) {
    case "bool":
      return attr(name, { type: AttrType.BOOLEAN, b: value.value });
    case "i32":
      return attr(name, { type: AttrType.INT, i: value.value });
    case "i64":
      return attr(name, { type: AttrType.LONG, l: BigInt(value.value) });
    case "f32":
      return attr(name, { type: AttrType.FLOAT, f: value.value });
    case "f64":
      return attr(name, { type: AttrType.FLOAT64, float64: value.value });
    case "str":
      return attr(name, { type: AttrType.STRING, s: value.value });
    case "intarray":
      return attr(name, {
        type: AttrType.LONGS,
        longs: value.value.map(BigInt),
      });
    case "dtype": {
      const code = dtypeNameCode(value.value);
      return code === undefined
        ? `1.a_dtype ${value.value}`
        : attr(name, { type: AttrType.INT, i: code });
    }
    case "array":
      return arrayToDesc(name, value.value);
    case "place":
      return "1.a_place";
    case "opaque":
      return value.tag;
  }
}

// A list attribute: every element of one scalar kind (an empty list is
// INTS, which Rill reads as any integer list).
function arrayToDesc(
  name: string,
  items: readonly PirAttr[],
): OpDesc_Attr | string {
  const kind = items[0]?.kind ?? "i32";
  if (items.some((a) => a.kind !== kind)) return "0.a_array of mixed kinds";
  const values = items.map((a) => (a as { value: unknown }).value);
  switch (kind) {
    case "i32":
      return attr(name, { type: AttrType.INTS, ints: values as number[] });
    case "i64":
      return attr(name, {
        type: AttrType.LONGS,
        longs: (values as number[]).map(BigInt),
      });
    case "f32":
      return attr(name, { type: AttrType.FLOATS, floats: values as number[] });
    case "f64":
      return attr(name, {
        type: AttrType.FLOAT64S,
        float64s: values as number[],
      });
    case "bool":
      return attr(name, {
        type: AttrType.BOOLEANS,
        bools: values as boolean[],
      });
    case "str":
      return attr(name, {
        type: AttrType.STRINGS,
        strings: values as string[],
      });
  }
  return `0.a_array of ${kind}`;
}

/**
 * A constant operand's values as the attribute an op takes: a list
 * (`ints`, INTS or LONGS when a value needs 64 bits) or its one value
 * (`int`, `long`, `float`).
 *
 * @param name The attribute's name.
 * @param kind What the op takes.
 * @param values The constant's values.
 * @returns The attribute, or `undefined` when a one-value kind gets
 * another count.
 *
 * @example Usage
 * ```ts
 * import { constantToDesc } from "./_pir_attr_convert.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(constantToDesc("ksize", "ints", [1, 1])?.ints, [1, 1]);
 * assertEquals(constantToDesc("scale", "float", [0.5])?.f, 0.5);
 * assertEquals(constantToDesc("axis", "int", [1, 2]), undefined);
 * ```
 */
export function constantToDesc(
  name: string,
  kind: PirConstantKind,
  values: readonly number[],
): OpDesc_Attr | undefined {
  if (kind === "ints") {
    return values.every((v) => v === (v | 0))
      ? attr(name, { type: AttrType.INTS, ints: [...values] })
      : attr(name, { type: AttrType.LONGS, longs: values.map(BigInt) });
  }
  if (values.length !== 1) return undefined;
  const [v] = values;
  switch (kind) {
    case "int":
      return attr(name, { type: AttrType.INT, i: v });
    case "long":
      return attr(name, { type: AttrType.LONG, l: BigInt(v) });
    case "float":
      return attr(name, { type: AttrType.FLOAT, f: v });
  }
}

/**
 * An INT attribute.
 *
 * @param name Its name.
 * @param i Its value.
 * @returns The attribute.
 *
 * @example Usage
 * ```ts
 * import { intAttr } from "./_pir_attr_convert.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(intAttr("col", 1).i, 1);
 * ```
 */
export function intAttr(name: string, i: number): OpDesc_Attr {
  return attr(name, { type: AttrType.INT, i });
}

/**
 * A BOOLEAN attribute.
 *
 * @param name Its name.
 * @param b Its value.
 * @returns The attribute.
 *
 * @example Usage
 * ```ts
 * import { boolAttr } from "./_pir_attr_convert.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(boolAttr("is_test", true).b, true);
 * ```
 */
export function boolAttr(name: string, b: boolean): OpDesc_Attr {
  return attr(name, { type: AttrType.BOOLEAN, b });
}

/**
 * The `sub_block` attribute of a control-flow op.
 *
 * @param idx The sub-block's index.
 * @returns The attribute.
 *
 * @example Usage
 * ```ts
 * import { blockAttr } from "./_pir_attr_convert.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(blockAttr(2).blockIdx, 2);
 * ```
 */
export function blockAttr(idx: number): OpDesc_Attr {
  return attr("sub_block", { type: AttrType.BLOCK, blockIdx: idx });
}

/**
 * An attribute of the given fields.
 *
 * @param name Its name.
 * @param fields Its type and value.
 * @returns The attribute.
 *
 * @example Usage
 * ```ts
 * import { attr } from "./_pir_attr_convert.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(attr("shape", { type: 11, longs: [2n] }).longs, [2n]);
 * ```
 */
export function attr(
  name: string,
  fields: Omit<Partial<OpDesc_Attr>, "name" | "$typeName">,
): OpDesc_Attr {
  return create(OpDesc_AttrSchema, { name, ...fields });
}
