// The schedule gates' counters: one layout, shared on a pool, private and
// growable on one worker.

import { assert, assertEquals } from "@std/assert";
import {
  CHANNEL_WORDS,
  grownCounters,
  HEADER,
  scheduleCounters,
  SEQ,
} from "../../../runtime/core/schedule_counters.ts";

Deno.test("scheduleCounters() is shared on a pool, private on one worker", () => {
  assert(scheduleCounters(4, true).buffer instanceof SharedArrayBuffer);
  assert(!(scheduleCounters(4, false).buffer instanceof SharedArrayBuffer));
});

Deno.test("scheduleCounters() maps the main thread's counters on a worker", () => {
  const main = scheduleCounters(4, true);
  const worker = scheduleCounters(4, true, {
    counters: main.buffer as SharedArrayBuffer,
  });
  worker[HEADER + 2 * CHANNEL_WORDS + SEQ] = 5;
  assertEquals(main[HEADER + 2 * CHANNEL_WORDS + SEQ], 5);
});

Deno.test("grownCounters() keeps the words and at least doubles", () => {
  const counters = scheduleCounters(1, false);
  counters[HEADER + SEQ] = 9;
  const grown = grownCounters(counters, counters.length + 1);
  assertEquals(grown.length, counters.length * 2);
  assertEquals(grown[HEADER + SEQ], 9);
  const need = 4 * counters.length + 1;
  assertEquals(grownCounters(counters, need).length, need);
});
