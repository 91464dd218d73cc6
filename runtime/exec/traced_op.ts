// An op as a traced run runs it: the same run and resume, told to the run's
// tracer (its thread runs, the op's span, and whether it then awaits
// something outside the run). Only a program prepared for tracing has its
// ops wrapped, so an untraced run pays nothing for this.

import type { ResumableRun } from "../core/prepare_context.ts";
import type { ThreadContext } from "../core/thread_context.ts";
import { PARKED } from "../../scheduler/resumer.ts";
import type { RunTracer } from "../core/run_tracer.ts";

/**
 * Wraps an op's run and resume so that they tell `ctx.run.tracer`, when
 * there is one, what they do.
 *
 * @param op The op's run and resume.
 * @param type The op's type.
 * @param block Its block's index.
 * @param index Its index in the block.
 * @returns The traced run and resume.
 *
 * @example Usage
 * ```ts
 * import { tracedOp } from "./traced_op.ts";
 * import { assertEquals } from "@std/assert";
 *
 * let ran = 0;
 * const op = tracedOp({ run: () => void ran++, resume: undefined }, "x", 0, 0);
 * // Without a tracer in the context, the op runs as it is.
 * op.run(undefined as never, { run: {} } as never);
 * assertEquals(ran, 1);
 * ```
 */
export function tracedOp(
  op: { run: ResumableRun["run"]; resume: ResumableRun["resume"] | undefined },
  type: string,
  block: number,
  index: number,
): { run: ResumableRun["run"]; resume: ResumableRun["resume"] | undefined } {
  const { run, resume } = op;
  const tracedRun: ResumableRun["run"] = (scope, ctx) => {
    const tracer = ctx.run.tracer;
    if (tracer === undefined) return run(scope, ctx);
    const depth = begin(tracer, ctx, type, block, index);
    let pending: void | Promise<unknown>;
    try {
      pending = run(scope, ctx);
    } finally {
      tracer.opEnd(ctx.thread, depth);
    }
    return end(tracer, ctx, type, pending);
  };
  if (resume === undefined) return { run: tracedRun, resume };
  const tracedResume: ResumableRun["resume"] = (scope, value, ctx) => {
    const tracer = ctx.run.tracer;
    if (tracer === undefined) return resume(scope, value, ctx);
    const depth = begin(tracer, ctx, type, block, index);
    let pending: void | Promise<unknown>;
    try {
      pending = resume(scope, value, ctx);
    } finally {
      tracer.opEnd(ctx.thread, depth);
    }
    return end(tracer, ctx, type, pending);
  };
  return { run: tracedRun, resume: tracedResume };
}

// The op's thread runs and its span opens.
function begin(
  tracer: RunTracer,
  ctx: ThreadContext,
  type: string,
  block: number,
  index: number,
): number {
  tracer.running(ctx.thread);
  return tracer.opStart(type, block, index);
}

// An op that returns a promise of its own (not a park) awaits something
// outside the run.
function end(
  tracer: RunTracer,
  ctx: ThreadContext,
  type: string,
  pending: void | Promise<unknown>,
): void | Promise<unknown> {
  if (pending !== undefined && pending !== PARKED) {
    tracer.awaiting(ctx.thread, type);
  }
  return pending;
}
