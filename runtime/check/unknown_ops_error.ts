/**
 * The error of a program that uses several op types the registry lacks:
 * one line listing each with its count, as a user porting a real model
 * needs to see them (`unknown ops: yolo_box ×3, roi_align ×2`).
 *
 * @module
 */
import { ProgramError } from "../core/errors.ts";

/** One op type the registry lacks, as a program uses it. */
export interface UnknownOp {
  /** The op type. */
  readonly type: string;
  /** How many ops of the program have it. */
  readonly count: number;
  /** The block of its first op. */
  readonly block: number;
  /** The index of its first op in that block. */
  readonly op: number;
}

/**
 * Several ops of a program have types the registry lacks. The message lists
 * each type once, in order of first appearance (blocks in order, then ops in
 * order), with how many ops have it: `unknown ops: yolo_box ×3, roi_align ×2`.
 * A program with only one such op gets a plain `ProgramError` at that op
 * instead: `block 0 op 2 (yolo_box): unknown op "yolo_box"`.
 *
 * @example Usage
 * ```ts
 * import { UnknownOpsError } from "./unknown_ops_error.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const e = new UnknownOpsError([
 *   { type: "yolo_box", count: 3, block: 0, op: 1 },
 *   { type: "roi_align", count: 2, block: 0, op: 2 },
 * ], { file: "m.pb" });
 * assertEquals(e.message, "m.pb: unknown ops: yolo_box ×3, roi_align ×2");
 * assertEquals(e.ops[1].type, "roi_align");
 * ```
 */
export class UnknownOpsError extends ProgramError {
  /** Each unknown op type, in order of first appearance. */
  readonly ops: readonly UnknownOp[];

  /**
   * Makes the error.
   *
   * @param ops Each unknown op type, in order of first appearance.
   * @param where The file, when known.
   */
  constructor(ops: readonly UnknownOp[], where: { file?: string } = {}) {
    const list = ops.map((o) => `${shownOpType(o.type)} ×${o.count}`);
    super(`unknown ops: ${list.join(", ")}`, where);
    this.name = "UnknownOpsError";
    this.ops = ops;
  }
}

// An op type prints bare when it is a plain name, else quoted, so that the
// list reads one way only.
function shownOpType(type: string): string {
  return /^[\w.-]+$/.test(type) ? type : JSON.stringify(type);
}
