/**
 * Timer ops: `sleep` parks the green thread; `channel_after` makes a
 * channel that delivers `true` once, after a delay. A pending timer keeps
 * the run alive, so a thread waiting on one is never taken for a deadlock.
 *
 * @module
 */
import type { Tensor } from "../../kernels/tensor.ts";
import { after, sleep } from "../../scheduler/timer.ts";
import { AttrError } from "../core/attr_read.ts";
import { attr, defineOp, type OpDef, slot } from "../core/op_def.ts";
import { statusTensor } from "./channel.ts";
import { poolOf } from "../core/_pool_services.ts";

const sleepOp = defineOp({
  type: "sleep",
  impure: () => "waits on the clock",
  summary: "parks the green thread for ms milliseconds (Duration overrides)",
  inputs: { Duration: slot.tensor({ optional: true }) },
  outputs: {},
  attrs: { ms: attr.float() },
  check(a, ctx) {
    if (a.ms === undefined && !ctx.hasInput("Duration")) {
      throw new AttrError("ms", "required when Duration is not given");
    }
  },
  prepare(ctx) {
    const duration = ctx.optionalInput("Duration");
    const ms = ctx.attrs.ms ?? 0;
    return (scope, ctx) => {
      const wait = duration === undefined
        ? ms
        : Number(duration.tensor(scope).item(0));
      if (wait > 0) return sleep(wait, ctx.resumeAs);
    };
  },
});

const channelAfter = defineOp({
  type: "channel_after",
  impure: () => "waits on the clock",
  summary: "Out = a channel that delivers true once, after ms milliseconds",
  inputs: {},
  outputs: { Out: slot.channel() },
  attrs: { ms: attr.required("float") },
  prepare(ctx) {
    const out = ctx.output("Out");
    const ms = ctx.attrs.ms;
    return (scope, ctx) => {
      const pool = poolOf(ctx.run);
      if (pool !== undefined) return out.write(scope, pool.after(ms));
      out.write(
        scope,
        after<Tensor>(ms, {
          value: statusTensor(true),
          zero: statusTensor(false),
          scheduler: ctx.run.scheduler,
        }),
      );
    };
  },
});

/**
 * The timer ops.
 *
 * @example Usage
 * ```ts
 * import { TIMER_OPS } from "./timer.ts";
 * import { assert } from "@std/assert";
 *
 * assert(TIMER_OPS.some((def) => def.type === "sleep"));
 * ```
 */
export const TIMER_OPS: readonly OpDef[] = [sleepOp, channelAfter];
