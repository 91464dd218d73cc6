// RecordEntries: a pooled worker's entries, in shared chunks that are
// never copied, each posted as it is made, with the words filled published
// after each entry; the main thread reads up to a published count.

import { assert, assertEquals } from "@std/assert";
import {
  ATTEMPT,
  CHUNK,
  chunksHolding,
  entriesUpTo,
  ENTRY,
  RecordEntries,
} from "../../../runtime/core/record_entries.ts";

function sharedCounters(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(16));
}

Deno.test("RecordEntries posts each chunk before publishing words in it", () => {
  const counters = sharedCounters();
  const posted: { chunk: Int32Array; published: number }[] = [];
  const entries = new RecordEntries({
    counters,
    word: 2,
    post: (chunk) => posted.push({ chunk, published: counters[2] }),
  });
  assertEquals(posted.length, 0); // nothing made before the first entry
  const n = 10_000; // 80,000 words: past one chunk of 65,536
  for (let i = 0; i < n; i++) entries.append(ATTEMPT, 0, i, 1, 2, 3, 0, -1);
  assertEquals(counters[2], n * ENTRY);
  assertEquals(posted.map((p) => p.published), [0, CHUNK]);
  assert(posted.every((p) => p.chunk.buffer instanceof SharedArrayBuffer));
  assertEquals(chunksHolding(counters[2]), posted.length);
  const seqs: number[] = [];
  const views = entriesUpTo(posted.map((p) => p.chunk), counters[2]);
  for (const view of views) {
    for (let at = 0; at < view.length; at += ENTRY) seqs.push(view[at + 2]);
  }
  assertEquals(seqs, Array.from({ length: n }, (_, i) => i));
});

Deno.test("RecordEntries.chunks() ends at a published count", () => {
  const counters = sharedCounters();
  const entries = new RecordEntries({ counters, word: 0 });
  entries.append(ATTEMPT, 0, 0, 1, 2, 3, 0, -1);
  const end = counters[0];
  entries.append(ATTEMPT, 0, 1, 1, 2, 3, 0, -1); // after the end
  assertEquals(entries.chunks(end).map((c) => [...c]), [
    [ATTEMPT, 0, 0, 1, 2, 3, 0, -1],
  ]);
  assertEquals(entries.chunks(Infinity)[0].length, 2 * ENTRY);
  assertEquals(entries.chunks(0), []);
});

Deno.test("RecordEntries.reserve() posts the chunk the next appends need, before them", () => {
  const counters = sharedCounters();
  const posted: number[] = [];
  const entries = new RecordEntries({
    counters,
    word: 0,
    post: () => posted.push(counters[0]),
  });
  entries.reserve(1);
  assertEquals(posted, [0]); // the first chunk, before any entry
  for (let i = 0; i < CHUNK / ENTRY - 1; i++) {
    entries.append(ATTEMPT, 0, i, 1, 2, 3, 0, -1);
  }
  entries.reserve(1); // room for one more: nothing made
  assertEquals(posted.length, 1);
  entries.reserve(2); // a select's two cases: the next chunk, made now
  assertEquals(posted, [0, CHUNK - ENTRY]);
  entries.append(ATTEMPT, 0, CHUNK, 1, 2, 3, 0, -1);
  entries.append(ATTEMPT, 0, CHUNK + 1, 1, 2, 3, 0, -1);
  assertEquals(posted.length, 2); // the appends made none
  assertEquals(counters[0], CHUNK + ENTRY);
  assertEquals(entries.chunks(counters[0]).map((c) => c.length), [CHUNK, 8]);
});
