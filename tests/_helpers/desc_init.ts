/**
 * Terse constructors for hand-built program messages, for tests that need a
 * `ProgramDesc` the builder would refuse to make.
 *
 * @module
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  type OpDescSchema,
  type VarDescSchema,
  VarType_Type,
} from "../../gen/rill/v1/framework_pb.ts";

/** An `OpDesc` initializer. */
export type OpInit = MessageInitShape<typeof OpDescSchema>;
/** A `VarDesc` initializer. */
export type VarInit = MessageInitShape<typeof VarDescSchema>;

/**
 * A tensor variable; dims left out means unknown.
 *
 * @param name The variable.
 * @param dims Its declared shape.
 * @param dtype Its element type.
 * @returns The declaration.
 */
export function tensor(
  name: string,
  dims?: number[],
  dtype: VarType_Type = VarType_Type.FP32,
): VarInit {
  return {
    name,
    type: {
      type: VarType_Type.LOD_TENSOR,
      lodTensor: { tensor: { dataType: dtype, dims: dims?.map(BigInt) } },
    },
  };
}

/**
 * A channel variable.
 *
 * @param name The variable.
 * @returns The declaration.
 */
export function channel(name: string): VarInit {
  return { name, type: { type: VarType_Type.CHANNEL } };
}

/**
 * An op from slot maps: `{ X: ["a"] }`.
 *
 * @param type The op type.
 * @param inputs Input slots.
 * @param outputs Output slots.
 * @param attrs Attributes.
 * @returns The op.
 */
export function op(
  type: string,
  inputs: Record<string, string[]> = {},
  outputs: Record<string, string[]> = {},
  attrs: OpInit["attrs"] = [],
): OpInit {
  const slots = (m: Record<string, string[]>) =>
    Object.entries(m).map(([parameter, args]) => ({
      parameter,
      arguments: args,
    }));
  return { type, inputs: slots(inputs), outputs: slots(outputs), attrs };
}
