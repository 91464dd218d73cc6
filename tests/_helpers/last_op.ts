/**
 * The op a builder appended last, for tests that check what it appended.
 *
 * @module
 */
import type { BlockDesc, OpDesc } from "../../mod.ts";

/**
 * The last op of `block`.
 *
 * @param block The block.
 * @returns Its last op.
 */
export function lastOp(block: BlockDesc): OpDesc {
  return block.ops[block.ops.length - 1];
}
