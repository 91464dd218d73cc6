// What a replay that cannot go on reports (`--replay`): the divergence a
// thread waiting for its turn shows, or, once the main thread's program
// has ended, the first recorded attempt that never came. Read from the
// gates' counters (schedule_counters.ts), which every worker's waiters
// and cursors write, so the main thread names a wait on any worker.

import { ProgramError } from "./errors.ts";
import {
  CASE_BASE,
  EVENT_WORDS,
  eventAt,
  type ScheduleEvent,
  type ScheduleRecord,
} from "./schedule_file.ts";
import {
  CHANNEL_WORDS,
  HEADER,
  SEQ,
  W_BLOCK,
  W_KIND,
  W_OP,
  W_THREAD,
} from "./schedule_counters.ts";

const KIND_NAMES = ["send", "recv", "close"];

/**
 * An attempt as an error names it: "recv by thread 2 at block 1 op 3"
 * (a thread is named by its index in the record; 0 is the main thread).
 *
 * @param e The attempt.
 * @returns Its description.
 *
 * @example Usage
 * ```ts
 * import { describeAttempt } from "./replay_stall.ts";
 * import { RECV } from "./schedule_file.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(
 *   describeAttempt({ thread: 2, kind: RECV, block: 1, op: 3 }),
 *   "recv by thread 2 at block 1 op 3",
 * );
 * ```
 */
export function describeAttempt(e: ScheduleEvent): string {
  const what = e.kind < CASE_BASE
    ? KIND_NAMES[e.kind]
    : `select case ${e.kind - CASE_BASE}`;
  const who = e.thread < 0
    ? "a thread not in the record"
    : e.thread === 0
    ? "the main thread"
    : `thread ${e.thread}`;
  return `${what} by ${who} at block ${e.block} op ${e.op}`;
}

/**
 * The first channel whose recorded attempts were not all made, or -1.
 *
 * @param record The record being replayed.
 * @param counters The replay's counters.
 * @returns The channel's index, or -1.
 *
 * @example Usage
 * ```ts
 * import { unusedChannel } from "./replay_stall.ts";
 * import { scheduleCounters } from "./schedule_counters.ts";
 * import { SEND } from "./schedule_file.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const record = {
 *   fingerprint: new Uint8Array(32),
 *   seed: 1,
 *   threads: [0],
 *   channels: [{ creator: 0, ordinal: 0, events: new Int32Array([0, SEND, 0, 1]) }],
 *   choices: [[]],
 * };
 * assertEquals(unusedChannel(record, scheduleCounters(64, false)), 0);
 * ```
 */
export function unusedChannel(
  record: ScheduleRecord,
  counters: Int32Array,
): number {
  const channels = record.channels;
  for (let c = 0; c < channels.length; c++) {
    const at = Atomics.load(counters, HEADER + c * CHANNEL_WORDS + SEQ);
    if (at * EVENT_WORDS < channels[c].events.length) return c;
  }
  return -1;
}

/**
 * The error of a replay that stalled (every thread blocked): when the
 * main thread's program had ended (`drained`), the first recorded attempt
 * never made; else the divergence a thread waiting for its turn shows.
 *
 * @param record The record being replayed.
 * @param counters The replay's counters.
 * @param drained Whether the main thread waited for the record's end.
 * @returns The error, or undefined when no thread waited for a turn.
 *
 * @example Usage
 * ```ts
 * import { stallError } from "./replay_stall.ts";
 * import { scheduleCounters } from "./schedule_counters.ts";
 * import { SEND } from "./schedule_file.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const record = {
 *   fingerprint: new Uint8Array(32),
 *   seed: 1,
 *   threads: [0],
 *   channels: [{ creator: 0, ordinal: 0, events: new Int32Array([0, SEND, 0, 1]) }],
 *   choices: [[]],
 * };
 * assertEquals(
 *   stallError(record, scheduleCounters(64, false), true)?.message,
 *   "--replay: the run ended before its record: channel 0 expected send by the main thread at block 0 op 1 (event 1 of 1), which never came",
 * );
 * ```
 */
export function stallError(
  record: ScheduleRecord,
  counters: Int32Array,
  drained: boolean,
): ProgramError | undefined {
  const unused = drained ? unusedChannel(record, counters) : -1;
  if (unused >= 0) {
    const at = Atomics.load(counters, HEADER + unused * CHANNEL_WORDS + SEQ);
    const events = record.channels[unused].events;
    return new ProgramError(
      `--replay: the run ended before its record: channel ${unused} expected ${
        describeAttempt(eventAt(events, at)!)
      } (event ${at + 1} of ${events.length / EVENT_WORDS}), which never came`,
    );
  }
  for (let c = 0; c < record.channels.length; c++) {
    const w = HEADER + c * CHANNEL_WORDS;
    const t = Atomics.load(counters, w + W_THREAD) - 2;
    if (t < -1) continue; // nobody waits here
    const actual = describeAttempt({
      thread: t,
      kind: counters[w + W_KIND],
      block: counters[w + W_BLOCK],
      op: counters[w + W_OP],
    });
    const at = Atomics.load(counters, w + SEQ);
    const next = eventAt(record.channels[c].events, at);
    const expected = next === undefined
      ? "no more events on it"
      : describeAttempt(next);
    return new ProgramError(
      `--replay: diverged on channel ${c}: expected ${expected}, actual ${actual} (waiting)`,
    );
  }
  return undefined;
}
