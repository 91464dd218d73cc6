// Byte blobs: a count word, then the bytes, read back by a worker whose
// views end before the blob.

import { assertEquals } from "@std/assert";
import {
  ByteBlob,
  byteBlobSize,
  readByteBlob,
  writeByteBlob,
} from "../../../runtime/pool/_byte_blob.ts";
import { SharedHeap } from "../../../scheduler/shared/heap.ts";
import {
  assertBeyondViews,
  grownHeap,
} from "../../scheduler/shared/_grown_heap.ts";

Deno.test("writeByteBlob() puts the count at ByteBlob.Length and the bytes from ByteBlob.Bytes", () => {
  const heap = SharedHeap.create();
  heap.lock();
  const blob = heap.allocData(byteBlobSize(5));
  heap.unlock();
  writeByteBlob(heap, blob, new Uint8Array([1, 2, 3, 4, 5]));
  assertEquals(heap.i32[(blob >> 2) + ByteBlob.Length], 5);
  const at = blob + 4 * ByteBlob.Bytes;
  assertEquals([...heap.u8.subarray(at, at + 5)], [1, 2, 3, 4, 5]);
  assertEquals(byteBlobSize(5), at + 5 - blob);
});

Deno.test("readByteBlob() returns a private copy, empty blobs included", () => {
  const heap = SharedHeap.create();
  heap.lock();
  const [a, b] = [heap.allocData(byteBlobSize(2)), heap.allocData(4)];
  heap.unlock();
  writeByteBlob(heap, a, new Uint8Array([9, 8]));
  writeByteBlob(heap, b, new Uint8Array(0));
  const bytes = readByteBlob(heap, a);
  heap.u8[a + 4] = 0;
  assertEquals([...bytes], [9, 8]);
  assertEquals(readByteBlob(heap, b).length, 0);
});

Deno.test("readByteBlob() and writeByteBlob() reach a blob beyond this worker's views", () => {
  const { heap, stale } = grownHeap();
  heap.lock();
  const blob = heap.allocData(byteBlobSize(3));
  heap.unlock();
  writeByteBlob(heap, blob, new Uint8Array([4, 5, 6]));
  assertBeyondViews(stale, blob);
  assertEquals([...readByteBlob(stale, blob)], [4, 5, 6]);
  const other = grownHeap();
  other.heap.lock();
  const b = other.heap.allocData(byteBlobSize(2));
  other.heap.unlock();
  assertBeyondViews(other.stale, b);
  writeByteBlob(other.stale, b, new Uint8Array([7, 7]));
  assertEquals([...readByteBlob(other.heap, b)], [7, 7]);
});
