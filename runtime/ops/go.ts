/**
 * `go`: runs a block on a new green thread, in a child scope of the current
 * one. Free variables resolve through the parent scopes by reference (a Go
 * closure); the variables in `Args` are copied into the new thread's scope
 * when the op runs (a Go call's arguments), so later writes by the spawner
 * do not reach it.
 *
 * @module
 */
import { runBlock } from "../block_runner.ts";
import { attr, defineOp, type OpDef, slot } from "../op_def.ts";
import { Scope } from "../scope.ts";

const go = defineOp({
  type: "go",
  summary: "runs sub_block on a new green thread; Args are bound by value",
  inputs: {
    X: slot.any({ duplicable: true, optional: true }),
    Args: slot.any({ duplicable: true, optional: true }),
  },
  outputs: {},
  attrs: { sub_block: attr.block() },
  prepare(ctx) {
    const args = ctx.inputList("Args");
    const body = ctx.block(ctx.attrs.sub_block, args.map((a) => a.name));
    const argSlots = args.map((a) => body.layout.slotOf(a.name)!);
    // One options object per op, shared by every thread it spawns.
    const goOptions = { createdAt: ctx.location };
    return (scope, thread) => {
      const child = new Scope(body.layout, scope);
      for (let i = 0; i < args.length; i++) {
        const v = args[i].read(scope);
        if (v === undefined) args[i].tensor(scope); // panics: read before written
        child.values[argSlots[i]] = v;
      }
      const run = thread.run;
      run.scheduler.go(
        (thread) => runBlock(body, child, { run, thread }),
        goOptions,
      );
    };
  },
});

/**
 * The goroutine op.
 *
 * @example Usage
 * ```ts
 * import { GO_OPS } from "./go.ts";
 * import { assert } from "@std/assert";
 *
 * assert(GO_OPS.some((def) => def.type === "go"));
 * ```
 */
export const GO_OPS: readonly OpDef[] = [go];
