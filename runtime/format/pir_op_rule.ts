/**
 * The shape of an entry of the PIR op table (`pir_op_table.ts`): what a
 * PIR op becomes in Rill, operand by operand, result by result and
 * attribute by attribute, or which structural op it is.
 *
 * @module
 */

/** How a constant operand becomes an attribute. */
export type PirConstantKind = "ints" | "int" | "long" | "float";

/** How one operand reaches the Rill op. */
export type PirOperandRule =
  /** A tensor input slot; a `0.combine` operand fills it with each member. */
  | string
  /**
   * The value of a constant op (`1.full`, `1.full_int_array`) as the
   * attribute `attr`; any other operand fills `slot`, or is unsupported
   * when there is none.
   */
  | {
    readonly attr: string;
    readonly as: PirConstantKind;
    readonly slot?: string;
  };

/** A PIR op that becomes one Rill op. */
export interface PirMappedOp {
  /** The Rill op. */
  readonly type: string;
  /** One rule per operand, in order. */
  readonly inputs: readonly PirOperandRule[];
  /** The output slot of each result, in order. */
  readonly outputs: readonly string[];
  /**
   * The Rill name of each PIR attribute the op may carry; `null` for one
   * read and dropped (it has no effect on an inference run).
   */
  readonly attrs?: Readonly<Record<string, string | null>>;
  /**
   * PIR attributes the Rill op has no room for, accepted only at the one
   * value that means what the Rill op does (`1.sum`'s dtype "Undefined"
   * keeps the input's dtype); any other value is a gap.
   */
  readonly neutral?: Readonly<Record<string, string | number | boolean>>;
  /**
   * Rill's op gives [1] where Paddle 3's gives a 0-D tensor (a reduction to
   * one element, the product of two vectors), as Paddle 2 did: a result
   * the program declares 0-D is reshaped to [] after the op.
   */
  readonly oneForZeroD?: boolean;
}

/**
 * The PIR ops that are not one Rill op each: the program's structure
 * (parameters, feeds, fetches, constants, lists, control flow).
 */
export type PirSpecialOp =
  | "parameter"
  | "data"
  | "fetch"
  | "full"
  | "full_int_array"
  | "combine"
  | "split"
  | "if"
  | "while"
  | "yield";

/** An entry of the table. */
export type PirOpRule = PirMappedOp | { readonly special: PirSpecialOp };
