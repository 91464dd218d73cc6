/**
 * A decoded PIR program (`pir_program.ts`) as a `ProgramDesc` that Rill's
 * executor runs, op by op through the one table `pir_op_table.ts`.
 *
 * - Each SSA value is a variable, declared in the block that defines it:
 *   a parameter's by its name, a feed's by its `1.data` name, a fetched
 *   value's by its fetch name (`fetch_name_0`), any other `%<id>`.
 * - `p` ops are persistable block-0 variables (the model directory reads
 *   their `.pdiparams` records in name order, as for a `.pdmodel`);
 *   `1.data` ops are `feed` ops on the `feed` list, `1.fetch` ops `fetch`
 *   ops on `fetch`.
 * - A constant op's value becomes the attribute an operand maps to; the
 *   op itself is kept (`fill_constant`, `assign_value`) only when some
 *   operand uses its value as a tensor.
 * - `0.combine` makes no variable: a slot it feeds gets each member.
 * - Control flow: `_pir_control_flow.ts`; the conversion's state and its
 *   walk over the blocks: `_pir_converter.ts`.
 *
 * Invariant: nothing is returned unless every op, attribute, operand and
 * type converted; otherwise one `PirUnsupportedError` lists them all.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import {
  type ProgramDesc,
  ProgramDescSchema,
} from "../../gen/rill/v1/framework_pb.ts";
import { PirConverter } from "./_pir_converter.ts";
import type { PirProgram } from "./pir_program.ts";
import { PirUnsupportedError } from "./pir_unsupported_error.ts";

/** Options of `pirToProgram`. */
export interface PirToProgramOptions {
  /** The program's file, named in errors. @default {undefined} */
  file?: string;
}

/**
 * Converts a PIR program into a `ProgramDesc`.
 *
 * @param program The decoded program.
 * @param options The file, for errors.
 * @returns The program.
 * @throws {PirUnsupportedError} If it uses ops, attributes, operands or
 * types Rill cannot convert, listing them all.
 *
 * @example Usage
 * ```ts
 * import { decodePirProgram } from "./pir_program.ts";
 * import { pirToProgram } from "./pir_to_program.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const t = (dims: number[]) => ({ "#": "0.t_dtensor", D: [{ "#": "0.t_f32" }, dims, "NCHW", [], 0] });
 * const text = JSON.stringify({
 *   base_code: { magic: "pir", trainable: false, version: 1 },
 *   program: { regions: [{ "#": "region_0", blocks: [{ "#": "block_0", args: [], ops: [
 *     { "#": "1.data", I: [], O: [{ "%": 1, TT: t([2]) }], A: [{ N: "name", AT: { "#": "0.a_str", D: "x" } }] },
 *     { "#": "1.relu", I: [{ "%": 1 }], O: [{ "%": 2, TT: t([2]) }], A: [] },
 *     { "#": "1.fetch", I: [{ "%": 2 }], O: [{ "%": 3, TT: t([2]) }],
 *       A: [{ N: "name", AT: { "#": "0.a_str", D: "y" } }, { N: "col", AT: { "#": "0.a_i32", D: 0 } }] },
 *   ] }] }] },
 * });
 * const desc = pirToProgram(decodePirProgram(text));
 * assertEquals(desc.blocks[0].ops.map((op) => op.type), ["feed", "relu", "fetch"]);
 * ```
 */
export function pirToProgram(
  program: PirProgram,
  options: PirToProgramOptions = {},
): ProgramDesc {
  const c = new PirConverter();
  c.prepare(program.top);
  c.convertBlock(program.top, c.newBlock(-1));
  const gaps = c.gaps();
  if (gaps.length > 0) throw new PirUnsupportedError(gaps, options);
  return create(ProgramDescSchema, { blocks: c.blocks });
}
