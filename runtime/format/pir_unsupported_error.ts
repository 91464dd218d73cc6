/**
 * The error of a PIR program with parts Rill cannot convert: one line
 * listing every op, attribute, operand and type it does not know, each with
 * how often it occurs, as the unknown-ops error does for a `ProgramDesc`
 * (`runtime/check/unknown_ops_error.ts`), so that a user porting a model
 * sees the whole gap at once.
 *
 * @module
 */
import { ProgramError } from "../core/errors.ts";

/** What kind of thing a PIR program uses that Rill cannot convert. */
export type PirGapKind = "op" | "attribute" | "operand" | "type";

/** One thing a PIR program uses that Rill cannot convert. */
export interface PirGap {
  /** Its kind. */
  readonly kind: PirGapKind;
  /**
   * Its name: an op (`1.matmul_grad`), an op's attribute
   * (`1.conv2d.fuse_x`) or computed operand (`1.pool2d.ksize`), an
   * attribute or type tag (`0.a_new`, `2.t_stack`).
   */
  readonly name: string;
  /** How often the program uses it. */
  readonly count: number;
}

const HEADINGS: Readonly<Record<PirGapKind, string>> = {
  op: "ops",
  attribute: "attributes",
  operand: "computed operands",
  type: "types",
};

/**
 * A PIR program uses ops, attributes, operands or types Rill cannot
 * convert. The message lists each kind in turn, names in order of first
 * use: `cannot convert the PIR program: ops: 1.matmul_grad ×68; types:
 * 2.t_stack ×4`.
 *
 * @example Usage
 * ```ts
 * import { PirUnsupportedError } from "./pir_unsupported_error.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const e = new PirUnsupportedError([
 *   { kind: "op", name: "1.reduce_as", count: 3 },
 *   { kind: "type", name: "2.t_stack", count: 1 },
 * ], { file: "m.json" });
 * assertEquals(e.message, "m.json: cannot convert the PIR program: ops: 1.reduce_as ×3; types: 2.t_stack ×1");
 * ```
 */
export class PirUnsupportedError extends ProgramError {
  /** Each gap, kinds in the message's order, names in order of first use. */
  readonly gaps: readonly PirGap[];

  /**
   * Makes the error.
   *
   * @param gaps Each gap, in order of first use.
   * @param where The file, when known.
   */
  constructor(gaps: readonly PirGap[], where: { file?: string } = {}) {
    const kinds = Object.keys(HEADINGS) as PirGapKind[];
    const ordered = kinds.flatMap((k) => gaps.filter((g) => g.kind === k));
    const parts = kinds.flatMap((k) => {
      const of = ordered.filter((g) => g.kind === k);
      return of.length === 0
        ? []
        : [`${HEADINGS[k]}: ${
          of.map((g) => `${g.name} ×${g.count}`).join(", ")
        }`];
    });
    super(`cannot convert the PIR program: ${parts.join("; ")}`, where);
    this.name = "PirUnsupportedError";
    this.gaps = ordered;
  }
}
