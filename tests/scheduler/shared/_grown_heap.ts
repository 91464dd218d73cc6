// A run's heap seen from two workers, after the first grew the memory past
// the second's views: the second then meets blocks the first allocates as
// a worker does a block that another worker put in memory it grew. The
// layouts' tests read and write through the stale side.

import { assert } from "@std/assert";
import { SharedHeap } from "../../../scheduler/shared/heap.ts";

/** Two workers' views of one heap; `stale`'s end before what `heap` allocates next. */
export interface GrownHeap {
  /** The worker that grew the memory. */
  readonly heap: SharedHeap;
  /** Another worker's views, made before the memory grew. */
  readonly stale: SharedHeap;
}

/**
 * A heap grown by one worker after another's views were made.
 *
 * @returns The two sides.
 */
export function grownHeap(): GrownHeap {
  const heap = SharedHeap.create();
  const stale = new SharedHeap(heap.memory);
  heap.lock();
  heap.allocData(200 * 1024 * 1024); // past the memory's first 256 MiB
  heap.unlock();
  assert(stale.u8.length < heap.u8.length, "the memory did not grow");
  return { heap, stale };
}

/**
 * Asserts that `stale`'s views end before byte `off`: a read or write there
 * through them would be lost.
 *
 * @param stale A worker's heap.
 * @param off A byte offset.
 */
export function assertBeyondViews(stale: SharedHeap, off: number): void {
  assert(stale.u8.length <= off, `${off} lies within the stale views`);
}
