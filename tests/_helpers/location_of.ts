/**
 * Where the runtime says an op is, for asserting on panics, deadlock dumps
 * and creation sites.
 *
 * @module
 */
import { assert } from "@std/assert";
import type { Program } from "../../mod.ts";

/**
 * The runtime's name for the `nth` op of `type` in block `b`.
 *
 * @param program The program.
 * @param b The block index.
 * @param type The op type.
 * @param nth Which op of that type, from 0.
 * @returns `block <b> op <index> <type>`.
 */
export function locationOf(
  program: Program,
  b: number,
  type: string,
  nth = 0,
): string {
  const indices = program.desc.blocks[b].ops.flatMap((op, i) =>
    op.type === type ? [i] : []
  );
  assert(indices[nth] !== undefined, `block ${b} has no ${type} #${nth}`);
  return `block ${b} op ${indices[nth]} ${type}`;
}
