// stallError: what a stalled replay names, read from the counters.

import { assertEquals } from "@std/assert";
import {
  describeAttempt,
  stallError,
  unusedChannel,
} from "../../../runtime/core/replay_stall.ts";
import {
  CHANNEL_WORDS,
  HEADER,
  scheduleCounters,
  SEQ,
  W_BLOCK,
  W_KIND,
  W_OP,
  W_THREAD,
} from "../../../runtime/core/schedule_counters.ts";
import {
  CASE_BASE,
  CLOSE,
  RECV,
  type ScheduleRecord,
  SEND,
} from "../../../runtime/core/schedule_file.ts";

// Channel 0: main sends, thread 1 receives; channel 1: thread 1 closes.
const record: ScheduleRecord = {
  fingerprint: new Uint8Array(32),
  seed: 1,
  threads: [0, 5],
  channels: [
    {
      creator: 0,
      ordinal: 0,
      events: new Int32Array([0, SEND, 0, 2, 1, RECV, 1, 1]),
    },
    { creator: 0, ordinal: 1, events: new Int32Array([1, CLOSE, 1, 4]) },
  ],
  choices: [[], []],
};

Deno.test("describeAttempt() names the attempt and its thread", () => {
  assertEquals(
    describeAttempt({ thread: 0, kind: CASE_BASE + 1, block: 2, op: 5 }),
    "select case 1 by the main thread at block 2 op 5",
  );
  assertEquals(
    describeAttempt({ thread: -1, kind: CLOSE, block: 0, op: 1 }),
    "close by a thread not in the record at block 0 op 1",
  );
});

Deno.test("unusedChannel() finds the first channel whose record is left", () => {
  const counters = scheduleCounters(64, false);
  assertEquals(unusedChannel(record, counters), 0);
  counters[HEADER + SEQ] = 2;
  assertEquals(unusedChannel(record, counters), 1);
  counters[HEADER + CHANNEL_WORDS + SEQ] = 1;
  assertEquals(unusedChannel(record, counters), -1);
});

Deno.test("stallError() names the first attempt that never came once drained", () => {
  const counters = scheduleCounters(64, false);
  counters[HEADER + SEQ] = 1;
  assertEquals(
    stallError(record, counters, true)?.message,
    "--replay: the run ended before its record: channel 0 expected recv by thread 1 at block 1 op 1 (event 2 of 2), which never came",
  );
});

Deno.test("stallError() names a waiting thread's divergence", () => {
  const counters = scheduleCounters(64, false);
  const w = HEADER; // channel 0
  counters[w + W_THREAD] = 1 + 2; // thread 1 waits
  counters[w + W_KIND] = RECV;
  counters[w + W_BLOCK] = 1;
  counters[w + W_OP] = 6;
  assertEquals(
    stallError(record, counters, false)?.message,
    "--replay: diverged on channel 0: expected send by the main thread at block 0 op 2, actual recv by thread 1 at block 1 op 6 (waiting)",
  );
});

Deno.test("stallError() passes over channels nobody waits on", () => {
  const counters = scheduleCounters(64, false);
  assertEquals(stallError(record, counters, false), undefined);
  const w = HEADER + CHANNEL_WORDS; // channel 1
  counters[w + W_THREAD] = -1 + 2; // a thread not in the record waits
  counters[w + W_KIND] = SEND;
  counters[w + W_BLOCK] = 2;
  counters[w + W_OP] = 3;
  assertEquals(
    stallError(record, counters, false)?.message,
    "--replay: diverged on channel 1: expected close by thread 1 at block 1 op 4, actual send by a thread not in the record at block 2 op 3 (waiting)",
  );
});
