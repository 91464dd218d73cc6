/**
 * `select`: one string per case, `"<kind>,<channel>,<value>,<ok>"` with kind
 * `send`, `recv` or `default` (docs/architecture.md §3); `sub_blocks[i]` runs when
 * case i is chosen. Send values are read once, when the select starts; a
 * receive writes its value and ok variables before its block runs.
 *
 * @module
 */
import type { Tensor } from "../../kernels/tensor.ts";
import {
  select,
  type SelectCase,
  type SelectResult,
} from "../../scheduler/select.ts";
import {
  selectShared,
  type SharedCase,
} from "../../scheduler/shared/shared_select.ts";
import { runSubBlock } from "../exec/block_runner.ts";
import {
  attr,
  type CheckContext,
  defineOp,
  type OpDef,
  slot,
} from "../core/op_def.ts";
import type { PreparedBlock } from "../core/prepared_block.ts";
import { Scope } from "../core/scope.ts";
import type { ThreadContext } from "../core/thread_context.ts";
import type { ScheduleGate } from "../core/schedule_gate.ts";
import { CASE_BASE } from "../core/schedule_file.ts";
import type { RunTracer } from "../core/run_tracer.ts";
import { SharedChannel } from "../../scheduler/shared/shared_channel.ts";
import type { TensorChannel } from "../core/value.ts";
import type { VarRef } from "../core/var_ref.ts";
import { checkElementType, statusTensor } from "./channel.ts";
import { poolOf } from "../core/_pool_services.ts";

/** One parsed case string. */
export interface SelectCaseText {
  /** What the case does. */
  readonly kind: "send" | "recv" | "default";
  /** The channel variable ("" for default). */
  readonly channel: string;
  /** The value sent, or the variable a receive writes ("" for none). */
  readonly value: string;
  /** The variable a receive writes its ok flag to ("" for none). */
  readonly ok: string;
}

/**
 * Parses a case string; throws a `RangeError` saying what is wrong.
 *
 * @param text `"<kind>,<channel>,<value>,<ok>"`.
 * @returns The parsed case.
 *
 * @example Usage
 * ```ts
 * import { parseSelectCase } from "./select.ts";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * assertEquals(parseSelectCase("recv,ch,,"), { kind: "recv", channel: "ch", value: "", ok: "" });
 * assertThrows(() => parseSelectCase("peek,ch,,"));
 * ```
 */
export function parseSelectCase(text: string): SelectCaseText {
  const fields = text.split(",");
  const [kind, channel, value, ok] = fields;
  const bad = (why: string) => new RangeError(`case "${text}": ${why}`);
  if (fields.length !== 4) throw bad("wants 4 comma-separated fields");
  if (kind !== "send" && kind !== "recv" && kind !== "default") {
    throw bad(`kind "${kind}" is not send, recv or default`);
  }
  if (kind === "default" && (channel || value || ok)) {
    throw bad("a default names no variables");
  }
  if (kind !== "default" && channel === "") throw bad("names no channel");
  if (kind === "send" && value === "") throw bad("sends no value");
  if (kind === "send" && ok !== "") throw bad("a send has no ok variable");
  return { kind, channel, value, ok };
}

function checkCases(
  cases: readonly string[],
  blocks: readonly number[],
  ctx: CheckContext,
): void {
  if (cases.length !== blocks.length) {
    throw new RangeError(
      `${cases.length} cases but ${blocks.length} sub_blocks`,
    );
  }
  const parsed = cases.map(parseSelectCase);
  if (parsed.filter((c) => c.kind === "default").length > 1) {
    throw new RangeError("more than one default case");
  }
  for (const c of parsed) {
    const expect = (name: string, kind: string) => {
      if (name === "") return;
      const info = ctx.lookup(name);
      if (info === undefined) {
        throw new RangeError(`case variable "${name}" is not declared`);
      }
      if (info.kind !== kind) {
        throw new RangeError(
          `case variable "${name}" is a ${info.kind}, not a ${kind}`,
        );
      }
    };
    expect(c.channel, "channel");
    expect(c.value, "tensor");
    expect(c.ok, "tensor");
  }
}

interface PreparedCase {
  readonly kind: SelectCaseText["kind"];
  readonly channel: VarRef | undefined;
  readonly value: VarRef | undefined;
  readonly ok: VarRef | undefined;
  readonly body: PreparedBlock;
}

const selectOp = defineOp({
  type: "select",
  impure: () => "waits on channels",
  summary:
    "runs the block of one ready case (random among ready; default if none)",
  inputs: { X: slot.any({ duplicable: true, optional: true }) },
  outputs: {},
  attrs: { cases: attr.required("strings"), sub_blocks: attr.blocks() },
  check: (a, ctx) => checkCases(a.cases, a.sub_blocks, ctx),
  namedVariables(a) {
    const reads: string[] = [];
    const writes: string[] = [];
    for (const text of a.cases) {
      const c = parseSelectCase(text);
      if (c.channel !== "") reads.push(c.channel);
      if (c.kind === "send") reads.push(c.value);
      else if (c.kind === "recv") {
        writes.push(...[c.value, c.ok].filter(Boolean));
      }
    }
    return { reads, writes };
  },
  prepare(ctx) {
    const { cases, sub_blocks } = ctx.attrs;
    const resolve = (
      name: string,
    ) => (name === "" ? undefined : ctx.resolve(name));
    const prepared: PreparedCase[] = cases.map((text, i) => {
      const c = parseSelectCase(text);
      return {
        kind: c.kind,
        channel: resolve(c.channel),
        value: resolve(c.value),
        ok: resolve(c.ok),
        body: ctx.block(sub_blocks[i]),
      };
    });
    // A parked select returns PARKED (local or shared alike), and
    // `resume` runs the chosen case; once that case's block has ended
    // after suspending, `resume` runs again with nothing.
    const [, block, index] = /^block (\d+) op (\d+)/.exec(ctx.location)!
      .map(Number);
    // Each case's site, asked of a recorded or replayed run's gate once.
    let sitesOf: ScheduleGate | undefined = undefined;
    let sites: number[] = [];
    // Each case's channel index, rewritten by every scheduled run of this
    // select (the gate reads it only before the select returns), and the
    // channel it is the index of (a select mostly sees the same channels).
    const channels: number[] = prepared.map(() => -1);
    const seen: unknown[] = prepared.map(() => NOT_SEEN);
    return {
      run(scope, thread) {
        const gate = thread.run.schedule;
        if (gate !== undefined) {
          if (gate !== sitesOf) {
            sites = prepared.map((_, i) =>
              gate.site(CASE_BASE + i, block, index)
            );
            sitesOf = gate;
            seen.fill(NOT_SEEN);
          }
          return scheduledSelect(prepared, scope, thread, sites, {
            channels,
            seen,
          });
        }
        const chosen = choose(prepared.map((c) => toCase(c, scope)), thread);
        if (chosen instanceof Promise) return chosen;
        return finish(prepared, chosen, scope, thread);
      },
      resume(scope, chosen, thread) {
        if (chosen === undefined) return; // the case's block has ended
        const result = chosen as SelectResult;
        thread.run.schedule?.chose(thread.thread, result.index);
        return finish(prepared, result, scope, thread);
      },
    };
  },
});

// A case's channel no scheduled select has seen yet.
const NOT_SEEN = Symbol("not seen");

// A select of a recorded or replayed run (runtime/core/schedule_gate.ts):
// recording, it runs as usual between the gate's enter and leave, and its
// choice is noted; replaying, every case but the recorded one is made a
// nil channel, so the select takes that one, in its turn.
function scheduledSelect(
  prepared: readonly PreparedCase[],
  scope: Scope,
  thread: ThreadContext,
  sites: readonly number[],
  indices: { channels: number[]; seen: unknown[] },
): void | Promise<unknown> {
  const gate = thread.run.schedule!;
  const cases = prepared.map((c) => toCase(c, scope));
  const { channels, seen } = indices;
  for (let i = 0; i < cases.length; i++) {
    const ch = cases[i].recv ?? cases[i].send;
    if (ch === seen[i]) continue;
    channels[i] = ch === undefined || ch === null ? -1 : gate.indexOf(ch);
    seen[i] = ch;
  }
  const forced = gate.enterSelect(channels, thread.thread, sites);
  if (forced !== -2) {
    for (let i = 0; i < cases.length; i++) {
      if (i === forced) continue;
      const c = cases[i];
      cases[i] = c.send !== undefined
        ? { send: null, value: c.value }
        : { recv: null };
    }
  }
  let chosen: SelectResult | Promise<SelectResult>;
  try {
    chosen = choose(cases, thread);
  } catch (e) {
    // A send on a closed channel panics while choosing; replay lets that
    // select choose freely, as it did (its draws are the thread's own).
    if (forced === -2) gate.chose(thread.thread, -2);
    throw e;
  } finally {
    gate.leaveSelect(channels, forced);
  }
  if (chosen instanceof Promise) return chosen;
  gate.chose(thread.thread, chosen.index);
  return finish(prepared, chosen, scope, thread);
}

// Chooses among `cases` with the select of the thread's run: one worker's
// channels, or the pool's shared ones.
function choose(
  cases: AnyCase[],
  thread: ThreadContext,
): SelectResult | Promise<SelectResult> {
  const pool = poolOf(thread.run);
  return pool === undefined
    ? select(cases as SelectCase[], thread.resumeAs)
    : selectShared(
      pool.member,
      cases as SharedCase[],
      thread.thread.random,
      thread.thread,
      thread.resumer,
    );
}

// Send values and channels are read here, once, when the select starts.
// A case as both selects take it: channels of one worker for select(),
// shared ones for selectShared() (a pooled run has only those).
interface AnyCase {
  recv?: TensorChannel | null;
  send?: TensorChannel | null;
  value?: Tensor;
  default?: true;
}

function toCase(c: PreparedCase, scope: Scope): AnyCase {
  if (c.kind === "default") return { default: true };
  const ch = c.channel!.channel(scope);
  if (c.kind === "recv") return { recv: ch };
  const value = c.value!.tensor(scope);
  if (ch !== null) checkElementType(ch, value);
  return { send: ch, value };
}

function finish(
  cases: readonly PreparedCase[],
  result: SelectResult,
  scope: Scope,
  thread: ThreadContext,
): void | Promise<void> {
  const c = cases[result.index];
  const tracer = thread.run.tracer;
  if (tracer !== undefined) traceCase(tracer, c, result, scope, thread);
  if (c.kind === "recv") {
    c.value?.write(scope, result.value as Tensor);
    c.ok?.write(scope, statusTensor(result.ok));
  }
  return runSubBlock(c.body, new Scope(c.body.layout, scope), thread);
}

// Tells a traced run which case the select took, and links the value it
// sent or received to its other end (a shared channel's send links itself,
// through its codec).
function traceCase(
  tracer: RunTracer,
  c: PreparedCase,
  result: SelectResult,
  scope: Scope,
  thread: ThreadContext,
): void {
  tracer.selected(thread.thread, result.index, c.kind);
  const ch = c.channel?.channel(scope);
  if (ch === undefined || ch === null) return;
  if (c.kind === "recv") tracer.flows.received(thread.thread, ch, result.value);
  else if (c.kind === "send" && !(ch instanceof SharedChannel)) {
    tracer.flows.sent(thread.thread, ch, c.value!.tensor(scope), true);
  }
}

/**
 * The select op.
 *
 * @example Usage
 * ```ts
 * import { SELECT_OPS } from "./select.ts";
 * import { assert } from "@std/assert";
 *
 * assert(SELECT_OPS.some((def) => def.type === "select"));
 * ```
 */
export const SELECT_OPS: readonly OpDef[] = [selectOp];
