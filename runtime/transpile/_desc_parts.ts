/**
 * Small constructors of the protobuf messages the transpiler emits: ops
 * with their slots and attributes, and variable declarations.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import {
  AttrType,
  type OpDesc,
  type OpDesc_Attr,
  OpDesc_AttrSchema,
  OpDescSchema,
  type VarDesc,
  VarDescSchema,
  VarType_Type,
} from "../../gen/rill/v1/framework_pb.ts";

/** An attribute value, typed by its JS type. */
export type AttrValue =
  | { readonly int: number }
  | { readonly string: string }
  | { readonly block: number }
  | { readonly bool: boolean };

function attrOf(name: string, value: AttrValue): OpDesc_Attr {
  if ("int" in value) {
    return create(OpDesc_AttrSchema, {
      name,
      type: AttrType.INT,
      i: value.int,
    });
  }
  if ("string" in value) {
    return create(OpDesc_AttrSchema, {
      name,
      type: AttrType.STRING,
      s: value.string,
    });
  }
  if ("block" in value) {
    return create(OpDesc_AttrSchema, {
      name,
      type: AttrType.BLOCK,
      blockIdx: value.block,
    });
  }
  return create(OpDesc_AttrSchema, {
    name,
    type: AttrType.BOOLEAN,
    b: value.bool,
  });
}

/**
 * An op: its type, slots (slot name to variable names) and attributes.
 *
 * @param type The op type.
 * @param slots The input and output slots.
 * @param attrs The attributes.
 * @returns The op.
 *
 * @example Usage
 * ```ts
 * import { makeOp } from "./_desc_parts.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const op = makeOp("relu", { inputs: { X: ["x"] }, outputs: { Out: ["y"] } });
 * assertEquals(op.outputs[0].arguments, ["y"]);
 * ```
 */
export function makeOp(
  type: string,
  slots: {
    inputs?: Readonly<Record<string, readonly string[]>>;
    outputs?: Readonly<Record<string, readonly string[]>>;
  },
  attrs: Readonly<Record<string, AttrValue>> = {},
): OpDesc {
  const vars = (record: Readonly<Record<string, readonly string[]>> = {}) =>
    Object.entries(record).map(([parameter, args]) => ({
      parameter,
      arguments: [...args],
    }));
  return create(OpDescSchema, {
    type,
    inputs: vars(slots.inputs),
    outputs: vars(slots.outputs),
    attrs: Object.entries(attrs).map(([name, value]) => attrOf(name, value)),
  });
}

/**
 * A variable declaration of a non-tensor kind, or an int64 [1] tensor.
 *
 * @param name The variable's name.
 * @param kind What it holds.
 * @returns The declaration.
 *
 * @example Usage
 * ```ts
 * import { VarType_Type } from "../../gen/rill/v1/framework_pb.ts";
 * import { makeVar } from "./_desc_parts.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(makeVar("workers", "raw").type?.type, VarType_Type.RAW);
 * ```
 */
export function makeVar(
  name: string,
  kind: "raw" | "array" | "int64" | "tensor",
): VarDesc {
  switch (kind) {
    case "raw":
      return create(VarDescSchema, { name, type: { type: VarType_Type.RAW } });
    case "array":
      return create(VarDescSchema, {
        name,
        type: { type: VarType_Type.LOD_TENSOR_ARRAY },
      });
    case "int64":
      return create(VarDescSchema, {
        name,
        type: {
          type: VarType_Type.LOD_TENSOR,
          lodTensor: {
            tensor: { dataType: VarType_Type.INT64, dims: [1n] },
          },
        },
      });
    case "tensor":
      return create(VarDescSchema, {
        name,
        type: { type: VarType_Type.LOD_TENSOR },
      });
  }
}
