// ScheduleRecorder driven by hand: a pool's recording keeps every
// attempt, however many, up to where the main thread read what the workers
// published; one worker's keeps a select's chosen case only.

import { assertEquals } from "@std/assert";
import { ScheduleRecorder } from "../../../runtime/core/schedule_recorder.ts";
import { entriesUpTo } from "../../../runtime/core/record_entries.ts";
import {
  CASE_BASE,
  decodeSchedule,
  EVENT_WORDS,
  RECV,
  SEND,
} from "../../../runtime/core/schedule_file.ts";
import { Scheduler } from "../../../scheduler/scheduler.ts";
import { Channel } from "../../../scheduler/channel.ts";

Deno.test("ScheduleRecorder keeps a pool's recording past 2^21 attempts", async () => {
  // A recorder as a pool's main thread has it, fed one send more than the
  // 2^21 attempts a pool's recording once had room for (in a fixed shared
  // buffer): its entries grow, chunk by chunk, and the record keeps them.
  const gate = new ScheduleRecorder(0, 2);
  const attempts = (1 << 21) + 1;
  await new Scheduler({ seed: 1 }).run((main) => {
    const ch = new Channel<unknown>(1);
    gate.made(ch, main);
    const site = gate.site(SEND, 0, 4);
    const c = gate.indexOf(ch);
    for (let i = 0; i < attempts; i++) {
      gate.enter(c, main, site);
      gate.leave(c);
    }
  });
  const record = decodeSchedule(gate.encode(new Uint8Array(32), 1), "r");
  const events = record.channels[0].events;
  assertEquals(events.length, attempts * EVENT_WORDS);
  assertEquals(
    [...events.subarray(events.length - EVENT_WORDS)],
    [0, SEND, 0, 4],
  );
});

for (const workers of [1, 2]) {
  Deno.test(`ScheduleRecorder keeps only a select's chosen case (${workers} worker${workers > 1 ? "s" : ""})`, async () => {
    const gate = new ScheduleRecorder(0, workers);
    await new Scheduler({ seed: 1 }).run((main) => {
      const a = new Channel<unknown>(1);
      const b = new Channel<unknown>(1);
      gate.made(a, main);
      gate.made(b, main);
      const channels = [gate.indexOf(a), gate.indexOf(b)];
      const cases = [
        gate.site(CASE_BASE, 0, 6),
        gate.site(CASE_BASE + 1, 0, 6),
      ];
      const recv = gate.site(RECV, 0, 8);
      assertEquals(gate.enterSelect(channels, main, cases), -2);
      gate.leaveSelect(channels, -2);
      gate.chose(main, 1);
      gate.enter(channels[0], main, recv);
      gate.leave(channels[0]);
    });
    const record = decodeSchedule(gate.encode(new Uint8Array(32), 1), "r");
    assertEquals(record.channels.map((c) => [...c.events]), [
      [0, RECV, 0, 8],
      [0, CASE_BASE + 1, 0, 6],
    ]);
    assertEquals(record.choices, [[1]]);
  });
}

// Worker 1's recorder over the main thread's counters, its chunks posted
// to `chunks`.
function workerRecorder(
  main: ScheduleRecorder,
): { other: ScheduleRecorder; chunks: Int32Array[] } {
  const other = new ScheduleRecorder(1, 2, main.shared);
  const chunks: Int32Array[] = [];
  other.postChunksTo((chunk) => chunks.push(chunk));
  return { other, chunks };
}

Deno.test("ScheduleRecorder orders a pool's attempts as the channel's lock took them", async () => {
  // Two workers' recorders over one set of counters: worker 1's attempt
  // enters later but reaches the channel's lock (`attempted`) first.
  const main = new ScheduleRecorder(0, 2);
  const { other, chunks } = workerRecorder(main);
  await new Scheduler({ seed: 1 }).run((thread) => {
    const child = thread.scheduler.go(() => {});
    const ch = new Channel<unknown>(1);
    main.made(ch, thread);
    const c = main.indexOf(ch);
    const tag = (c + 1) << 8; // as a shared channel's tag carries it
    main.enter(c, thread, main.site(SEND, 0, 3));
    other.enter(c, child, other.site(RECV, 1, 2));
    other.attempted(tag);
    main.attempted(tag);
    main.attempted(tag); // a second lock taken by the same attempt: no new number
    other.leave(c);
    main.leave(c);
  });
  main.adopt(entriesUpTo(chunks, main.publishedWords()[1]));
  const record = decodeSchedule(main.encode(new Uint8Array(32), 1), "r");
  assertEquals([...record.channels[0].events], [1, RECV, 1, 2, 0, SEND, 0, 3]);
});

Deno.test("ScheduleRecorder's pooled record ends where the published words were read", async () => {
  // Worker 1's attempt has reached the channel's lock but not `leave`
  // when the main thread reads what each worker published (the run
  // ended): it is in the record, as its number was taken; what either
  // worker records afterwards is not.
  const main = new ScheduleRecorder(0, 2);
  const { other, chunks } = workerRecorder(main);
  let words: number[] = [];
  await new Scheduler({ seed: 1 }).run((thread) => {
    const child = thread.scheduler.go(() => {});
    const ch = new Channel<unknown>(1);
    main.made(ch, thread);
    const c = main.indexOf(ch);
    const tag = (c + 1) << 8;
    main.enter(c, thread, main.site(SEND, 0, 3));
    main.attempted(tag);
    main.leave(c);
    other.enter(c, child, other.site(RECV, 1, 2));
    other.attempted(tag);
    words = main.publishedWords();
    other.leave(c);
    main.enter(c, thread, main.site(SEND, 0, 3));
    main.attempted(tag);
    main.leave(c);
  });
  main.adopt(entriesUpTo(chunks, words[1]));
  const record = decodeSchedule(main.encode(new Uint8Array(32), 1), "r");
  assertEquals([...record.channels[0].events], [0, SEND, 0, 3, 1, RECV, 1, 2]);
});
