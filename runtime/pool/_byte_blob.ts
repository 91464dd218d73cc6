/**
 * A byte blob: opaque bytes in a run's shared heap, behind their count.
 * The one layout for bytes that cross workers as they are: a raw value
 * (crossing_value.ts), the plan of a split kernel call
 * (parallel_kernels.ts), and each line of the print log, which puts a link
 * word in front of one (_print_log.ts).
 *
 *   word ByteBlob.Length   the byte count n
 *   word ByteBlob.Bytes    the n bytes start here (byte 4; no alignment)
 *
 * Invariants:
 *   A byte blob is written whole by the worker that allocated it before
 *   its offset is published (under the heap's lock, or in a message or a
 *   ticket that another worker reads after it), and never changes after.
 *   The reader may be another worker, whose views may end before the
 *   blob (the writer may have grown the memory to make it):
 *   `readByteBlob` covers the count word, then the bytes.
 *
 * @module
 */
import type { SharedHeap } from "../../scheduler/shared/heap.ts";

/**
 * A byte blob's words (word indices from the blob's first word).
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { ByteBlob, byteBlobSize, writeByteBlob } from "./_byte_blob.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const blob = heap.allocData(byteBlobSize(3));
 * heap.unlock();
 * writeByteBlob(heap, blob, new Uint8Array([7, 8, 9]));
 * assertEquals(heap.i32[(blob >> 2) + ByteBlob.Length], 3);
 * assertEquals(heap.u8[blob + 4 * ByteBlob.Bytes], 7);
 * ```
 */
export const ByteBlob = {
  /** The byte count. */
  Length: 0,
  /** Where the bytes start. */
  Bytes: 1,
} as const;

/**
 * The size of a byte blob of `n` bytes, to allocate.
 *
 * @param n The byte count.
 * @returns Its size in bytes.
 *
 * @example Usage
 * ```ts
 * import { byteBlobSize } from "./_byte_blob.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(byteBlobSize(10), 14);
 * ```
 */
export function byteBlobSize(n: number): number {
  return 4 * ByteBlob.Bytes + n;
}

/**
 * Writes `bytes` as a byte blob at `off`, of `byteBlobSize(bytes.length)`
 * bytes.
 *
 * @param heap The heap.
 * @param off The blob.
 * @param bytes The bytes.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { byteBlobSize, readByteBlob, writeByteBlob } from "./_byte_blob.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const blob = heap.allocData(byteBlobSize(2));
 * heap.unlock();
 * writeByteBlob(heap, blob, new Uint8Array([1, 2]));
 * assertEquals([...readByteBlob(heap, blob)], [1, 2]);
 * ```
 */
export function writeByteBlob(
  heap: SharedHeap,
  off: number,
  bytes: Uint8Array,
): void {
  const at = off + 4 * ByteBlob.Bytes;
  heap.u8To(at + bytes.byteLength).set(bytes, at);
  heap.i32[(off >> 2) + ByteBlob.Length] = bytes.byteLength;
}

/**
 * The bytes of the byte blob at `off`, copied out of the heap.
 *
 * @param heap The heap.
 * @param off The blob.
 * @returns A private copy of its bytes.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { byteBlobSize, readByteBlob, writeByteBlob } from "./_byte_blob.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * const text = new TextEncoder().encode("héllo");
 * heap.lock();
 * const blob = heap.allocData(byteBlobSize(text.length));
 * heap.unlock();
 * writeByteBlob(heap, blob, text);
 * assertEquals(new TextDecoder().decode(readByteBlob(heap, blob)), "héllo");
 * ```
 */
export function readByteBlob(heap: SharedHeap, off: number): Uint8Array {
  const at = off + 4 * ByteBlob.Bytes;
  const n = heap.i32To(at)[(off >> 2) + ByteBlob.Length];
  return heap.u8To(at + n).slice(at, at + n);
}
