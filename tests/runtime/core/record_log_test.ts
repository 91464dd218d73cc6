// RecordLog: attempts in order, across chunks; a flipped site; full
// chunks reused by the next recording.

import { assertEquals } from "@std/assert";
import { RecordLog } from "../../../runtime/core/record_log.ts";

function words(log: RecordLog): number[] {
  return log.chunks().flatMap((c) => [...c]);
}

Deno.test("RecordLog keeps attempts in order across chunks", () => {
  const log = new RecordLog();
  const n = 12_000; // past two chunks of 5,461 attempts
  const places: number[] = [];
  for (let i = 0; i < n; i++) places.push(log.add(i % 3, i, i % 5));
  assertEquals(log.chunks().length, 3);
  const all = words(log);
  assertEquals(all.length, 3 * n);
  assertEquals(all.slice(3 * 9000, 3 * 9000 + 3), [0, 9000, 0]);
  // A place names its attempt, in any chunk.
  log.flip(places[6000]);
  assertEquals(words(log)[3 * 6000 + 2], ~(6000 % 5));
  log.flip(places[6000]);
  assertEquals(words(log)[3 * 6000 + 2], 6000 % 5);
  log.recycle();
});

Deno.test("RecordLog.recycle() empties the log for the next recording", () => {
  const log = new RecordLog();
  for (let i = 0; i < 6000; i++) log.add(1, 2, 3);
  log.recycle();
  assertEquals(words(log), []);
  // A fresh log starts empty even on reused chunks.
  const next = new RecordLog();
  next.add(4, 5, 6);
  assertEquals(words(next), [4, 5, 6]);
  next.recycle();
});
