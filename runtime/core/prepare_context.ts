/**
 * What an op's `prepare` sees: its attribute values, its variables resolved
 * to `VarRef`s, its sub-blocks prepared, and its location for messages.
 *
 * @module
 */
import type { AttrSchema, AttrValues } from "./op_def.ts";
import type { PreparedBlock } from "./prepared_block.ts";
import type { Scope } from "./scope.ts";
import type { ThreadContext } from "./thread_context.ts";
import type { VarRef } from "./var_ref.ts";

/**
 * An op's run function: completes synchronously (returns `undefined`) or
 * returns what it waits on, a promise or `PARKED`, after which the block
 * runner goes on. Only a returned value suspends the block, so a run of
 * synchronous ops costs no microtask hop.
 */
export type OpRun = (scope: Scope, ctx: ThreadContext) => void | Promise<void>;

/**
 * An op that may suspend and finish later: `run` completes synchronously
 * (returns `undefined`) or returns what it waits on, and the block runner
 * hands the outcome to `resume`, which finishes the op or returns what it
 * waits on next (`resume` then runs again with that outcome). What an op
 * waits on is a promise, or `PARKED` when it parked a channel operation or
 * select on `ctx.resumeAs` or ran a sub-block that suspended
 * (`runSubBlock`). A channel receive stores the value in `resume`, rather
 * than chaining a `.then` per receive; `while` runs its next passes there.
 */
export interface ResumableRun {
  /** Runs the op, or starts it and returns what it waits on. */
  readonly run: (scope: Scope, ctx: ThreadContext) => void | Promise<unknown>;
  /** Finishes the op with the outcome of what it waited on, or waits again. */
  readonly resume: (
    scope: Scope,
    value: unknown,
    ctx: ThreadContext,
  ) => void | Promise<unknown>;
}

/** The context an op's `prepare` gets. Slots are validated before this. */
export interface PrepareContext<A extends AttrSchema = AttrSchema> {
  /** The attribute values, defaults applied. */
  readonly attrs: AttrValues<A>;
  /** `block B op I <type>`, for messages and thread dumps. */
  readonly location: string;
  /** The first variable of a required input slot. */
  input(slot: string): VarRef;
  /** The first variable of an optional input slot, if given. */
  optionalInput(slot: string): VarRef | undefined;
  /** Every variable of an input slot (`[]` if absent). */
  inputList(slot: string): VarRef[];
  /** The first variable of a required output slot. */
  output(slot: string): VarRef;
  /** The first variable of an optional output slot, if given. */
  optionalOutput(slot: string): VarRef | undefined;
  /** Every variable of an output slot (`[]` if absent). */
  outputList(slot: string): VarRef[];
  /**
   * Whether the first variable of output slot `slot` is private: only ops
   * that keep nothing of its value read it (runtime/exec/
   * private_variables.ts), so a tensor this op made and bound to it is
   * referenced by the variable alone until it is rebound, and the op may
   * write its next result into that tensor's storage.
   */
  privateOutput(slot: string): boolean;
  /** A variable named outside the slots (a `select` case, say). */
  resolve(name: string): VarRef;
  /**
   * The prepared block with index `idx`, a child of this op's block.
   * `locals` names variables each run of the block binds itself (see
   * `BlockLayout`); they must be the same every time the block is asked for.
   */
  block(idx: number, locals?: readonly string[]): PreparedBlock;
}
