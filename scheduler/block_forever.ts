// Parking forever: Go's operations on the nil channel, and `select {}`.

import {
  currentThread,
  type GreenThread,
  type WaitReason,
} from "./green_thread.ts";
import type { Parked } from "./_thread_control.ts";

/** Options for {@linkcode blockForever}. */
export interface BlockForeverOptions {
  /**
   * Abandons the wait: the promise rejects with the signal's reason.
   *
   * @default {undefined}
   */
  signal?: AbortSignal;
  /**
   * The green thread that parks: counted as blocked with `reason`. Required
   * for that on a scheduler made with `threadContext: false`.
   *
   * @default {currentThread()}
   */
  thread?: GreenThread;
}

function noop(): void {}

// What a thread parked forever without a signal waits on: nothing can wake
// it, so one shared record serves them all.
const NOWHERE: Parked = { unlink: noop };

/**
 * Parks the current green thread forever, as a send or receive on Go's nil
 * channel does: `blockForever("chan receive (nil chan)")` is `<-nilChan`,
 * `blockForever("chan send (nil chan)")` is `nilChan <- v`. Only a
 * deadlock report, the end of the run or the abort signal ends the wait.
 *
 * @param reason The wait reason shown in dumps.
 * @param options An abort signal and the parking thread.
 * @returns A promise that never fulfils.
 *
 * @example Usage
 * ```ts
 * import { blockForever, Deadlock, Scheduler } from "./mod.ts";
 * import { assertEquals, assertRejects } from "@std/assert";
 *
 * const s = new Scheduler({ seed: 1 });
 * const err = await assertRejects(
 *   () => s.run(() => blockForever("chan receive (nil chan)")),
 *   Deadlock,
 * );
 * assertEquals(err.dump, "goroutine 1 [chan receive (nil chan)]:");
 * ```
 */
export function blockForever(
  reason: WaitReason,
  options?: BlockForeverOptions,
): Promise<never> {
  const signal = options?.signal;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const thread = options?.thread ?? currentThread();
  if (thread === undefined) {
    return signal === undefined ? new Promise(noop) : abortable(signal);
  }
  const run = thread["runState"];
  if (run.ended) return new Promise(noop);
  // Nothing is queued anywhere: nothing to unlink.
  const nowhere: Parked = signal === undefined ? NOWHERE : { unlink: noop };
  thread["block"](reason, nowhere);
  if (signal === undefined) return new Promise(noop);
  // The signal may fire from outside the run: pending work until it does.
  run.addPending();
  return new Promise<never>((_, reject) => {
    signal.addEventListener("abort", () => {
      if (!thread["unblock"](nowhere)) return;
      run.settle();
      reject(signal.reason);
    }, { once: true });
  });
}

function abortable(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason), {
      once: true,
    });
  });
}
