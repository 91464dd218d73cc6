/**
 * A spawn blob: what a worker posts to another to start a thread there
 * (pool_run.ts's `spawn`), in the data arena.
 *
 *   word SpawnBlob.Block    the block the thread runs
 *   word SpawnBlob.Key      its child key under the spawning thread
 *   word SpawnBlob.Group    a parallel_for's iteration queue
 *                           (_iteration_queue.ts) when the blob offers
 *                           it, or 0 for a go
 *   word SpawnBlob.Index    the iteration's index (0 for a go)
 *   word SpawnBlob.Count    how many values follow
 *   words SpawnBlob.Values  two words per value, its tag and its
 *                           reference (crossing_value.ts), in the order
 *                           of the block's captures
 *
 * Invariants:
 *   The spawner allocates the blob and writes it whole with the heap's
 *   lock held, and posts its offset to the target's wake ring in the same
 *   critical section; the target reads it after draining its ring, which
 *   takes the lock, so it sees the blob whole.
 *   Once posted, the blob is the target's: it reads it once and frees it.
 *   The spawner may have grown the memory to make the blob: `readSpawn`
 *   covers it, the count word first.
 *
 * @module
 */
import type { SharedHeap } from "../../scheduler/shared/heap.ts";

/**
 * A spawn blob's words (word indices from the blob's first word).
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { SpawnBlob, writeSpawn } from "./_spawn_blob.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const blob = writeSpawn(heap, {
 *   block: 3, key: 1, group: 0, index: 0, values: [[1, 4096]],
 * });
 * heap.unlock();
 * const b = blob >> 2;
 * assertEquals(heap.i32[b + SpawnBlob.Block], 3);
 * assertEquals(heap.i32[b + SpawnBlob.Values + 1], 4096); // value 0's reference
 * ```
 */
export const SpawnBlob = {
  /** The block the thread runs. */
  Block: 0,
  /** Its child key under the spawning thread (its random stream). */
  Key: 1,
  /** A parallel_for's iteration queue it offers, or 0 for a go. */
  Group: 2,
  /** The iteration's index (0 for a go). */
  Index: 3,
  /** How many values follow. */
  Count: 4,
  /** The first value's tag; its reference is the next word, and so on. */
  Values: 5,
} as const;

/**
 * What a spawn blob says: a thread to start, with its captures' values.
 *
 * @example Usage
 * ```ts
 * import type { Spawn } from "./_spawn_blob.ts";
 * import { assertEquals } from "@std/assert";
 *
 * // A go of block 2 capturing one tensor (tag 1) from blob 4096.
 * const spawn: Spawn = { block: 2, key: 1, group: 0, index: 0, values: [[1, 4096]] };
 * assertEquals(spawn.values.length, 1);
 * ```
 */
export interface Spawn {
  /** The block the thread runs. */
  readonly block: number;
  /** Its child key under the spawning thread. */
  readonly key: number;
  /** A parallel_for's iteration queue it offers, or 0 for a go. */
  readonly group: number;
  /** The iteration's index (0 for a go). */
  readonly index: number;
  /** Each captured value's tag and reference (crossing_value.ts). */
  readonly values: readonly (readonly [number, number])[];
}

/**
 * Writes a new spawn blob. Precondition: the lock is held.
 *
 * @param heap The heap.
 * @param spawn What it says.
 * @returns The blob, to post.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { readSpawn, writeSpawn } from "./_spawn_blob.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * const spawn = { block: 2, key: 5, group: 0, index: 0, values: [] };
 * heap.lock();
 * const blob = writeSpawn(heap, spawn);
 * heap.unlock();
 * assertEquals(readSpawn(heap, blob), spawn);
 * ```
 */
export function writeSpawn(heap: SharedHeap, spawn: Spawn): number {
  const values = spawn.values;
  const blob = heap.allocData((SpawnBlob.Values + 2 * values.length) * 4);
  const i32 = heap.i32; // after allocData, which covers the blob
  const b = blob >> 2;
  i32[b + SpawnBlob.Block] = spawn.block;
  i32[b + SpawnBlob.Key] = spawn.key;
  i32[b + SpawnBlob.Group] = spawn.group;
  i32[b + SpawnBlob.Index] = spawn.index;
  i32[b + SpawnBlob.Count] = values.length;
  for (let k = 0; k < values.length; k++) {
    i32[b + SpawnBlob.Values + 2 * k] = values[k][0];
    i32[b + SpawnBlob.Values + 2 * k + 1] = values[k][1];
  }
  return blob;
}

/**
 * Reads a spawn blob posted to this worker (the caller frees it after).
 *
 * @param heap The heap.
 * @param blob The blob.
 * @returns What it says.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { readSpawn, writeSpawn } from "./_spawn_blob.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const blob = writeSpawn(heap, {
 *   block: 4, key: 9, group: 640, index: 3, values: [[1, 2], [3, 4]],
 * });
 * heap.unlock();
 * const spawn = readSpawn(heap, blob);
 * assertEquals([spawn.group, spawn.index], [640, 3]);
 * assertEquals(spawn.values, [[1, 2], [3, 4]]);
 * ```
 */
export function readSpawn(heap: SharedHeap, blob: number): Spawn {
  const b = blob >> 2;
  const count = heap.i32To(blob + SpawnBlob.Values * 4)[b + SpawnBlob.Count];
  const i32 = heap.i32To(blob + (SpawnBlob.Values + 2 * count) * 4);
  const values: [number, number][] = new Array(count);
  for (let k = 0; k < count; k++) {
    values[k] = [
      i32[b + SpawnBlob.Values + 2 * k],
      i32[b + SpawnBlob.Values + 2 * k + 1],
    ];
  }
  return {
    block: i32[b + SpawnBlob.Block],
    key: i32[b + SpawnBlob.Key],
    group: i32[b + SpawnBlob.Group],
    index: i32[b + SpawnBlob.Index],
    values,
  };
}
