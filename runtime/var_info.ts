/**
 * Static information about a declared variable, read from its `VarDesc`.
 *
 * @module
 */
import { type VarDesc, VarType_Type } from "../gen/rill/v1/framework_pb.ts";
import { dtypeOfCode } from "./dtype_codes.ts";
import type { VarInfo } from "./op_def.ts";

/**
 * What a `VarDesc` says of its variable: kind, and for tensors the dtype and
 * shape when declared (`lod_tensor.tensor`, or a bare element type).
 *
 * @param desc The declaration.
 * @returns The static info.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { VarDescSchema } from "../gen/rill/v1/framework_pb.ts";
 * import { varInfoOf } from "./var_info.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const desc = create(VarDescSchema, {
 *   name: "x",
 *   type: { type: 7, lodTensor: { tensor: { dataType: 5, dims: [2n, -1n] } } },
 * });
 * assertEquals(varInfoOf(desc), { name: "x", kind: "tensor", dtype: "float32", shape: [2, -1] });
 * ```
 */
export function varInfoOf(desc: VarDesc): VarInfo {
  const name = desc.name;
  const kind = varKindOf(desc);
  if (kind === "channel") {
    const c = desc.type?.channel;
    const dtype = c === undefined ? undefined : dtypeOfCode(c.dataType);
    return dtype === undefined ? { name, kind } : { name, kind, dtype };
  }
  if (kind !== "tensor") return { name, kind };
  const type = desc.type;
  const code = type?.type ?? VarType_Type.LOD_TENSOR;
  const t = type?.lodTensor?.tensor ?? type?.selectedRows;
  if (code !== VarType_Type.LOD_TENSOR && code !== VarType_Type.SELECTED_ROWS) {
    return { name, kind, dtype: dtypeOfCode(code) }; // a bare element type
  }
  if (t === undefined) return { name, kind };
  return {
    name,
    kind,
    dtype: dtypeOfCode(t.dataType),
    // Fluid leaves dims empty when unknown; a rank-0 declaration reads alike.
    shape: t.dims.length === 0 ? undefined : t.dims.map(Number),
  };
}

/**
 * What a declared variable holds, without building its full `VarInfo`.
 *
 * @param desc The declaration.
 * @returns Its kind.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { VarDescSchema } from "../gen/rill/v1/framework_pb.ts";
 * import { varKindOf } from "./var_info.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(varKindOf(create(VarDescSchema, { name: "c", type: { type: 16 } })), "channel");
 * ```
 */
export function varKindOf(desc: VarDesc): VarInfo["kind"] {
  const code = desc.type?.type ?? VarType_Type.LOD_TENSOR;
  switch (code) {
    case VarType_Type.LOD_TENSOR:
    case VarType_Type.SELECTED_ROWS:
      return "tensor";
    case VarType_Type.CHANNEL:
      return "channel";
    case VarType_Type.LOD_TENSOR_ARRAY:
      return "array";
    case VarType_Type.RAW:
      return "raw";
    case VarType_Type.STEP_SCOPES:
      return "step_scopes";
  }
  return dtypeOfCode(code) === undefined ? "other" : "tensor";
}
