// The parked operations that shared objects resume by token (see
// pool_member.ts): what a thread awaits while its channel operation,
// select or group waits in the shared heap.

import type { GreenThread } from "../green_thread.ts";
import type { Parked } from "../_thread_control.ts";
import {
  PARKED,
  type Resumer,
  type Settle,
  settle,
  settleWithError,
} from "../resumer.ts";
import type { PoolMember } from "./pool_member.ts";

/** A parked operation on shared objects, resumed by token. */
export interface SharedParked extends Parked {
  /** The parked thread, if known. */
  thread: GreenThread | undefined;
  /**
   * Reads the operation's outcome from the heap and settles its promise.
   * Called once, on the owning worker, after the waker released the lock.
   */
  settle(member: PoolMember): void;
}

function noop(): void {}

/**
 * A parked operation on shared objects with the promise its thread awaits,
 * or with the resumer that continues it (then `promise` is `PARKED`): a
 * subclass's `settle` reads the outcome and calls `resolve` or `reject`.
 *
 * @typeParam T What the operation resolves with.
 *
 * @example Usage
 * ```ts
 * import { SharedWait } from "./shared_wait.ts";
 * import { assertEquals } from "@std/assert";
 *
 * class Answer extends SharedWait<number> {
 *   settle(): void {
 *     this.resolve(42);
 *   }
 * }
 * const wait = new Answer(undefined);
 * wait.settle();
 * assertEquals(await wait.promise, 42);
 * ```
 */
export abstract class SharedWait<T> implements SharedParked {
  /** The parked thread, if known. */
  thread: GreenThread | undefined;
  /** What the parked code awaits: `PARKED` when a resumer continues it. */
  readonly promise: Promise<T>;
  // Where the outcome goes: the promise's resolve function, or the resumer.
  #to: Settle<T> = noop;

  /**
   * @param thread The parking thread.
   * @param resumer What continues the parked code instead of a promise.
   */
  constructor(thread: GreenThread | undefined, resumer?: Resumer) {
    this.thread = thread;
    if (resumer !== undefined) {
      this.#to = resumer;
      this.promise = PARKED;
    } else {
      this.promise = new Promise<T>((resolve) => this.#to = resolve);
    }
  }

  /**
   * Settles `promise` with a value, or resumes with it.
   *
   * @param value The outcome.
   */
  protected resolve(value: T): void {
    settle(this.#to, value);
  }

  /**
   * Settles `promise` with an error (a panic), or fails the resumer.
   *
   * @param error The error.
   */
  protected reject(error: unknown): void {
    settleWithError(this.#to, error);
  }

  /** Nothing to unlink here: records in the heap outlive the run. */
  unlink(): void {}

  /**
   * Reads the outcome from the heap and settles `promise`.
   *
   * @param member The owning worker.
   */
  abstract settle(member: PoolMember): void;
}
