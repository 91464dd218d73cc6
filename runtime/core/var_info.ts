/**
 * Static information about a declared variable, read from its `VarDesc`.
 *
 * @module
 */
import { isFieldSet } from "@bufbuild/protobuf";
import {
  type VarDesc,
  VarType_ChannelDescSchema,
  VarType_Type,
} from "../../gen/rill/v1/framework_pb.ts";
import type { DType } from "../../kernels/dtype.ts";
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
 * import { VarDescSchema } from "../../gen/rill/v1/framework_pb.ts";
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
    const dtype = channelElementType(desc);
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
    shape: t.dims.length === 0 ? undefined : numbersOf(t.dims),
  };
}

// Shared rank-1 shapes [-1] to [1022], by dim + 1, made on first use.
const RANK_ONE_SHAPES: (readonly number[] | undefined)[] = new Array(1024);

// `dims.map(Number)` at a third of the cost: validation converts every
// variable's declaration.
function numbersOf(dims: readonly bigint[]): readonly number[] {
  if (dims.length === 1) {
    // Rank 1 with a small dim ([1], [-1], [n]) is most declarations: one
    // frozen shape each, shared, so a program's 10,000 variables make no
    // 10,000 arrays.
    const d = Number(dims[0]);
    if (d >= -1 && d < RANK_ONE_SHAPES.length - 1) {
      return RANK_ONE_SHAPES[d + 1] ??= Object.freeze([d]);
    }
  }
  const shape = new Array<number>(dims.length);
  for (let i = 0; i < dims.length; i++) shape[i] = Number(dims[i]);
  return shape;
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
 * import { VarDescSchema } from "../../gen/rill/v1/framework_pb.ts";
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

/**
 * The element type a channel variable's declaration names, or `undefined`
 * for a channel of any tensor: `data_type` LOD_TENSOR (7, as
 * `channel_create` spells "any" in docs/architecture.md §3), a `data_type` left unset,
 * or no `ChannelDesc` at all.
 *
 * @param desc A channel variable's declaration.
 * @returns Its element type, or `undefined` for any tensor.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { VarDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { channelElementType } from "./var_info.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const typed = create(VarDescSchema, { name: "c", type: { type: 16, channel: { dataType: 3 } } });
 * const any = create(VarDescSchema, { name: "c", type: { type: 16, channel: { dataType: 7 } } });
 * const unset = create(VarDescSchema, { name: "c", type: { type: 16, channel: { capacity: 2n } } });
 * assertEquals(channelElementType(typed), "int64");
 * assertEquals(channelElementType(any), undefined);
 * assertEquals(channelElementType(unset), undefined);
 * ```
 */
export function channelElementType(desc: VarDesc): DType | undefined {
  const c = desc.type?.channel;
  // proto2: an unset data_type reads as 0 (BOOL), which it does not mean.
  if (
    c === undefined || !isFieldSet(c, VarType_ChannelDescSchema.field.dataType)
  ) {
    return undefined;
  }
  return dtypeOfCode(c.dataType);
}
