/**
 * An iteration queue: the record through which a pooled `parallel_for`
 * hands out its iterations. Workers take iterations from it one by one
 * as they become free (work stealing at spawn: a worker that starts late,
 * or is busy, takes fewer), and the `parallel_for` waits on it until every
 * iteration has ended.
 *
 *   word IterationQueue.Left    iterations not ended yet
 *   word IterationQueue.Worker  the waiting thread's worker  } once
 *   word IterationQueue.Token   its parked operation's token } Parked
 *   word IterationQueue.Parked  1 once the parallel_for waits
 *   word IterationQueue.Next    the next index to hand out (may run past
 *                               Count: every taker adds one)
 *   word IterationQueue.Count   the number of iterations
 *   word IterationQueue.Holds   who may still read the record: the
 *                               parallel_for and each worker's taker
 *   words IterationQueue.Keys   Count words: iteration i's child key under
 *                               the parallel_for's thread (its random
 *                               stream), reserved in index order, so that
 *                               iteration i draws the same numbers
 *                               whichever worker runs it, as on one worker
 *
 * Invariants:
 *   Next is only read and raised with Atomics (a take needs no lock);
 *   every other word is read and written with the heap's lock held, except
 *   Count and Keys, written once before the record is published (posted
 *   under the lock) and only read after.
 *   Each index below Count is handed out exactly once: `takeIteration`
 *   returns Atomics.add's old value, unique per call.
 *   Left only falls, by one as each iteration ends; the iteration that
 *   takes it to 0 wakes the parallel_for if it is parked.
 *   The record lies in the data arena and is freed by whoever drops the
 *   last hold (`dropHold`), so no worker reads it after its free.
 *
 * @module
 */
import type { SharedHeap } from "../../scheduler/shared/heap.ts";
import type { PoolMember } from "../../scheduler/shared/pool_member.ts";

/**
 * An iteration queue's words (word indices from the record's first word).
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { createQueue, IterationQueue } from "./_iteration_queue.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const queue = createQueue(heap, [11, 12, 13], 2);
 * heap.unlock();
 * assertEquals(heap.i32[(queue >> 2) + IterationQueue.Left], 3);
 * ```
 */
export const IterationQueue = {
  /** Iterations not ended yet. */
  Left: 0,
  /** The waiting thread's worker. */
  Worker: 1,
  /** Its parked operation's token on that worker. */
  Token: 2,
  /** 1 once the parallel_for waits. */
  Parked: 3,
  /** The next index to hand out. */
  Next: 4,
  /** The number of iterations. */
  Count: 5,
  /** Who may still read the record. */
  Holds: 6,
  /** The first iteration's key; the others follow. */
  Keys: 7,
} as const;

const Q = IterationQueue;

/**
 * A new queue of `keys.length` iterations, held by `holds` readers.
 * Precondition: the lock is held.
 *
 * @param heap The heap.
 * @param keys Each iteration's child key, in index order.
 * @param holds The parallel_for plus every worker that will take.
 * @returns The record.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { createQueue, iterationKey } from "./_iteration_queue.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const queue = createQueue(heap, [5, 6], 3);
 * heap.unlock();
 * assertEquals(iterationKey(heap, queue, 1), 6);
 * ```
 */
export function createQueue(
  heap: SharedHeap,
  keys: readonly number[],
  holds: number,
): number {
  const bytes = (Q.Keys + keys.length) * 4;
  const queue = heap.allocData(bytes);
  const i32 = heap.i32To(queue + bytes);
  const q = queue >> 2;
  i32.fill(0, q, q + Q.Keys);
  i32[q + Q.Left] = keys.length;
  i32[q + Q.Count] = keys.length;
  i32[q + Q.Holds] = holds;
  for (let i = 0; i < keys.length; i++) i32[q + Q.Keys + i] = keys[i];
  return queue;
}

/**
 * Takes the next iteration. Needs no lock.
 *
 * @param heap The heap.
 * @param queue The record.
 * @returns Its index, or -1 once every iteration is handed out.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { createQueue, takeIteration } from "./_iteration_queue.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const queue = createQueue(heap, [1, 2], 1);
 * heap.unlock();
 * const taken = [0, 1, 2].map(() => takeIteration(heap, queue));
 * assertEquals(taken, [0, 1, -1]);
 * ```
 */
export function takeIteration(heap: SharedHeap, queue: number): number {
  const i32 = heap.i32To(queue + Q.Keys * 4);
  const index = Atomics.add(i32, (queue >> 2) + Q.Next, 1);
  return index < i32[(queue >> 2) + Q.Count] ? index : -1;
}

/**
 * Whether any iteration is left to hand out. Needs no lock; the answer may
 * be stale at once (another worker may take the last).
 *
 * @param heap The heap.
 * @param queue The record.
 * @returns True while some index is not handed out.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { createQueue, queued, takeIteration } from "./_iteration_queue.ts";
 * import { assert } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const queue = createQueue(heap, [1], 1);
 * heap.unlock();
 * assert(queued(heap, queue));
 * takeIteration(heap, queue);
 * assert(!queued(heap, queue));
 * ```
 */
export function queued(heap: SharedHeap, queue: number): boolean {
  const i32 = heap.i32To(queue + Q.Keys * 4);
  const q = queue >> 2;
  return Atomics.load(i32, q + Q.Next) < i32[q + Q.Count];
}

/**
 * How many indices have been handed out so far (at most Count). Needs no
 * lock.
 *
 * @param heap The heap.
 * @param queue The record.
 * @returns The count.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { createQueue, handedOut, takeIteration } from "./_iteration_queue.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const queue = createQueue(heap, [1, 2], 1);
 * heap.unlock();
 * takeIteration(heap, queue);
 * assertEquals(handedOut(heap, queue), 1);
 * ```
 */
export function handedOut(heap: SharedHeap, queue: number): number {
  const i32 = heap.i32To(queue + Q.Keys * 4);
  const q = queue >> 2;
  return Math.min(Atomics.load(i32, q + Q.Next), i32[q + Q.Count]);
}

/**
 * Iteration `index`'s child key. Needs no lock.
 *
 * @param heap The heap.
 * @param queue The record.
 * @param index An index below Count.
 * @returns The key.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { createQueue, iterationKey } from "./_iteration_queue.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const queue = createQueue(heap, [-7], 1);
 * heap.unlock();
 * assertEquals(iterationKey(heap, queue, 0), -7);
 * ```
 */
export function iterationKey(
  heap: SharedHeap,
  queue: number,
  index: number,
): number {
  const word = (queue >> 2) + Q.Keys + index;
  return heap.i32To((word + 1) * 4)[word];
}

/**
 * Counts one iteration as ended; the last wakes the parked parallel_for,
 * if it waits already. Precondition: the lock is held.
 *
 * @param member The worker where the iteration ran.
 * @param queue The record.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../../scheduler/scheduler.ts";
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { PoolMember } from "../../scheduler/shared/pool_member.ts";
 * import { createWakeRings } from "../../scheduler/shared/wake_ring.ts";
 * import { allEnded, createQueue, iterationEnded } from "./_iteration_queue.ts";
 * import { assert } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const member = new PoolMember(heap, 0, new Scheduler({ threadContext: false }));
 * member.lock();
 * const queue = createQueue(member.heap, [1, 2], 1);
 * iterationEnded(member, queue);
 * assert(!allEnded(member.heap, queue));
 * iterationEnded(member, queue); // nobody parked yet: nobody to wake
 * assert(allEnded(member.heap, queue));
 * member.unlock();
 * member.close();
 * ```
 */
export function iterationEnded(member: PoolMember, queue: number): void {
  const i32 = member.heap.i32To(queue + Q.Keys * 4);
  const q = queue >> 2;
  const left = i32[q + Q.Left] - 1;
  i32[q + Q.Left] = left;
  if (left === 0 && i32[q + Q.Parked] !== 0) {
    member.wake(i32[q + Q.Worker], i32[q + Q.Token]);
  }
}

/**
 * Whether every iteration has ended. Precondition: the lock is held.
 *
 * @param heap The heap.
 * @param queue The record.
 * @returns True once none is left.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { allEnded, createQueue } from "./_iteration_queue.ts";
 * import { assert } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * assert(!allEnded(heap, createQueue(heap, [1], 1)));
 * heap.unlock();
 * ```
 */
export function allEnded(heap: SharedHeap, queue: number): boolean {
  return heap.i32To(queue + Q.Keys * 4)[(queue >> 2) + Q.Left] === 0;
}

/**
 * Records the parked parallel_for that the last iteration wakes.
 * Preconditions: the lock is held; iterations are left.
 *
 * @param heap The heap.
 * @param queue The record.
 * @param worker The waiting thread's worker.
 * @param token Its parked operation's token there.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { createQueue, IterationQueue, parkOnQueue } from "./_iteration_queue.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const queue = createQueue(heap, [1], 1);
 * parkOnQueue(heap, queue, 2, 17);
 * heap.unlock();
 * assertEquals(heap.i32[(queue >> 2) + IterationQueue.Token], 17);
 * ```
 */
export function parkOnQueue(
  heap: SharedHeap,
  queue: number,
  worker: number,
  token: number,
): void {
  const i32 = heap.i32To(queue + Q.Keys * 4);
  const q = queue >> 2;
  i32[q + Q.Worker] = worker;
  i32[q + Q.Token] = token;
  i32[q + Q.Parked] = 1;
}

/**
 * Drops one hold on the record, freeing it with the last. Precondition:
 * the lock is held; the caller reads the record no more.
 *
 * @param heap The heap.
 * @param queue The record.
 * @returns True if this freed it.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { createQueue, dropHold } from "./_iteration_queue.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const queue = createQueue(heap, [1], 2);
 * assertEquals([dropHold(heap, queue), dropHold(heap, queue)], [false, true]);
 * heap.unlock();
 * ```
 */
export function dropHold(heap: SharedHeap, queue: number): boolean {
  const i32 = heap.i32To(queue + Q.Keys * 4);
  const q = queue >> 2;
  const holds = i32[q + Q.Holds] - 1;
  i32[q + Q.Holds] = holds;
  if (holds !== 0) return false;
  heap.freeData(queue);
  return true;
}
