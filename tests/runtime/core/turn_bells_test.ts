// TurnBells: a moved cursor wakes the bells of its channel and the
// drain's here, and posts to other workers only when they have bells.

import { assertEquals } from "@std/assert";
import { DRAIN, TurnBells } from "../../../runtime/core/turn_bells.ts";
import {
  BELLS,
  CHANNEL_WORDS,
  HEADER,
  scheduleCounters,
  WAITING,
} from "../../../runtime/core/schedule_counters.ts";

Deno.test("TurnBells.ring() wakes the channel's bells and the drain's", () => {
  const bells = new TurnBells(scheduleCounters(64, false), 0, 1);
  const one = bells.add(1);
  const two = bells.add(2);
  const drain = bells.add(DRAIN);
  bells.ring(1);
  assertEquals(one.tryRecv().state, "ok");
  assertEquals(drain.tryRecv().state, "ok");
  assertEquals(two.tryRecv().state, "empty");
  bells.wakeAll();
  assertEquals(two.tryRecv().state, "ok");
});

Deno.test("TurnBells counts bells so that other workers post only when needed", () => {
  const counters = scheduleCounters(64, true);
  const here = new TurnBells(counters, 0, 2);
  const there = new TurnBells(counters, 1, 2);
  const posted: number[][] = [];
  here.wakeWorkers = (workers) => posted.push(workers);
  here.ring(3);
  assertEquals(posted, []); // nobody waits for channel 3
  const bell = there.add(3);
  assertEquals(counters[WAITING + 1], 1);
  assertEquals(counters[HEADER + 3 * CHANNEL_WORDS + BELLS], 1);
  here.ring(3);
  assertEquals(posted, [[1]]);
  there.remove(3, bell);
  assertEquals(counters[WAITING + 1], 0);
  here.ring(3);
  assertEquals(posted, [[1]]);
});
