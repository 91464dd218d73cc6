// The record of a pooled recording, built from every worker's entries
// (record_entries.ts) up to where the run ended: channels in index order,
// each one's attempts by sequence number, a select's attempts kept only on
// the case it chose. A channel's sequence numbers are dense from 0, so each
// attempt has its slot without a sort.

import { ATTEMPT, CHOICE, ENTRY, MADE } from "./record_entries.ts";
import {
  CASE_BASE,
  EVENT_WORDS,
  type ScheduleRecord,
  ThreadNumbers,
} from "./schedule_file.ts";

/**
 * The record of a pooled recording.
 *
 * @param chunks Every worker's entries (views of its chunks holding whole
 * entries).
 * @param fingerprint The program's and feeds' fingerprint.
 * @param seed The run's seed.
 * @returns The record.
 *
 * @example Usage
 * ```ts
 * import { buildRecord } from "./record_building.ts";
 * import { ATTEMPT, MADE, RecordEntries } from "./record_entries.ts";
 * import { SEND } from "./schedule_file.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const counters = new Int32Array(new SharedArrayBuffer(4));
 * const entries = new RecordEntries({ counters, word: 0 });
 * entries.append(MADE, 0, 11, 0, 0, 0, 0, 0); // channel 0, made by key 11
 * entries.append(ATTEMPT, 0, 0, 11, 1, 2, SEND, -1); // its first attempt
 * const record = buildRecord(
 *   entries.chunks(counters[0]),
 *   new Uint8Array(32),
 *   1,
 * );
 * assertEquals(record.threads, [0, 11]); // 0: the main thread
 * assertEquals([...record.channels[0].events], [1, SEND, 1, 2]);
 * ```
 */
export function buildRecord(
  chunks: readonly Int32Array[],
  fingerprint: Uint8Array,
  seed: number,
): ScheduleRecord {
  const threads = new ThreadNumbers();
  const made: { creator: number; ordinal: number }[] = [];
  const choices: number[][] = [[]];
  const sizes: number[] = [];
  // First pass: channels, choices, and how many attempts each channel saw.
  for (const events of chunks) {
    for (let at = 0; at < events.length; at += ENTRY) {
      const type = events[at];
      const a = events[at + 1];
      if (type === MADE) {
        made[a] = {
          creator: threads.of(events[at + 2]),
          ordinal: events[at + 3],
        };
      } else if (type === CHOICE) {
        const t = threads.of(a);
        (choices[t] ??= [])[events[at + 2]] = events[at + 3];
      } else if (type === ATTEMPT) {
        sizes[a] = Math.max(sizes[a] ?? 0, events[at + 2] + 1);
      }
    }
  }
  // Each attempt in its slot (thread -1 marks a select's other cases).
  const slots = made.map((_, c) =>
    new Int32Array((sizes[c] ?? 0) * EVENT_WORDS).fill(-1)
  );
  for (const events of chunks) {
    for (let at = 0; at < events.length; at += ENTRY) {
      if (events[at] !== ATTEMPT) continue;
      const thread = threads.of(events[at + 3]);
      const kind = events[at + 6];
      const sel = events[at + 7];
      if (sel >= 0 && choices[thread]?.[sel] !== kind - CASE_BASE) continue;
      const list = slots[events[at + 1]];
      if (list === undefined) continue;
      const to = events[at + 2] * EVENT_WORDS;
      list[to] = thread;
      list[to + 1] = kind;
      list[to + 2] = events[at + 4];
      list[to + 3] = events[at + 5];
    }
  }
  const keys = threads.keys;
  for (let t = 0; t < keys.length; t++) {
    const list = choices[t] ??= [];
    for (let i = 0; i < list.length; i++) list[i] ??= -1;
  }
  const channels = made.map((m, c) => ({ ...m, events: compact(slots[c]) }));
  return { fingerprint, seed, threads: keys, channels, choices };
}

/**
 * A channel's slots without the empty ones (thread -1), in place when
 * some are empty.
 *
 * @param slots EVENT_WORDS words a slot.
 * @returns The events.
 *
 * @example Usage
 * ```ts
 * import { compact } from "./record_building.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const slots = new Int32Array([-1, -1, -1, -1, 2, 0, 1, 3]);
 * assertEquals([...compact(slots)], [2, 0, 1, 3]);
 * ```
 */
export function compact(slots: Int32Array): Int32Array {
  let to = 0;
  for (let from = 0; from < slots.length; from += EVENT_WORDS) {
    if (slots[from] < 0) continue;
    if (to !== from) slots.copyWithin(to, from, from + EVENT_WORDS);
    to += EVENT_WORDS;
  }
  return to === slots.length ? slots : slots.slice(0, to);
}
