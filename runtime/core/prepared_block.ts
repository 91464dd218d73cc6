/**
 * A block prepared for running: its variable layout and, per op, the run
 * function its `OpDef` built, with what messages need to name it.
 *
 * @module
 */
import type { OpDesc } from "../../gen/rill/v1/framework_pb.ts";
import type { OpDef } from "./op_def.ts";
import type { ResumableRun } from "./prepare_context.ts";
import type { BlockLayout } from "./scope.ts";
import type { VarRef } from "./var_ref.ts";

/** One prepared op. */
export interface PreparedOp {
  /**
   * The run function: completes, or returns what it waits on (a promise,
   * or `PARKED`), whose outcome the block runner hands to `resume` when
   * there is one.
   */
  readonly run: ResumableRun["run"];
  /** Finishes an op whose run suspended, or waits again. */
  readonly resume: ResumableRun["resume"] | undefined;
  /** `block B op I <type>`. */
  readonly location: string;
  /** The op's definition. */
  readonly def: OpDef;
  /** The op as the program states it. */
  readonly desc: OpDesc;
  /** Its input variables by slot, for messages. */
  readonly inputs: ReadonlyArray<readonly [string, readonly VarRef[]]>;
}

/** One prepared block. */
export interface PreparedBlock {
  /** The block's index. */
  readonly idx: number;
  /** Its variables. */
  readonly layout: BlockLayout;
  /** Its ops in order. */
  readonly ops: readonly PreparedOp[];
  /**
   * Whether a run of the block may leave its scope to someone after the
   * run ends: an op of it, or of a block it runs inline, runs a sub-block
   * otherwise than inline (a goroutine, a select case, a served call), or
   * a sub-block that does. When false, a run's scope, cleared, can serve
   * the next run (a `while` pass).
   */
  readonly keepsScope: boolean;
}
