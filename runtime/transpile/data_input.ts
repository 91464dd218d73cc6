/**
 * The data input of a program to split: the one tensor whose rows the
 * master cuts into pieces, one per worker.
 *
 * It is, in order of preference, the output of block 0's `read` op, the
 * variable block 0's `feed` op writes, or else the one block-0 tensor
 * variable that some op reads, no op writes, and that is not persistable
 * (a parameter) — a variable given with `--feed`.
 *
 * @module
 */
import type { ProgramDesc } from "../../gen/rill/v1/framework_pb.ts";
import { ProgramError } from "../core/errors.ts";
import { opVariables } from "../check/op_variables.ts";
import { varKindOf } from "../core/var_info.ts";

/** Where the data input comes from. */
export interface DataInput {
  /** The variable. */
  readonly name: string;
  /** The block-0 op that writes it (`read`, `feed`); absent for a free variable. */
  readonly op?: number;
}

/** Op types that produce a program's data. */
const INPUT_OPS: readonly string[] = ["read", "feed"];

/**
 * Finds the data input of `desc`'s block 0.
 *
 * @param desc The program.
 * @returns The input variable and the op that writes it.
 * @throws {ProgramError} If there is none, or more than one.
 *
 * @example Usage
 * ```ts
 * import { assignValue, mul, print, Program, read } from "../../mod.ts";
 * import { findDataInput } from "./data_input.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const [x] = read("x.npy");
 *   print(mul(x, assignValue([1, 2, 3, 4], { shape: [2, 2] })));
 * });
 * assertEquals(findDataInput(p.desc), { name: "read.out_0", op: 0 });
 * ```
 */
export function findDataInput(desc: ProgramDesc): DataInput {
  const ops = desc.blocks[0]?.ops ?? [];
  const producers = ops.flatMap((op, i) =>
    INPUT_OPS.includes(op.type) ? [i] : []
  );
  if (producers.length > 1) {
    const [first, second] = producers;
    throw new ProgramError(
      `cannot split: more than one data input (op ${first} ${
        ops[first].type
      } and op ${second} ${ops[second].type}); the transpiler splits one`,
      { block: 0, op: second, opType: ops[second].type },
    );
  }
  if (producers.length === 1) {
    const i = producers[0];
    const out = ops[i].outputs.find((v) => v.parameter === "Out");
    const name = out?.arguments[0];
    if (name === undefined) {
      throw new ProgramError("cannot split: the data op has no Out", {
        block: 0,
        op: i,
        opType: ops[i].type,
      });
    }
    return { name, op: i };
  }
  return freeInput(desc);
}

// The one non-persistable tensor variable read and never written.
function freeInput(desc: ProgramDesc): DataInput {
  const block = desc.blocks[0];
  const written = new Set<string>();
  const read: string[] = [];
  for (const op of block?.ops ?? []) {
    const { reads, writes } = opVariables(op);
    for (const r of reads) {
      if (!written.has(r) && !read.includes(r)) read.push(r);
    }
    for (const w of writes) written.add(w);
  }
  const free = read.filter((name) => {
    const v = block.vars.find((d) => d.name === name);
    return v !== undefined && !v.persistable && varKindOf(v) === "tensor";
  });
  if (free.length === 0) {
    throw new ProgramError(
      "cannot split: no data input (a read op, a feed op, or a variable no op writes)",
      { block: 0 },
    );
  }
  if (free.length > 1) {
    throw new ProgramError(
      `cannot split: more than one data input (variables "${free[0]}" and "${
        free[1]
      }" are read and never written); the transpiler splits one`,
      { block: 0, variable: free[1] },
    );
  }
  return { name: free[0] };
}
