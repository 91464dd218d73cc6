/**
 * `while` and `conditional_block`: run a sub-block in a fresh child scope
 * (new locals each pass), reading and writing outer variables by reference.
 *
 * @module
 */
import { largeAllocations } from "../../kernels/allocate.ts";
import { attr, defineOp, type OpDef, slot } from "../core/op_def.ts";
import { runSubBlock } from "../exec/block_runner.ts";
import type { PreparedBlock } from "../core/prepared_block.ts";
import { Scope } from "../core/scope.ts";
import type { ThreadContext } from "../core/thread_context.ts";
import type { VarRef } from "../core/var_ref.ts";

function isTrue(cond: VarRef, scope: Scope): boolean {
  const t = cond.tensor(scope);
  // A bool condition (what comparisons write) is its one byte; any other
  // dtype goes through item(), which converts.
  if (t.size === 1 && t.dtype === "bool") return t.data[0] !== 0;
  if (t.size !== 1) {
    throw new RangeError(
      `condition "${cond.name}" must hold one element, has shape [${
        t.shape.join(", ")
      }]`,
    );
  }
  return Boolean(t.item(0));
}

const whileOp = defineOp({
  type: "while",
  summary: "runs sub_block while Condition, re-read after each pass, is true",
  // X names the outer variables the body uses; the op itself reads only
  // the condition's element.
  inputs: {
    X: slot.any({ duplicable: true, optional: true, transient: true }),
    Condition: slot.tensor({ transient: true }),
  },
  outputs: {
    Out: slot.any({ duplicable: true, optional: true }),
    StepScopes: slot.step_scopes({ optional: true }),
  },
  attrs: { sub_block: attr.block() },
  inlineBlocks: true,
  prepare(ctx) {
    const cond = ctx.input("Condition");
    const body = ctx.block(ctx.attrs.sub_block);
    // A pass that suspends ends run (or resume) with PARKED; the block
    // runner calls resume once the pass has ended, or once the time slice's
    // yield is over, and the loop goes on from there.
    return {
      run: (scope, thread) => loop(cond, body, scope, thread, false),
      resume: (scope, _, thread) => loop(cond, body, scope, thread, true),
    };
  },
});

// Runs passes of `body` while `cond` holds, after a pass that suspended if
// `resumed`. Returns what the loop waits on, if it must.
function loop(
  cond: VarRef,
  body: PreparedBlock,
  scope: Scope,
  thread: ThreadContext,
  resumed: boolean,
): void | Promise<void> {
  const scheduler = thread.run.scheduler;
  let large = largeAllocations();
  if (resumed) {
    const slice = scheduler.yieldSlice();
    if (slice !== undefined) return slice;
  }
  // Each pass gets fresh locals. A body that declares none can share one
  // scope between passes, as an empty scope holds nothing a pass could
  // leave behind (a goroutine it started sees the same parent either way);
  // so can a body whose passes leave their scope to nobody (no goroutine
  // captures it), cleared after each pass: a local then reads as unwritten
  // again, as in a new scope, and a receive into a loop's local allocates
  // no scope per pass.
  const none = body.layout.names.length === 0;
  const shared = none || !body.keepsScope
    ? new Scope(body.layout, scope)
    : undefined;
  while (isTrue(cond, scope)) {
    const pass = runSubBlock(
      body,
      shared ?? new Scope(body.layout, scope),
      thread,
    );
    if (pass !== undefined) return pass;
    if (!none) shared?.clear();
    // A loop of synchronous ops would starve timers and I/O; the scheduler
    // hands back a promise once a time slice is used up. A pass that made a
    // large tensor may have taken milliseconds: the scheduler then reads
    // the clock at once.
    const made = largeAllocations();
    const slice = scheduler.yieldSlice(made !== large);
    large = made;
    if (slice !== undefined) return slice;
  }
}

const conditionalBlock = defineOp({
  type: "conditional_block",
  summary:
    "runs sub_block once if Cond holds (a scalar true, or all non-empty)",
  inputs: {
    Cond: slot.tensor({ duplicable: true, transient: true }),
    Input: slot.any({ duplicable: true, optional: true, transient: true }),
  },
  outputs: {
    Out: slot.any({ duplicable: true, optional: true }),
    Scope: slot.step_scopes({ optional: true }),
  },
  attrs: { sub_block: attr.block(), is_scalar_condition: attr.bool(true) },
  inlineBlocks: true,
  prepare(ctx) {
    const conds = ctx.inputList("Cond");
    const body = ctx.block(ctx.attrs.sub_block);
    const scalar = ctx.attrs.is_scalar_condition;
    return (scope, thread) => {
      const go = scalar
        ? isTrue(conds[0], scope)
        : conds.every((c) => c.tensor(scope).size > 0);
      if (go) return runSubBlock(body, new Scope(body.layout, scope), thread);
    };
  },
});

/**
 * The control flow ops.
 *
 * @example Usage
 * ```ts
 * import { CONTROL_FLOW_OPS } from "./control_flow.ts";
 * import { assert } from "@std/assert";
 *
 * assert(CONTROL_FLOW_OPS.some((def) => def.type === "while"));
 * ```
 */
export const CONTROL_FLOW_OPS: readonly OpDef[] = [whileOp, conditionalBlock];
