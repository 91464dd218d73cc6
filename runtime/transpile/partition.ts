/**
 * Sorts the ops of a program to split into the parts of the master and
 * the worker: the data input's op (master), the ops computing parameters
 * (worker, once), the ops computing from the input's rows (worker, per
 * call), and the outputs, `print` and `fetch` (master).
 *
 * @module
 */
import {
  AttrType,
  type OpDesc,
  type ProgramDesc,
  VarType_Type,
} from "../../gen/rill/v1/framework_pb.ts";
import { ProgramError } from "../core/errors.ts";
import { opVariables } from "../check/op_variables.ts";
import { type DataInput, findDataInput } from "./data_input.ts";
import { checkRowSeparable } from "./row_separable.ts";

/** Ops that show or hand over a result: they stay on the master. */
const OUTPUT_OPS: readonly string[] = ["print", "fetch"];

/** A program's ops, sorted by where they run. */
export interface Partition {
  /** The data input. */
  readonly input: DataInput;
  /** Ops that depend on no row: the parameters, computed on the worker. */
  readonly parameterOps: readonly OpDesc[];
  /** Ops that compute from the rows, on the worker, per call. */
  readonly computeOps: readonly OpDesc[];
  /** `print` and `fetch` of the output, on the master. */
  readonly outputOps: readonly OpDesc[];
  /** The one variable the outputs read. */
  readonly output: string;
  /** Every variable that carries rows: the input and the compute ops' outputs. */
  readonly rowVariables: ReadonlySet<string>;
}

/**
 * Sorts block 0's ops by where they run.
 *
 * @param desc The program.
 * @returns The partition.
 * @throws {ProgramError} If the program cannot be split: the error names
 * the op and the variable that prevent it.
 *
 * @example Usage
 * ```ts
 * import { assignValue, mul, print, Program, read } from "../../mod.ts";
 * import { partitionProgram } from "./partition.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const [x] = read("x.npy");
 *   print(mul(x, assignValue([1, 2, 3, 4], { shape: [2, 2] })));
 * });
 * const parts = partitionProgram(p.desc);
 * assertEquals(parts.parameterOps.map((op) => op.type), ["assign_value"]);
 * assertEquals(parts.computeOps.map((op) => op.type), ["mul"]);
 * assertEquals(parts.output, "mul.out_0");
 * ```
 */
export function partitionProgram(desc: ProgramDesc): Partition {
  const ops = desc.blocks[0]?.ops ?? [];
  ops.forEach(refuseSubBlock);
  const input = findDataInput(desc);
  const rows = new Set([input.name]);
  const declarations = new Map(
    (desc.blocks[0]?.vars ?? []).map((v) => [v.name, v]),
  );
  const context = {
    carriesRows: (name: string) => rows.has(name),
    declaration: (name: string) => declarations.get(name),
  };
  const parameterOps: OpDesc[] = [];
  const computeOps: OpDesc[] = [];
  const outputOps: OpDesc[] = [];
  let output: string | undefined;
  ops.forEach((op, i) => {
    if (i === input.op) return;
    const where = { block: 0, op: i, opType: op.type };
    const { reads, writes } = opVariables(op);
    const fromRows = reads.filter((name) => rows.has(name));
    if (OUTPUT_OPS.includes(op.type)) {
      const shown = reads.find((name) => !declaredList(declarations, name));
      if (shown === undefined || fromRows.length === 0) {
        throw new ProgramError(
          `cannot split: ${op.type} of "${shown}" does not depend on the data input "${input.name}"`,
          { ...where, variable: shown },
        );
      }
      if (output !== undefined && shown !== output) {
        throw new ProgramError(
          `cannot split: a second output "${shown}" (the first is "${output}"); the transpiler splits programs with one`,
          { ...where, variable: shown },
        );
      }
      output = shown;
      outputOps.push(op);
      return;
    }
    if (fromRows.length === 0) {
      parameterOps.push(op);
      return;
    }
    checkRowSeparable(op, i, context);
    computeOps.push(op);
    for (const w of writes) rows.add(w);
  });
  if (output === undefined) {
    throw new ProgramError(
      `cannot split: no print or fetch shows a value computed from the data input "${input.name}"`,
      { block: 0, variable: input.name },
    );
  }
  if (output === input.name) {
    throw new ProgramError(
      `cannot split: the output is the data input "${input.name}" itself; there is nothing to compute`,
      { block: 0, variable: input.name },
    );
  }
  return {
    input,
    parameterOps,
    computeOps,
    outputOps,
    output,
    rowVariables: rows,
  };
}

// The feed and fetch lists are bookkeeping, not values.
function declaredList(
  declarations: ReadonlyMap<string, { type?: { type: number } }>,
  name: string,
): boolean {
  const type = declarations.get(name)?.type?.type;
  return type === VarType_Type.FEED_MINIBATCH ||
    type === VarType_Type.FETCH_LIST;
}

function refuseSubBlock(op: OpDesc, i: number): void {
  const a = op.attrs.find((a) =>
    a.type === AttrType.BLOCK || a.type === AttrType.BLOCKS
  );
  if (a === undefined) return;
  const variable = op.inputs[0]?.arguments[0];
  throw new ProgramError(
    `cannot split: ${op.type} runs a sub-block; the transpiler splits straight-line block-0 programs`,
    { block: 0, op: i, opType: op.type, attr: a.name, variable },
  );
}
