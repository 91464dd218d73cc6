/**
 * A storage block: a large tensor's elements in a run's shared heap
 * (shared_storage.ts), behind a two-word header, in the data arena.
 *
 *   word StorageBlock.Refs      the block's holders, on every worker
 *   word StorageBlock.Bytes     the elements' byte count
 *   word StorageBlock.Elements  the elements start here (byte 8: aligned
 *                               for every dtype)
 *
 * Invariants:
 *   Refs counts the block's holders on every worker: each typed array
 *   made over it (one per worker that reads it), and each tensor blob that
 *   refers to it (_tensor_blob.ts). It changes only by Atomics, without
 *   the heap's lock, and starts at 1: the allocating worker's array.
 *   The holder that takes Refs to 0 frees the block; nobody reads it after.
 *   Bytes is written once, by the allocating worker before any other
 *   worker can know the block; whoever drops the last hold reads it, so
 *   that Global.StorageBytes stays the sum of the live blocks' Bytes.
 *   A block may lie in memory that its allocating worker grew past the
 *   other workers' views, and they take and drop holds on it: every helper
 *   here covers the header first (an Atomics operation on a view that ends
 *   before its word throws).
 *
 * @module
 */
import { Global, type SharedHeap } from "../../scheduler/shared/heap.ts";

/**
 * A storage block's words (word indices from the block's first word).
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { initStorageBlock, StorageBlock, storageBlockSize } from "./_storage_block.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const block = heap.allocData(storageBlockSize(64));
 * heap.unlock();
 * initStorageBlock(heap, block, 64);
 * assertEquals(heap.i32[(block >> 2) + StorageBlock.Refs], 1);
 * assertEquals(heap.i32[(block >> 2) + StorageBlock.Bytes], 64);
 * ```
 */
export const StorageBlock = {
  /** The block's holders, on every worker. */
  Refs: 0,
  /** The elements' byte count. */
  Bytes: 1,
  /** The first word of the elements. */
  Elements: 2,
} as const;

/**
 * The size of a block for `bytes` bytes of elements, to allocate.
 *
 * @param bytes The elements' byte count.
 * @returns The block's size.
 *
 * @example Usage
 * ```ts
 * import { storageBlockSize } from "./_storage_block.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(storageBlockSize(4096), 4104);
 * ```
 */
export function storageBlockSize(bytes: number): number {
  return 4 * StorageBlock.Elements + bytes;
}

/**
 * Where the elements of `block` start.
 *
 * @param block The block.
 * @returns Their byte offset in the heap.
 *
 * @example Usage
 * ```ts
 * import { elementsOf } from "./_storage_block.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(elementsOf(1024), 1032);
 * ```
 */
export function elementsOf(block: number): number {
  return block + 4 * StorageBlock.Elements;
}

/**
 * Writes a new block's header, held once (by the array its allocating
 * worker makes over it), and counts its bytes in Global.StorageBytes.
 * The elements are left as they are.
 *
 * @param heap The heap.
 * @param block The block, of `storageBlockSize(bytes)` bytes.
 * @param bytes The elements' byte count.
 *
 * @example Usage
 * ```ts
 * import { Global, SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { initStorageBlock, storageBlockSize } from "./_storage_block.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const block = heap.allocData(storageBlockSize(800));
 * heap.unlock();
 * initStorageBlock(heap, block, 800);
 * assertEquals(heap.i32[Global.StorageBytes], 800);
 * ```
 */
export function initStorageBlock(
  heap: SharedHeap,
  block: number,
  bytes: number,
): void {
  Atomics.add(heap.i32, Global.StorageBytes, bytes);
  const i32 = heap.i32To(elementsOf(block) + bytes);
  i32[(block >> 2) + StorageBlock.Refs] = 1;
  i32[(block >> 2) + StorageBlock.Bytes] = bytes;
}

/**
 * Adds a hold on a block.
 *
 * @param heap The heap.
 * @param block The block.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { initStorageBlock, retainBlock, StorageBlock, storageBlockSize } from "./_storage_block.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const block = heap.allocData(storageBlockSize(8));
 * heap.unlock();
 * initStorageBlock(heap, block, 8);
 * retainBlock(heap, block);
 * assertEquals(heap.i32[(block >> 2) + StorageBlock.Refs], 2);
 * ```
 */
export function retainBlock(heap: SharedHeap, block: number): void {
  Atomics.add(
    heap.i32To(elementsOf(block)),
    (block >> 2) + StorageBlock.Refs,
    1,
  );
}

/**
 * Drops a hold on a block. The last takes its bytes out of
 * Global.StorageBytes; then the caller frees the block.
 *
 * @param heap The heap.
 * @param block The block.
 * @returns True if that was the last hold.
 *
 * @example Usage
 * ```ts
 * import { Global, SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { initStorageBlock, releaseBlock, retainBlock, storageBlockSize } from "./_storage_block.ts";
 * import { assert } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const block = heap.allocData(storageBlockSize(8));
 * heap.unlock();
 * initStorageBlock(heap, block, 8);
 * retainBlock(heap, block);
 * assert(!releaseBlock(heap, block));
 * assert(releaseBlock(heap, block));
 * assert(heap.i32[Global.StorageBytes] === 0);
 * ```
 */
export function releaseBlock(heap: SharedHeap, block: number): boolean {
  const i32 = heap.i32To(elementsOf(block));
  const b = block >> 2;
  if (Atomics.sub(i32, b + StorageBlock.Refs, 1) !== 1) return false;
  Atomics.sub(i32, Global.StorageBytes, i32[b + StorageBlock.Bytes]);
  return true;
}
