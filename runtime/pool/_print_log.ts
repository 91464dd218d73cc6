/**
 * The run's print log: the lines that workers other than the main thread
 * print, in the run's order, until the main thread writes them out.
 *
 * The log is a list of entries in the data arena, oldest first, between
 * the global words LogHead and LogTail (heap.ts), both 0 while it is
 * empty. An entry is a link and the line's UTF-8 bytes as a byte blob
 * (_byte_blob.ts):
 *
 *   word LogEntry.Next   the next (newer) entry; 0 for the newest
 *   word LogEntry.Line   the line, a byte blob, to the entry's end
 *
 * Invariants:
 *   The log changes only with the heap's lock held: a worker appends an
 *   entry written whole, with Next 0, links it from the newest entry's
 *   Next (or LogHead) and points LogTail at it; the main thread takes the
 *   whole list at once, setting LogHead and LogTail to 0.
 *   A taken list is the main thread's alone: it reads the entries without
 *   the lock, and frees each one after reading its line and its Next (a
 *   free reuses the entry's first word as the free list's link).
 *   An entry may lie in memory that its worker grew past the other
 *   workers' views, and other workers touch it (the next appender links
 *   from it, the main thread reads it): every helper here covers an entry
 *   before touching it.
 *
 * @module
 */
import { Global, type SharedHeap } from "../../scheduler/shared/heap.ts";
import { byteBlobSize, readByteBlob, writeByteBlob } from "./_byte_blob.ts";

/**
 * A print log entry's words (word indices from the entry's first word).
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { appendLine, LogEntry } from "./_print_log.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const first = appendLine(heap, new Uint8Array([104, 105]));
 * const second = appendLine(heap, new Uint8Array([33]));
 * heap.unlock();
 * assertEquals(heap.i32[(first >> 2) + LogEntry.Next], second);
 * assertEquals(heap.i32[(first >> 2) + LogEntry.Line], 2); // the byte count
 * ```
 */
export const LogEntry = {
  /** The next (newer) entry; 0 for the newest. */
  Next: 0,
  /** The line: a byte blob to the entry's end. */
  Line: 1,
} as const;

/**
 * Appends a line to the log. Precondition: the lock is held.
 *
 * @param heap The heap.
 * @param line The line's UTF-8 bytes.
 * @returns The line's entry.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { appendLine, lineOf, takeLines } from "./_print_log.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const entry = appendLine(heap, new TextEncoder().encode("hello"));
 * assertEquals(takeLines(heap), entry);
 * heap.unlock();
 * assertEquals(new TextDecoder().decode(lineOf(heap, entry)), "hello");
 * ```
 */
export function appendLine(heap: SharedHeap, line: Uint8Array): number {
  const entry = heap.allocData(4 * LogEntry.Line + byteBlobSize(line.length));
  writeByteBlob(heap, entry + 4 * LogEntry.Line, line);
  heap.i32[(entry >> 2) + LogEntry.Next] = 0;
  const tail = heap.i32[Global.LogTail];
  if (tail === 0) heap.i32[Global.LogHead] = entry;
  else {heap.i32To(tail + 4 * LogEntry.Line)[(tail >> 2) + LogEntry.Next] =
      entry;}
  heap.i32[Global.LogTail] = entry;
  return entry;
}

/**
 * Whether the log holds lines: read without the lock, a hint.
 *
 * @param heap The heap.
 * @returns True if a `takeLines` would likely find some.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { appendLine, hasLines } from "./_print_log.ts";
 * import { assert } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * assert(!hasLines(heap));
 * heap.lock();
 * appendLine(heap, new Uint8Array([1]));
 * heap.unlock();
 * assert(hasLines(heap));
 * ```
 */
export function hasLines(heap: SharedHeap): boolean {
  return Atomics.load(heap.i32, Global.LogHead) !== 0;
}

/**
 * Takes every line logged so far, emptying the log: the first (oldest)
 * entry of a list that is the caller's from now on (read each entry with
 * `lineOf` and `nextLine`, then free it). Precondition: the lock is held.
 *
 * @param heap The heap.
 * @returns The oldest entry, or 0 when the log was empty.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { appendLine, hasLines, takeLines } from "./_print_log.ts";
 * import { assert, assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const first = appendLine(heap, new Uint8Array([1]));
 * appendLine(heap, new Uint8Array([2]));
 * assertEquals(takeLines(heap), first);
 * assertEquals(takeLines(heap), 0);
 * heap.unlock();
 * assert(!hasLines(heap));
 * ```
 */
export function takeLines(heap: SharedHeap): number {
  const first = heap.i32[Global.LogHead];
  heap.i32[Global.LogHead] = 0;
  heap.i32[Global.LogTail] = 0;
  return first;
}

/**
 * The line of entry `entry`, taken from the log: its bytes, copied out.
 *
 * @param heap The heap.
 * @param entry The entry.
 * @returns The line's UTF-8 bytes.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { appendLine, lineOf } from "./_print_log.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const entry = appendLine(heap, new Uint8Array([3, 4]));
 * heap.unlock();
 * assertEquals([...lineOf(heap, entry)], [3, 4]);
 * ```
 */
export function lineOf(heap: SharedHeap, entry: number): Uint8Array {
  return readByteBlob(heap, entry + 4 * LogEntry.Line);
}

/**
 * The entry after `entry` in a taken list. Read it before freeing `entry`:
 * a free reuses the word.
 *
 * @param heap The heap.
 * @param entry The entry.
 * @returns The next (newer) entry, or 0 after the newest.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { appendLine, nextLine, takeLines } from "./_print_log.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * appendLine(heap, new Uint8Array([1]));
 * const second = appendLine(heap, new Uint8Array([2]));
 * const first = takeLines(heap);
 * heap.unlock();
 * assertEquals(nextLine(heap, first), second);
 * assertEquals(nextLine(heap, second), 0);
 * ```
 */
export function nextLine(heap: SharedHeap, entry: number): number {
  return heap.i32To(entry + 4 * LogEntry.Line)[(entry >> 2) + LogEntry.Next];
}
