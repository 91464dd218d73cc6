/**
 * Which outer variables a sub-block reads and writes: the `X` and `Out`
 * lists the builder records on `while`, `conditional_block` and `go`, for
 * analysis (the executor resolves names through scopes and needs neither).
 * A write rebinds a variable; storing into the tensor array a variable
 * holds (`write_to_array`) reads it, and a `select` case's receive writes
 * its value and ok variables.
 *
 * @module
 */
import {
  AttrType,
  type BlockDesc,
  type ProgramDesc,
} from "../../gen/rill/v1/framework_pb.ts";
import { opVariables } from "./op_variables.ts";
import type { Block, Variable } from "../build/program.ts";

/** The outer variables a block tree uses, in first-use order. */
export interface FreeVariables {
  /** Names read and not declared inside. */
  readonly reads: readonly string[];
  /** Names written and not declared inside. */
  readonly writes: readonly string[];
}

/**
 * The variables that block `idx` and its sub-blocks read or write but do
 * not declare.
 *
 * @param program The program.
 * @param idx The block.
 * @returns The free variables.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { freeVariables } from "./free_variables.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const program = create(ProgramDescSchema, {
 *   blocks: [
 *     { idx: 0, parentIdx: -1, vars: [{ name: "i" }] },
 *     { idx: 1, parentIdx: 0, ops: [{ type: "increment", inputs: [{ parameter: "X", arguments: ["i"] }], outputs: [{ parameter: "Out", arguments: ["i"] }] }] },
 *   ],
 * });
 * assertEquals(freeVariables(program, 1), { reads: ["i"], writes: ["i"] });
 * ```
 */
export function freeVariables(
  program: ProgramDesc,
  idx: number,
): FreeVariables {
  const reads = new Set<string>();
  const writes = new Set<string>();
  const visit = (block: BlockDesc, declared: ReadonlySet<string>): void => {
    const inner = new Set([...declared, ...block.vars.map((v) => v.name)]);
    for (const op of block.ops) {
      const uses = opVariables(op);
      for (const name of uses.reads) if (!inner.has(name)) reads.add(name);
      for (const name of uses.writes) if (!inner.has(name)) writes.add(name);
      for (const a of op.attrs) {
        const subs = a.type === AttrType.BLOCK
          ? [a.blockIdx]
          : a.type === AttrType.BLOCKS
          ? a.blocksIdx
          : [];
        for (const s of subs) {
          const sub = program.blocks[s];
          if (sub !== undefined && s !== block.idx) visit(sub, inner);
        }
      }
    }
  };
  visit(program.blocks[idx], new Set());
  return { reads: [...reads], writes: [...writes] };
}

/** The outer variables a built block uses, as builder variables. */
export interface OuterVariables {
  /** Variables read and not declared inside. */
  readonly reads: Variable[];
  /** Variables written and not declared inside. */
  readonly writes: Variable[];
}

/**
 * The variables of enclosing blocks that `block` (and its sub-blocks) read
 * and write: the `X` and `Out` lists of the op that will run it.
 *
 * @param block A block under construction.
 * @returns The outer variables.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, increment, Program } from "../../mod.ts";
 * import { outerVariables } from "./free_variables.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const block = p.guard(() => {
 *   const i = fillConstant({ shape: [1], dtype: "int64" });
 *   return p.subBlock(() => increment(i));
 * });
 * assertEquals(outerVariables(block).writes.map((v) => v.name), ["fill_constant.out_0"]);
 * ```
 */
export function outerVariables(block: Block): OuterVariables {
  const { reads, writes } = freeVariables(block.program.desc, block.idx);
  const parent = block.parent!;
  const find = (names: readonly string[]) =>
    names.flatMap((n) => parent.findVar(n) ?? []);
  return { reads: find(reads), writes: find(writes) };
}
