// buildRecord: every worker's entries become channels in index order,
// attempts in sequence order, a select's attempts only on its chosen case.

import { assertEquals } from "@std/assert";
import { buildRecord, compact } from "../../../runtime/core/record_building.ts";
import {
  ATTEMPT,
  CHOICE,
  MADE,
  RecordEntries,
} from "../../../runtime/core/record_entries.ts";
import { CASE_BASE, RECV, SEND } from "../../../runtime/core/schedule_file.ts";

// A worker's entries, published in a counter of their own.
function entriesOf(): { entries: RecordEntries; all: () => Int32Array[] } {
  const counters = new Int32Array(new SharedArrayBuffer(4));
  const entries = new RecordEntries({ counters, word: 0 });
  return { entries, all: () => entries.chunks(counters[0]) };
}

Deno.test("buildRecord() orders attempts by sequence over all workers", () => {
  const { entries: main, all: mainChunks } = entriesOf();
  const { entries: worker, all: workerChunks } = entriesOf();
  main.append(MADE, 0, 0, 0, 0, 0, 0, 0); // channel 0, made by main
  // Worker 1's thread (key 5) made the channel's attempts 0 and 2, main 1.
  worker.append(ATTEMPT, 0, 2, 5, 1, 4, SEND, -1);
  main.append(ATTEMPT, 0, 1, 0, 0, 3, RECV, -1);
  worker.append(ATTEMPT, 0, 0, 5, 1, 4, SEND, -1);
  const record = buildRecord(
    [...mainChunks(), ...workerChunks()],
    new Uint8Array(32),
    4,
  );
  assertEquals(record.seed, 4);
  assertEquals(record.channels.length, 1);
  assertEquals(record.channels[0].creator, 0);
  const t = record.threads.indexOf(5);
  assertEquals([...record.channels[0].events], [
    ...[t, SEND, 1, 4],
    ...[0, RECV, 0, 3],
    ...[t, SEND, 1, 4],
  ]);
});

Deno.test("buildRecord() keeps a select's attempt on the case it chose", () => {
  const { entries, all } = entriesOf();
  entries.append(MADE, 0, 0, 0, 0, 0, 0, 0);
  entries.append(MADE, 1, 0, 1, 0, 0, 0, 0);
  // Select 0 of main, on channels 0 and 1 (cases 0 and 1); it took 1.
  entries.append(ATTEMPT, 0, 0, 0, 0, 7, CASE_BASE, 0);
  entries.append(ATTEMPT, 1, 0, 0, 0, 7, CASE_BASE + 1, 0);
  entries.append(CHOICE, 0, 0, 1, 0, 0, 0, 0);
  // Then a plain send on channel 0.
  entries.append(ATTEMPT, 0, 1, 0, 0, 9, SEND, -1);
  const record = buildRecord(all(), new Uint8Array(32), 1);
  assertEquals([...record.channels[0].events], [0, SEND, 0, 9]);
  assertEquals([...record.channels[1].events], [0, CASE_BASE + 1, 0, 7]);
  assertEquals(record.choices, [[1]]);
});

Deno.test("compact() drops empty slots and keeps a full list as it is", () => {
  const full = new Int32Array([0, SEND, 0, 1]);
  assertEquals(compact(full), full);
  assertEquals(
    [...compact(
      new Int32Array([1, RECV, 0, 2, -1, -1, -1, -1, 2, SEND, 0, 3]),
    )],
    [1, RECV, 0, 2, 2, SEND, 0, 3],
  );
});
