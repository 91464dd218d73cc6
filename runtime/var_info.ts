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
  const code = desc.type?.type ?? VarType_Type.LOD_TENSOR;
  switch (code) {
    case VarType_Type.LOD_TENSOR:
    case VarType_Type.SELECTED_ROWS: {
      const t = desc.type?.lodTensor?.tensor ?? desc.type?.selectedRows;
      if (t === undefined) return { name: desc.name, kind: "tensor" };
      return {
        name: desc.name,
        kind: "tensor",
        dtype: dtypeOfCode(t.dataType),
        // Fluid leaves dims empty when unknown; a rank-0 declaration reads alike.
        shape: t.dims.length === 0 ? undefined : t.dims.map(Number),
      };
    }
    case VarType_Type.CHANNEL: {
      const c = desc.type?.channel;
      const dtype = c === undefined ? undefined : dtypeOfCode(c.dataType);
      return dtype === undefined
        ? { name: desc.name, kind: "channel" }
        : { name: desc.name, kind: "channel", dtype };
    }
    case VarType_Type.LOD_TENSOR_ARRAY:
      return { name: desc.name, kind: "array" };
    case VarType_Type.RAW:
      return { name: desc.name, kind: "raw" };
    case VarType_Type.STEP_SCOPES:
      return { name: desc.name, kind: "step_scopes" };
  }
  const dtype = dtypeOfCode(code);
  if (dtype !== undefined) return { name: desc.name, kind: "tensor", dtype };
  return { name: desc.name, kind: "other" };
}
