// Channel ops as a recorded or replayed run runs them (`--record`,
// `--replay`): `channel_create` gives its channel an index, and a send,
// receive or close passes the run's schedule gate before and after its
// attempt (runtime/core/schedule_gate.ts). Only a program prepared with
// `scheduled` has these ops wrapped, so other runs pay nothing for it.
// `select` asks the gate itself (runtime/ops/select.ts).

import type { ResumableRun } from "../core/prepare_context.ts";
import type { VarRef } from "../core/var_ref.ts";
import type { ScheduleGate } from "../core/schedule_gate.ts";
import { CLOSE, RECV, SEND } from "../core/schedule_file.ts";
import type { TensorChannel } from "../core/value.ts";

// The attempt kind of each wrapped op that uses a channel.
const KINDS: Readonly<Record<string, number>> = {
  channel_send: SEND,
  channel_recv: RECV,
  channel_close: CLOSE,
};

type Op = {
  run: ResumableRun["run"];
  resume: ResumableRun["resume"] | undefined;
};

/**
 * Wraps a channel op's run for a recorded or replayed run; other ops come
 * back as they are.
 *
 * @param op The op's run and resume.
 * @param type The op's type.
 * @param where Its block, index, and its Channel input or Out output.
 * @returns The wrapped run and resume.
 *
 * @example Usage
 * ```ts
 * import { scheduledOp } from "./scheduled_op.ts";
 * import { assertStrictEquals } from "@std/assert";
 *
 * const op = { run: () => {}, resume: undefined };
 * assertStrictEquals(scheduledOp(op, "relu", { block: 0, op: 0 }), op);
 * ```
 */
export function scheduledOp(
  op: Op,
  type: string,
  where: { block: number; op: number; channel?: VarRef; out?: VarRef },
): Op {
  const { run } = op;
  if (type === "channel_create" && where.out !== undefined) {
    const out = where.out;
    return {
      run(scope, ctx) {
        const done = run(scope, ctx);
        ctx.run.schedule?.made(out.channel(scope)!, ctx.thread);
        return done;
      },
      resume: op.resume,
    };
  }
  const kind = KINDS[type];
  const ref = where.channel;
  if (kind === undefined || ref === undefined) return op;
  const { block } = where;
  const index = where.op;
  // The op's site, asked of each run's gate once; and the channel it used
  // last with that channel's index (an op mostly uses one channel, and a
  // channel's index never changes).
  let siteOf: ScheduleGate | undefined = undefined;
  let site = 0;
  let last: unknown = undefined;
  let lastIndex = -1;
  return {
    run(scope, ctx) {
      const gate = ctx.run.schedule;
      if (gate === undefined) return run(scope, ctx);
      if (gate !== siteOf) {
        site = gate.site(kind, block, index);
        siteOf = gate;
        last = undefined;
      }
      const ch = ref.channel(scope) as TensorChannel | null;
      if (ch !== last) {
        lastIndex = ch === null ? -1 : gate.indexOf(ch);
        last = ch;
      }
      const c = lastIndex;
      if (c < 0) return run(scope, ctx);
      gate.enter(c, ctx.thread, site);
      try {
        return run(scope, ctx);
      } finally {
        gate.leave(c);
      }
    },
    resume: op.resume,
  };
}
