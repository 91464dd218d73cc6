// An op as a traced run runs it: the same run and resume, told to the run's
// tracer (its thread runs, the op's span, and whether it then awaits
// something outside the run). Only a program prepared for tracing has its
// ops wrapped, so an untraced run pays nothing for this.

import type { ResumableRun } from "../core/prepare_context.ts";
import type { ThreadContext } from "../core/thread_context.ts";
import { PARKED } from "../../scheduler/resumer.ts";

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
  const tracedRun: ResumableRun["run"] = (scope, ctx) =>
    traced(ctx, type, block, index, () => run(scope, ctx));
  if (resume === undefined) return { run: tracedRun, resume };
  return {
    run: tracedRun,
    resume: (scope, value, ctx) =>
      traced(ctx, type, block, index, () => resume(scope, value, ctx)),
  };
}

function traced(
  ctx: ThreadContext,
  type: string,
  block: number,
  index: number,
  step: () => void | Promise<unknown>,
): void | Promise<unknown> {
  const tracer = ctx.run.tracer;
  if (tracer === undefined) return step();
  const thread = ctx.thread;
  tracer.running(thread);
  const depth = tracer.opStart(type, block, index);
  let pending: void | Promise<unknown>;
  try {
    pending = step();
  } finally {
    tracer.opEnd(thread, depth);
  }
  if (pending !== undefined && pending !== PARKED) {
    tracer.awaiting(thread, type);
  }
  return pending;
}
