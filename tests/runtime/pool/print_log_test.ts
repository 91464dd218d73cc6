// The print log: entries linked oldest first between LogHead and LogTail,
// appended and read by workers whose views may end before them.

import { assert, assertEquals } from "@std/assert";
import {
  appendLine,
  hasLines,
  lineOf,
  LogEntry,
  nextLine,
  takeLines,
} from "../../../runtime/pool/_print_log.ts";
import { ByteBlob } from "../../../runtime/pool/_byte_blob.ts";
import { Global, SharedHeap } from "../../../scheduler/shared/heap.ts";
import {
  assertBeyondViews,
  grownHeap,
} from "../../scheduler/shared/_grown_heap.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function append(heap: SharedHeap, line: string): number {
  heap.lock();
  const entry = appendLine(heap, encoder.encode(line));
  heap.unlock();
  return entry;
}

function take(heap: SharedHeap): string[] {
  heap.lock();
  let entry = takeLines(heap);
  heap.unlock();
  const lines: string[] = [];
  while (entry !== 0) {
    lines.push(decoder.decode(lineOf(heap, entry)));
    entry = nextLine(heap, entry);
  }
  return lines;
}

Deno.test("appendLine() links entries through LogEntry.Next between LogHead and LogTail", () => {
  const heap = SharedHeap.create();
  const a = append(heap, "a");
  const b = append(heap, "bb");
  assertEquals(heap.i32[Global.LogHead], a);
  assertEquals(heap.i32[Global.LogTail], b);
  assertEquals(heap.i32[(a >> 2) + LogEntry.Next], b);
  assertEquals(heap.i32[(b >> 2) + LogEntry.Next], 0);
  // The line is a byte blob from word LogEntry.Line.
  const line = (b >> 2) + LogEntry.Line;
  assertEquals(heap.i32[line + ByteBlob.Length], 2);
  assertEquals(heap.u8[4 * (line + ByteBlob.Bytes)], "b".charCodeAt(0));
});

Deno.test("takeLines() hands over every line in order and empties the log", () => {
  const heap = SharedHeap.create();
  assert(!hasLines(heap));
  for (const line of ["one", "", "drei ü"]) append(heap, line);
  assert(hasLines(heap));
  assertEquals(take(heap), ["one", "", "drei ü"]);
  assert(!hasLines(heap));
  assertEquals([heap.i32[Global.LogHead], heap.i32[Global.LogTail]], [0, 0]);
  append(heap, "again");
  assertEquals(take(heap), ["again"]);
});

Deno.test("appendLine() links from a newest entry beyond this worker's views", () => {
  const heap = SharedHeap.create();
  const stale = new SharedHeap(heap.memory);
  heap.lock();
  const low = heap.allocData(24); // an entry's class, within both views
  heap.allocData(200 * 1024 * 1024); // grows the memory
  heap.unlock();
  const first = append(heap, "from the worker that grew the memory");
  heap.lock();
  heap.freeData(low);
  heap.unlock();
  // The stale worker's entry comes from the free list, within its views;
  // the entry it links from does not.
  assertBeyondViews(stale, first);
  assertEquals(append(stale, "from older views"), low);
  assertEquals(take(heap), [
    "from the worker that grew the memory",
    "from older views",
  ]);
});

Deno.test("lineOf() and nextLine() read entries beyond this worker's views", () => {
  const { heap, stale } = grownHeap();
  const first = append(heap, "x");
  append(heap, "y");
  assertBeyondViews(stale, first);
  assertEquals(take(stale), ["x", "y"]);
});

Deno.test("nextLine() must come before the entry is freed: a free reuses its word", () => {
  const heap = SharedHeap.create();
  const a = append(heap, "a");
  const b = append(heap, "b");
  heap.lock();
  heap.freeData(heap.allocData(16)); // a free list for the entries' class
  assertEquals(nextLine(heap, a), b);
  heap.freeData(a);
  heap.unlock();
  assert(nextLine(heap, a) !== b, "the word now links the free list");
});
