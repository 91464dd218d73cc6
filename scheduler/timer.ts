// Timers: sleep and after (Go's time.Sleep and time.After).
//
// A timer counts as pending work of its run until it fires or is stopped,
// so a thread sleeping, or waiting on an `after` channel, is never reported
// as deadlocked. Timers still pending when the run ends are cleared.

import { Channel } from "./channel.ts";
import { currentThread, type GreenThread } from "./green_thread.ts";
import {
  PARKED,
  type Resumer,
  type Settle,
  settle,
  settleWithError,
} from "./resumer.ts";
import { currentScheduler, type Scheduler } from "./scheduler.ts";
import { type Parked, schedulerRun } from "./_thread_control.ts";

/** Options for {@linkcode sleep}. */
export interface SleepOptions {
  /**
   * Wakes the thread early: the promise rejects with the signal's reason.
   *
   * @default {undefined}
   */
  signal?: AbortSignal;
  /**
   * The sleeping green thread: counted as blocked (`sleep`) meanwhile, and
   * its run owns the timer. Required for that on a scheduler made with
   * `threadContext: false`.
   *
   * @default {currentThread()}
   */
  thread?: GreenThread;
  /**
   * For runtimes that keep their own continuations: the sleep returns
   * `PARKED` and wakes this resumer instead of settling a promise (see
   * resumer.ts).
   *
   * @default {undefined}
   */
  resumer?: Resumer;
}

/** Options for {@linkcode after}. */
export interface AfterOptions<T = boolean> {
  /**
   * Stops the timer if it has not fired: the channel then never delivers.
   *
   * @default {undefined}
   */
  signal?: AbortSignal;
  /**
   * The value delivered (a program's timer channel carries a bool tensor).
   *
   * @default {true}
   */
  value?: T;
  /**
   * The channel's zero value.
   *
   * @default {false}
   */
  zero?: T;
  /**
   * The scheduler whose run the timer belongs to: it counts as pending work
   * of that run and is cleared when the run ends. Pass it on a scheduler
   * made with `threadContext: false`.
   *
   * @default {currentScheduler()}
   */
  scheduler?: Scheduler;
}

function noop(): void {}

/**
 * Parks the current green thread for `ms` milliseconds (wait reason
 * `sleep`). A duration of zero or less returns at once, as in Go.
 *
 * @param ms How long to sleep, in milliseconds.
 * @param options An abort signal, the sleeping thread and a resumer.
 * @returns A promise that fulfils after `ms` (`PARKED` with a resumer).
 *
 * @example Usage
 * ```ts
 * import { sleep } from "./mod.ts";
 * import { assert } from "@std/assert";
 *
 * const t0 = performance.now();
 * await sleep(5);
 * assert(performance.now() - t0 >= 4);
 * ```
 */
export function sleep(ms: number, options?: SleepOptions): Promise<void> {
  const signal = options?.signal;
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (!(ms > 0)) return Promise.resolve();
  const thread = options?.thread ?? currentThread();
  const run = schedulerRun(thread?.scheduler ?? currentScheduler());
  const resumer = options?.resumer;
  if (run.ended) return resumer === undefined ? new Promise(noop) : PARKED;
  let promise = PARKED as Promise<void>;
  let to: Settle<void> | undefined = resumer;
  if (to === undefined) promise = new Promise((resolve) => to = resolve);
  // A sleeping thread waits on no channel: nothing to unlink.
  const sleeping: Parked = { unlink: noop };
  if (thread !== undefined) thread["block"]("sleep", sleeping);
  const onAbort = () => {
    run.stopTimer(handle);
    if (thread === undefined || thread["unblock"](sleeping)) {
      settleWithError(to!, signal!.reason);
    }
  };
  const handle = run.startTimer(ms, () => {
    signal?.removeEventListener("abort", onAbort);
    if (thread === undefined || thread["unblock"](sleeping)) {
      settle(to!, undefined);
    }
  });
  signal?.addEventListener("abort", onAbort, { once: true });
  return promise;
}

/**
 * Makes a channel that delivers `true` (or `options.value`) once, `ms`
 * milliseconds from now (Go's `time.After`). The channel has capacity 1 and is never closed.
 *
 * @param ms The delay, in milliseconds.
 * @param options An abort signal that stops the timer, the value and zero
 * value, and the scheduler.
 * @returns The timer channel.
 *
 * @example Usage
 * ```ts
 * import { after, makeChannel, select } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const never = makeChannel<number>();
 * const r = await select([{ recv: never }, { recv: after(5) }]);
 * assertEquals(r, { index: 1, value: true, ok: true });
 * ```
 */
export function after<T = boolean>(
  ms: number,
  options?: AfterOptions<T>,
): Channel<T> {
  const value = (options && "value" in options ? options.value : true) as T;
  const ch = new Channel<T>(1, {
    zero: (options && "zero" in options ? options.zero : false) as T,
  });
  const signal = options?.signal;
  if (signal?.aborted) return ch;
  const run = schedulerRun(options?.scheduler ?? currentScheduler());
  if (run.ended) return ch;
  const onAbort = () => run.stopTimer(handle);
  const handle = run.startTimer(Math.max(0, ms), () => {
    signal?.removeEventListener("abort", onAbort);
    ch.trySend(value);
  });
  signal?.addEventListener("abort", onAbort, { once: true });
  return ch;
}
