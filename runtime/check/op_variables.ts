/**
 * Which variables one op reads and which it rebinds, read from its
 * definition: input slots are reads; output slots are writes, except the
 * ones the op stores into in place (`write_to_array`'s Out), which are
 * reads of the variable; plus what the op names outside its slots (a
 * `select` case's channel, value and ok variables).
 *
 * @module
 */
import type { OpDesc } from "../../gen/rill/v1/framework_pb.ts";
import { readAttrs } from "../core/attr_read.ts";
import type { AttrSchema, AttrValues, NamedVariables } from "../core/op_def.ts";
import { OPS } from "../ops/mod.ts";

/**
 * The variables `op` reads and the ones it binds to new values, each in
 * slot order, possibly with repeats. An op type Rill does not know reads
 * its inputs and writes its outputs.
 *
 * @param op The op.
 * @returns Its reads and writes.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { OpDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { opVariables } from "./op_variables.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const op = create(OpDescSchema, {
 *   type: "write_to_array",
 *   inputs: [{ parameter: "X", arguments: ["x"] }, { parameter: "I", arguments: ["i"] }],
 *   outputs: [{ parameter: "Out", arguments: ["ys"] }],
 * });
 * assertEquals(opVariables(op), { reads: ["x", "i", "ys"], writes: [] });
 * ```
 */
export function opVariables(op: OpDesc): NamedVariables {
  const def = OPS.get(op.type);
  const reads: string[] = [];
  const writes: string[] = [];
  for (const v of op.inputs) reads.push(...v.arguments);
  for (const v of op.outputs) {
    const inPlace = def?.outputs[v.parameter]?.inPlace ?? false;
    (inPlace ? reads : writes).push(...v.arguments);
  }
  if (def?.namedVariables !== undefined) {
    const named = def.namedVariables(
      readAttrs(def.attrs, op.attrs) as AttrValues<AttrSchema>,
    );
    reads.push(...named.reads);
    writes.push(...named.writes);
  }
  return { reads, writes };
}
