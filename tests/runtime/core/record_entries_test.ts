// RecordEntries: a pooled worker's entries, in chunks that are never
// copied; the main thread adopts the other workers' chunks.

import { assertEquals } from "@std/assert";
import {
  ATTEMPT,
  CHOICE,
  ENTRY,
  RecordEntries,
} from "../../../runtime/core/record_entries.ts";

Deno.test("RecordEntries grows chunk by chunk, counting words used", () => {
  const entries = new RecordEntries();
  const n = 10_000; // 80,000 words: past one chunk of 65,536
  for (let i = 0; i < n; i++) entries.append(ATTEMPT, 0, i, 1, 2, 3, 0, -1);
  const chunks = entries.chunks();
  assertEquals(chunks.length, 2);
  const seqs: number[] = [];
  for (const chunk of chunks) {
    for (let at = ENTRY; at < chunk[0]; at += ENTRY) seqs.push(chunk[at + 2]);
  }
  assertEquals(seqs, Array.from({ length: n }, (_, i) => i));
});

Deno.test("RecordEntries.adopt() takes in another worker's chunks", () => {
  const main = new RecordEntries();
  const worker = new RecordEntries();
  worker.append(CHOICE, 9, 0, 1, 0, 0, 0, 0);
  main.adopt(worker.chunks());
  const chunks = main.chunks();
  assertEquals(chunks.length, 2);
  assertEquals([...chunks[0].subarray(ENTRY, 2 * ENTRY)], [
    CHOICE,
    9,
    0,
    1,
    0,
    0,
    0,
    0,
  ]);
});
