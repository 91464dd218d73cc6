/**
 * A vet finding before it is worded as a line (vet.ts), shared by the
 * modules that find them.
 *
 * @module
 */

/** The rules `vetProgram` checks, in the order vet.ts's text gives. */
export type VetRule =
  | "race"
  | "late_capture"
  | "one_way_channel"
  | "nil_select"
  | "unused"
  | "unreferenced_block";

/** A finding: the rule, where, and what is wrong. */
export interface VetDraft {
  /** The rule it breaks. */
  readonly rule: VetRule;
  /** The block. */
  readonly block: number;
  /** The op's index in the block, when an op is named. */
  readonly op?: number;
  /** The op's type, when an op is named. */
  readonly opType?: string;
  /** The variable, when one is named. */
  readonly variable?: string;
  /** What is wrong, after the location. */
  readonly detail: string;
}

/**
 * Where an op sits, in a finding's words.
 *
 * @param at The op's block, index and type.
 * @returns `block B op I (type)`.
 */
export function where(
  at: { block: number; op?: number; index?: number; type: string },
): string {
  return `block ${at.block} op ${at.op ?? at.index} (${at.type})`;
}
