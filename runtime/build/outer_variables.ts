/**
 * The builder's view of a sub-block's free variables: the `X` and `Out`
 * lists that `whileLoop`, `ifElse`, `go` and `select` record on the op that
 * runs the block, as builder variables of the enclosing blocks.
 *
 * @module
 */
import { freeVariables } from "../check/free_variables.ts";
import type { Block, Variable } from "./program.ts";

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
 * import { outerVariables } from "./outer_variables.ts";
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
