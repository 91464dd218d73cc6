// Storage blocks: the holds and byte count in front of a large tensor's
// elements, taken and dropped by workers whose views end before the block.

import { assert, assertEquals } from "@std/assert";
import {
  elementsOf,
  initStorageBlock,
  releaseBlock,
  retainBlock,
  StorageBlock,
  storageBlockSize,
} from "../../../runtime/pool/_storage_block.ts";
import { Global, SharedHeap } from "../../../scheduler/shared/heap.ts";
import {
  assertBeyondViews,
  grownHeap,
} from "../../scheduler/shared/_grown_heap.ts";

function block(heap: SharedHeap, bytes: number): number {
  heap.lock();
  const b = heap.allocData(storageBlockSize(bytes));
  heap.unlock();
  initStorageBlock(heap, b, bytes);
  return b;
}

Deno.test("initStorageBlock() writes Refs 1 and Bytes, counts the bytes, and leaves the elements", () => {
  const heap = SharedHeap.create();
  heap.lock();
  const b = heap.allocData(storageBlockSize(16));
  heap.unlock();
  heap.u8.fill(5, elementsOf(b), elementsOf(b) + 16);
  initStorageBlock(heap, b, 16);
  assertEquals(heap.i32[(b >> 2) + StorageBlock.Refs], 1);
  assertEquals(heap.i32[(b >> 2) + StorageBlock.Bytes], 16);
  assertEquals(elementsOf(b), b + 4 * StorageBlock.Elements);
  assertEquals(elementsOf(b) % 8, 0);
  assert(
    heap.u8.subarray(elementsOf(b), elementsOf(b) + 16).every((x) => x === 5),
  );
  assertEquals(heap.i32[Global.StorageBytes], 16);
});

Deno.test("releaseBlock() reports the last hold and only then uncounts the bytes", () => {
  const heap = SharedHeap.create();
  const a = block(heap, 64);
  const b = block(heap, 32);
  retainBlock(heap, a);
  assertEquals(heap.i32[(a >> 2) + StorageBlock.Refs], 2);
  assert(!releaseBlock(heap, a));
  assertEquals(heap.i32[Global.StorageBytes], 96);
  assert(releaseBlock(heap, a));
  assertEquals(heap.i32[(a >> 2) + StorageBlock.Refs], 0);
  assertEquals(heap.i32[Global.StorageBytes], 32);
  assert(releaseBlock(heap, b));
  assertEquals(heap.i32[Global.StorageBytes], 0);
});

Deno.test("retainBlock() and releaseBlock() reach a block beyond this worker's views", () => {
  const { heap, stale } = grownHeap();
  const b = block(heap, 1024);
  assertBeyondViews(stale, b);
  retainBlock(stale, b); // Atomics on a view that ends before it would throw
  assertEquals(heap.i32[(b >> 2) + StorageBlock.Refs], 2);
  const other = grownHeap();
  const c = block(other.heap, 8);
  retainBlock(other.heap, c);
  assertBeyondViews(other.stale, c);
  assert(!releaseBlock(other.stale, c));
  assert(releaseBlock(other.stale, c));
  assertEquals(other.heap.i32[Global.StorageBytes], 0);
});

Deno.test("initStorageBlock() covers a block beyond this worker's views", () => {
  const { heap, stale } = grownHeap();
  heap.lock();
  const b = heap.allocData(storageBlockSize(8));
  heap.unlock();
  assertBeyondViews(stale, b);
  initStorageBlock(stale, b, 8);
  assertEquals(heap.i32[(b >> 2) + StorageBlock.Bytes], 8);
  assertEquals(heap.i32[(b >> 2) + StorageBlock.Refs], 1);
});
