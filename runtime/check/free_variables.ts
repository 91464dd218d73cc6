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
