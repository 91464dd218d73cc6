/**
 * An iteration group: the record that counts a parallel_for's iterations
 * running on other workers, so that the parallel_for can wait for them
 * (pool_run.ts's `newGroup` and `waitGroup`).
 *
 *   word IterationGroup.Left    iterations still running elsewhere
 *   word IterationGroup.Worker  the waiting thread's worker  } once
 *   word IterationGroup.Token   its parked operation's token } Parked
 *   word IterationGroup.Parked  1 once the parallel_for waits
 *
 * Invariants:
 *   Every access holds the heap's lock.
 *   Left only falls, by one as each iteration ends elsewhere.
 *   The parallel_for parks (Worker, Token, Parked) only while Left > 0;
 *   the iteration that takes Left to 0 wakes it if it is parked.
 *   The parallel_for frees the record: at once if Left was 0 when it came
 *   to wait, else once woken.
 *   The record lies in the control arena, which every worker's views
 *   cover from the start (heap.ts): no helper here needs to cover it.
 *
 * @module
 */
import type { SharedHeap } from "../../scheduler/shared/heap.ts";
import type { PoolMember } from "../../scheduler/shared/pool_member.ts";

/**
 * An iteration group's words (word indices from the record's first word).
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { createGroup, IterationGroup } from "./_iteration_group.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const group = createGroup(heap, 3);
 * heap.unlock();
 * assertEquals(heap.i32[(group >> 2) + IterationGroup.Left], 3);
 * ```
 */
export const IterationGroup = {
  /** Iterations still running elsewhere. */
  Left: 0,
  /** The waiting thread's worker. */
  Worker: 1,
  /** Its parked operation's token on that worker. */
  Token: 2,
  /** 1 once the parallel_for waits. */
  Parked: 3,
} as const;

const GROUP_BYTES = 16;

/**
 * A new group of `count` iterations. Precondition: the lock is held.
 *
 * @param heap The heap.
 * @param count How many iterations run elsewhere.
 * @returns The record.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { createGroup, groupDone } from "./_iteration_group.ts";
 * import { assert } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * assert(groupDone(heap, createGroup(heap, 0)));
 * assert(!groupDone(heap, createGroup(heap, 2)));
 * heap.unlock();
 * ```
 */
export function createGroup(heap: SharedHeap, count: number): number {
  const group = heap.allocControl(GROUP_BYTES);
  heap.i32[(group >> 2) + IterationGroup.Left] = count;
  return group;
}

/**
 * Whether every iteration of the group has ended. Precondition: the lock
 * is held.
 *
 * @param heap The heap.
 * @param group The record.
 * @returns True once none is left.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { createGroup, groupDone } from "./_iteration_group.ts";
 * import { assert } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * assert(!groupDone(heap, createGroup(heap, 1)));
 * heap.unlock();
 * ```
 */
export function groupDone(heap: SharedHeap, group: number): boolean {
  return heap.i32[(group >> 2) + IterationGroup.Left] === 0;
}

/**
 * Records the parked parallel_for that the group's last iteration wakes.
 * Preconditions: the lock is held; iterations are left.
 *
 * @param heap The heap.
 * @param group The record.
 * @param worker The waiting thread's worker.
 * @param token Its parked operation's token there.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { createGroup, IterationGroup, parkOnGroup } from "./_iteration_group.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const group = createGroup(heap, 1);
 * parkOnGroup(heap, group, 2, 17);
 * heap.unlock();
 * const g = group >> 2;
 * assertEquals(heap.i32.slice(g, g + 4), new Int32Array([1, 2, 17, 1]));
 * assertEquals(heap.i32[g + IterationGroup.Token], 17);
 * ```
 */
export function parkOnGroup(
  heap: SharedHeap,
  group: number,
  worker: number,
  token: number,
): void {
  const i32 = heap.i32;
  const g = group >> 2;
  i32[g + IterationGroup.Worker] = worker;
  i32[g + IterationGroup.Token] = token;
  i32[g + IterationGroup.Parked] = 1;
}

/**
 * Counts one iteration of the group as ended; the last wakes the parked
 * parallel_for, if it waits already. Precondition: the lock is held.
 *
 * @param member The worker where the iteration ran.
 * @param group The record.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../../scheduler/scheduler.ts";
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { PoolMember } from "../../scheduler/shared/pool_member.ts";
 * import { createWakeRings } from "../../scheduler/shared/wake_ring.ts";
 * import { createGroup, groupDone, iterationDone } from "./_iteration_group.ts";
 * import { assert } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const member = new PoolMember(heap, 0, new Scheduler({ threadContext: false }));
 * member.lock();
 * const group = createGroup(member.heap, 2);
 * iterationDone(member, group);
 * assert(!groupDone(member.heap, group));
 * iterationDone(member, group); // nobody parked yet: nobody to wake
 * assert(groupDone(member.heap, group));
 * member.unlock();
 * member.close();
 * ```
 */
export function iterationDone(member: PoolMember, group: number): void {
  const i32 = member.heap.i32;
  const g = group >> 2;
  const left = i32[g + IterationGroup.Left] - 1;
  i32[g + IterationGroup.Left] = left;
  if (left === 0 && i32[g + IterationGroup.Parked] !== 0) {
    member.wake(i32[g + IterationGroup.Worker], i32[g + IterationGroup.Token]);
  }
}
