/**
 * A vet finding before it is worded as a line (vet.ts), shared by the
 * modules that find them.
 *
 * @module
 */

import type { VetFinding } from "./vet.ts";

/** A finding before it is worded as its one-line message. */
export type VetDraft = Omit<VetFinding, "message">;

/**
 * Where an op sits, in a finding's words.
 *
 * @param at The op's block, index and type.
 * @returns `block B op I (type)`.
 *
 * @example Usage
 * ```ts
 * import { where } from "./_vet_draft.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(where({ block: 1, op: 2, type: "go" }), "block 1 op 2 (go)");
 * ```
 */
export function where(
  at: { block: number; op?: number; index?: number; type: string },
): string {
  return `block ${at.block} op ${at.op ?? at.index} (${at.type})`;
}
