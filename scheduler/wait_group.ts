// Go's sync.WaitGroup for green threads: a counter that threads wait on
// until it drops to zero.
//
// A waiting thread is blocked (wait reason `sync.WaitGroup.Wait`), not
// runnable: a thread that waits for others to finish takes no part in
// making progress, so when the threads it waits for are all blocked on
// channels, the run is deadlocked and says so.
//
// Invariants:
//   #count >= 0; #waiters is empty whenever #count is 0.
//   The waker (the call that brings #count to 0) takes every waiter off
//   the list first and resumes them after, as channels do.

import { currentThread, type GreenThread } from "./green_thread.ts";
import { Panic } from "./panic.ts";
import type { Parked } from "./_thread_control.ts";

/** Options for {@linkcode WaitGroup.prototype.wait}. */
export interface WaitGroupWaitOptions {
  /**
   * The waiting green thread: counted as blocked meanwhile. Required for
   * that on a scheduler made with `threadContext: false`.
   *
   * @default {currentThread()}
   */
  thread?: GreenThread;
}

// One parked wait: its thread (if known) and how to resume it. Nothing is
// queued on a channel, so there is nothing to unlink.
interface Waiting extends Parked {
  readonly thread: GreenThread | undefined;
  readonly resolve: () => void;
}

function noop(): void {}

/**
 * A counter of outstanding work that green threads can wait on (Go's
 * `sync.WaitGroup`): `add(n)` before starting n threads, `done()` as each
 * finishes, `wait()` until all have.
 *
 * @example Usage
 * ```ts
 * import { Scheduler, WaitGroup } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const s = new Scheduler({ seed: 1 });
 * const finished: number[] = [];
 * await s.run(async () => {
 *   const wg = new WaitGroup();
 *   for (let i = 0; i < 3; i++) {
 *     wg.add(1);
 *     s.go(() => {
 *       finished.push(i);
 *       wg.done();
 *     });
 *   }
 *   await wg.wait();
 *   assertEquals(finished.length, 3);
 * });
 * ```
 */
export class WaitGroup {
  #count = 0;
  #waiters: Waiting[] = [];

  /**
   * The outstanding count.
   *
   * @returns The counter's value.
   */
  get count(): number {
    return this.#count;
  }

  /**
   * Adds `delta` (which may be negative) to the counter; when it reaches
   * zero, every waiting thread resumes.
   *
   * @param delta The change.
   * @throws {Panic} `sync: negative WaitGroup counter` if the counter
   * would drop below zero.
   *
   * @example Usage
   * ```ts
   * import { Panic, WaitGroup } from "./mod.ts";
   * import { assertThrows } from "@std/assert";
   *
   * const wg = new WaitGroup();
   * wg.add(2);
   * wg.done();
   * wg.done();
   * assertThrows(() => wg.done(), Panic, "sync: negative WaitGroup counter");
   * ```
   */
  add(delta: number): void {
    const count = this.#count + delta;
    if (count < 0) throw new Panic("sync: negative WaitGroup counter");
    this.#count = count;
    if (count > 0 || this.#waiters.length === 0) return;
    const woken = this.#waiters;
    this.#waiters = [];
    for (const w of woken) {
      if (w.thread === undefined || w.thread["unblock"](w)) w.resolve();
    }
  }

  /**
   * Subtracts one from the counter: `add(-1)`.
   *
   * @throws {Panic} `sync: negative WaitGroup counter`.
   */
  done(): void {
    this.add(-1);
  }

  /**
   * Waits until the counter is zero.
   *
   * @param options The waiting thread.
   * @returns `undefined` when the counter is zero already, else a promise
   * that fulfils when it drops to zero.
   *
   * @example Usage
   * ```ts
   * import { WaitGroup } from "./mod.ts";
   * import { assertEquals } from "@std/assert";
   *
   * assertEquals(new WaitGroup().wait(), undefined);
   * ```
   */
  wait(options?: WaitGroupWaitOptions): void | Promise<void> {
    if (this.#count === 0) return;
    const thread = options?.thread ?? currentThread();
    if (thread !== undefined && thread["runState"].ended) {
      return new Promise(noop);
    }
    const { promise, resolve } = Promise.withResolvers<void>();
    const waiting: Waiting = { thread, resolve, unlink: noop };
    this.#waiters.push(waiting);
    if (thread !== undefined) {
      thread["block"]("sync.WaitGroup.Wait", waiting);
    }
    return promise;
  }
}
