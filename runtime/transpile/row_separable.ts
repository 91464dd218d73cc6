/**
 * Which ops may run on a piece of the data input's rows and give that
 * piece of their output: row i of the output depends only on row i of the
 * input (and on parameters). The transpiler runs those on the workers.
 *
 * - `mul` with the input on the left and `x_num_col_dims` = 1; `matmul`
 *   with it on the left, not transposed. The right operand is a parameter.
 * - Elementwise arithmetic: operands that carry the rows are aligned row
 *   by row; any other operand is a parameter that broadcasts along the
 *   rows (it does not carry the first dim).
 * - Activations, `scale`, `cast`, `assign`, and `softmax` over the last
 *   axis.
 *
 * @module
 */
import type { OpDesc, VarDesc } from "../../gen/rill/v1/framework_pb.ts";
import { UNARY_KINDS } from "../../kernels/device.ts";
import { readAttrs } from "../core/attr_read.ts";
import { ProgramError } from "../core/errors.ts";
import { OPS } from "../ops/mod.ts";
import { varInfoOf } from "../core/var_info.ts";

/** Ops that act on each element alone (the unary ops are named as their kinds). */
const ELEMENT_OPS: ReadonlySet<string> = new Set([
  ...UNARY_KINDS,
  "scale",
  "cast",
  "assign",
]);

/** Elementwise ops of two operands. */
const BINARY_OPS: ReadonlySet<string> = new Set([
  "elementwise_add",
  "elementwise_sub",
  "elementwise_mul",
  "elementwise_div",
  "elementwise_max",
  "elementwise_min",
  "elementwise_pow",
  "elementwise_mod",
  "elementwise_floordiv",
]);

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
  const attrs = () => {
    const def = OPS.get(op.type);
    return def === undefined ? {} : readAttrs(def.attrs, op.attrs);
  };
  const refuse = (variable: string, why: string): never => {
    throw new ProgramError(
      `cannot split on the data input's rows: variable "${variable}" ${why}`,
      { ...where, variable },
    );
  };
  const carried = op.inputs.flatMap((v) => v.arguments).find((n) =>
    context.carriesRows(n)
  )!;
  if (ELEMENT_OPS.has(op.type)) return;
  if (op.type === "softmax") {
    const axis = Number(attrs().axis ?? -1);
    const rank = rankOf(context.declaration(carried));
    if (axis === -1 || (rank !== undefined && axis === rank - 1)) return;
    refuse(carried, `goes into a softmax over axis ${axis}, not the last one`);
  }
  if (op.type === "mul" || op.type === "matmul") {
    const x = arg("X")!;
    const y = arg("Y")!;
    if (context.carriesRows(y)) {
      refuse(y, `is ${op.type}'s right operand; only the left may carry rows`);
    }
    const a = attrs();
    if (op.type === "mul" && Number(a.x_num_col_dims ?? 1) !== 1) {
      refuse(
        x,
        `goes into a mul with x_num_col_dims ${a.x_num_col_dims}, not 1`,
      );
    }
    if (op.type === "matmul" && a.transpose_X === true) {
      refuse(x, "goes into a matmul that transposes it");
    }
    return;
  }
  if (BINARY_OPS.has(op.type)) {
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
