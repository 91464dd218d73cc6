/**
 * One worker's taker of a pooled `parallel_for`'s iterations: it takes the
 * next iteration from the queue (_iteration_queue.ts) whenever this worker
 * is free for it, and starts it here as a green thread.
 *
 * "Free" means that no iteration this taker started is runnable: each has
 * ended or is blocked (on a channel, a sleep, a nested wait). So a worker
 * keeps one iteration running at a time while it computes, takes the next
 * as soon as that one ends, and a worker that starts late, or is busy with
 * other threads' iterations, takes fewer; the spawner takes no queued
 * iteration at its time-slice ends while its own is still computing (the
 * failure of an earlier attempt, bench/README.md).
 *
 * Invariants:
 *   Every iteration is started: a taker whose iterations all block takes
 *   more (so a parallel_for whose iterations wait on each other runs as on
 *   one worker), and one whose iterations stay runnable while nothing has
 *   been taken from the queue for STARVE_MS takes one anyway, so that
 *   iterations that poll for a queued one (a `select` with a default in a
 *   loop) on every worker still reach it.
 *   A taker looks again when one of its iterations ends (at once) and
 *   otherwise once per macrotask, i.e. at each time-slice end, while any
 *   is left to take; it stops, and drops its hold on the queue, at the
 *   first take that finds none, or when the run ends.
 *   Queued iterations count as active work (the spawner added them), so
 *   the run never looks idle while any waits here; each start takes its
 *   count back once the new thread counts itself.
 *
 * @module
 */
import { clearImmediate, setImmediate } from "node:timers";
import type { GreenThread } from "../../scheduler/green_thread.ts";
import type { PoolMember } from "../../scheduler/shared/pool_member.ts";
import { schedulerRun } from "../../scheduler/_thread_control.ts";
import {
  dropHold,
  handedOut,
  iterationEnded,
  iterationKey,
  takeIteration,
} from "./_iteration_queue.ts";

// How long the queue may stand still while this worker's iterations all
// run before the taker takes one anyway (the liveness rule above). Longer
// than a start-up skew, so that it never decides where the first
// iterations go.
const STARVE_MS = 1000;

/**
 * Starts iteration `index` with stream `key` here; calls `ended` when it
 * has ended, however it ended.
 */
export type StartIteration = (
  index: number,
  key: number,
  ended: () => void,
) => GreenThread;

/**
 * Takes iterations from one queue for this worker, from construction until
 * the queue is empty or the run ends.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../../scheduler/scheduler.ts";
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { PoolMember } from "../../scheduler/shared/pool_member.ts";
 * import { createWakeRings } from "../../scheduler/shared/wake_ring.ts";
 * import { createQueue } from "./_iteration_queue.ts";
 * import { IterationTaker } from "./_iteration_taker.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const scheduler = new Scheduler({ threadContext: false });
 * const member = new PoolMember(heap, 0, scheduler);
 * const ran: number[] = [];
 * await scheduler.run(async (main) => {
 *   member.lock();
 *   const queue = createQueue(member.heap, [1, 2, 3], 1);
 *   member.unlock();
 *   const all = Promise.withResolvers<void>();
 *   new IterationTaker(member, queue, (index, _key, ended) =>
 *     scheduler.goFrom(main, () => {
 *       ran.push(index);
 *       ended();
 *       if (ran.length === 3) all.resolve();
 *     }));
 *   await all.promise;
 * });
 * member.close();
 * assertEquals(ran, [0, 1, 2]);
 * ```
 */
export class IterationTaker {
  readonly #member: PoolMember;
  readonly #queue: number;
  readonly #start: StartIteration;
  // The iterations this taker started that may not have ended.
  #mine: GreenThread[] = [];
  #poll: ReturnType<typeof setImmediate> | undefined;
  #stopped = false;
  // When the queue's hand-out count last moved, and to what.
  #seen = -1;
  #seenAt = 0;

  /**
   * Starts taking.
   *
   * @param member This worker.
   * @param queue The queue record; this taker holds it (see `dropHold`).
   * @param start Starts one iteration here.
   */
  constructor(member: PoolMember, queue: number, start: StartIteration) {
    this.#member = member;
    this.#queue = queue;
    this.#start = start;
    this.#look();
  }

  /** Whether it has stopped taking. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Stops taking (the run is over): the queue is left as it is. */
  stop(): void {
    this.#stopped = true;
    if (this.#poll !== undefined) clearImmediate(this.#poll);
    this.#poll = undefined;
  }

  // Takes an iteration if this worker is free for one (see the top of the
  // file), then looks again later unless the queue is empty.
  #look = (): void => {
    if (this.#stopped) return;
    if (schedulerRun(this.#member.scheduler).ended) return this.stop();
    this.#mine = this.#mine.filter((t) => t.state !== "done");
    if (this.#free() || this.#starved()) {
      if (!this.#takeOne()) return this.#finish();
    }
    // At most one poll is pending: a look that an ending iteration
    // brought forward leaves the pending one in place.
    this.#poll ??= setImmediate(this.#polled);
  };

  #polled = (): void => {
    this.#poll = undefined;
    this.#look();
  };

  #free(): boolean {
    return this.#mine.every((t) => t.state === "blocked");
  }

  #starved(): boolean {
    const now = performance.now();
    const out = handedOut(this.#member.heap, this.#queue);
    if (out !== this.#seen) {
      this.#seen = out;
      this.#seenAt = now;
      return false;
    }
    return now - this.#seenAt > STARVE_MS;
  }

  // Takes and starts one iteration; false when none is left.
  #takeOne(): boolean {
    const m = this.#member;
    const index = takeIteration(m.heap, this.#queue);
    if (index < 0) return false;
    const key = iterationKey(m.heap, this.#queue, index);
    const thread = this.#start(index, key, () => this.#ended(thread));
    // The new thread counted itself; the spawner had counted it queued.
    m.changed(-1);
    this.#mine.push(thread);
    this.#seenAt = performance.now();
    return true;
  }

  // One of this taker's iterations ended: count it, and look again at once
  // (after the ending thread's step) rather than at the slice's end.
  #ended(thread: GreenThread): void {
    const m = this.#member;
    m.lock();
    iterationEnded(m, this.#queue);
    m.unlock();
    // It is still finishing its step: it no longer counts as this taker's.
    this.#mine = this.#mine.filter((t) => t !== thread);
    if (!this.#stopped) queueMicrotask(this.#look);
  }

  #finish(): void {
    this.#stopped = true;
    const m = this.#member;
    m.lock();
    dropHold(m.heap, this.#queue);
    m.unlock();
  }
}
