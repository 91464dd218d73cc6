/**
 * Which ops may run on a piece of the data input's rows and give that
 * piece of their output: row i of the output depends only on row i of the
 * input (and on parameters). The transpiler runs those on the workers.
 * Each op says how it treats the rows in its def's `rows` rule (see
 * `RowRule`); this module checks a use of the op against that rule:
 *
 * - `elementwise` (activations, `scale`, `cast`, `assign`): always.
 * - `broadcast` (elementwise arithmetic): operands that carry the rows are
 *   aligned row by row; any other operand is a parameter that broadcasts
 *   along the rows (it does not carry the first dim).
 * - `last_axis` (`softmax`): over the last axis.
 * - a left-operand rule (`mul`, `matmul`, `fc`): the input on the left
 *   (the def's `productSlots`), with attributes the op's rule accepts. The
 *   other inputs are parameters.
 *
 * @module
 */
import type { OpDesc, VarDesc } from "../../gen/rill/v1/framework_pb.ts";
import { readAttrs } from "../core/attr_read.ts";
import type { AttrSchema, AttrValues } from "../core/op_def.ts";
import { ProgramError } from "../core/errors.ts";
import { OPS } from "../ops/mod.ts";
import { varInfoOf } from "../core/var_info.ts";

/** What the check knows of the program around the op. */
export interface RowContext {
  /** Whether a variable carries the data input's rows. */
  carriesRows(name: string): boolean;
  /** A block-0 variable's declaration. */
  declaration(name: string): VarDesc | undefined;
}

/**
 * Checks that `op`, which reads a variable carrying the data input's rows,
 * keeps the rows apart.
 *
 * @param op The op.
 * @param index Its index in block 0, for the error.
 * @param context Which variables carry rows, and their declarations.
 * @throws {ProgramError} Naming the op and the variable that prevent the
 * split.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { OpDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { ProgramError } from "../core/errors.ts";
 * import { checkRowSeparable } from "./row_separable.ts";
 * import { assertThrows } from "@std/assert";
 *
 * const op = create(OpDescSchema, {
 *   type: "transpose",
 *   inputs: [{ parameter: "X", arguments: ["x"] }],
 *   outputs: [{ parameter: "Out", arguments: ["y"] }],
 * });
 * const context = { carriesRows: (n: string) => n === "x", declaration: () => undefined };
 * const e = assertThrows(() => checkRowSeparable(op, 3, context), ProgramError);
 * assertThrows(() => { throw e; }, ProgramError, 'block 0 op 3 (transpose)');
 * ```
 */
export function checkRowSeparable(
  op: OpDesc,
  index: number,
  context: RowContext,
): void {
  const where = { block: 0, op: index, opType: op.type };
  const arg = (slot: string) =>
    op.inputs.find((v) => v.parameter === slot)?.arguments[0];
  const def = OPS.get(op.type);
  const attrs = () => def === undefined ? {} : readAttrs(def.attrs, op.attrs);
  const refuse = (variable: string, why: string): never => {
    throw new ProgramError(
      `cannot split on the data input's rows: variable "${variable}" ${why}`,
      { ...where, variable },
    );
  };
  const carried = op.inputs.flatMap((v) => v.arguments).find((n) =>
    context.carriesRows(n)
  )!;
  const rule = def?.rows;
  if (rule === "elementwise") return;
  if (rule === "last_axis") {
    const axis = Number(attrs().axis ?? -1);
    const rank = rankOf(context.declaration(carried));
    if (axis === -1 || (rank !== undefined && axis === rank - 1)) return;
    return refuse(
      carried,
      `goes into a ${op.type} over axis ${axis}, not the last one`,
    );
  }
  if (rule === "broadcast") {
    const x = arg("X")!;
    const y = arg("Y")!;
    const axis = Number(attrs().axis ?? -1);
    const rows = context.carriesRows(x) ? x : y;
    for (const operand of [x, y]) {
      if (context.carriesRows(operand)) continue;
      const why = carriesBatchDim(
        context.declaration(operand),
        context.declaration(rows),
        operand === y ? axis : -1,
      );
      if (why !== undefined) refuse(operand, why);
    }
    return;
  }
  if (rule !== undefined) {
    const [left, right] = def?.productSlots ?? ["X", "Y"];
    const x = arg(left)!;
    const y = arg(right)!;
    if (context.carriesRows(y)) {
      refuse(y, `is ${op.type}'s right operand; only the left may carry rows`);
    }
    const other = op.inputs.filter((v) => v.parameter !== left)
      .flatMap((v) => v.arguments).find((n) => context.carriesRows(n));
    if (other !== undefined) {
      refuse(other, `goes into ${op.type} beside its left operand`);
    }
    const why = rule.mixesRows(attrs() as AttrValues<AttrSchema>);
    if (why !== undefined) refuse(x, why);
    return;
  }
  refuse(carried, `carries them into ${op.type}, which mixes rows`);
}

function rankOf(v: VarDesc | undefined): number | undefined {
  return v === undefined ? undefined : varInfoOf(v).shape?.length;
}

// Why a parameter operand would line up with the rows' first dim, or
// undefined when it broadcasts along it.
function carriesBatchDim(
  param: VarDesc | undefined,
  rows: VarDesc | undefined,
  axis: number,
): string | undefined {
  const shape = param === undefined ? undefined : varInfoOf(param).shape;
  if (shape === undefined) {
    return "has no declared shape, so it may not broadcast along the rows";
  }
  if (axis >= 1 || shape.length === 0 || shape[0] === 1) return undefined;
  const rowsRank = rankOf(rows);
  if (axis < 0 && rowsRank !== undefined && shape.length < rowsRank) {
    return undefined;
  }
  return `has shape [${
    shape.join(", ")
  }], whose first dim lines up with the rows`;
}
