// What a tracer learns from the scheduler: each time a green thread stops
// (it parks on a channel, a select, a timer or a wait group), each time
// it may run again, and when it ends. The runtime's run tracer implements it; the scheduler
// only calls it, and only when one was given (`SchedulerOptions.tracer`),
// so that an untraced run pays one branch per park and per wake-up.

import type { GreenThread, WaitReason } from "./green_thread.ts";
import type { Panic } from "./panic.ts";

/**
 * Receives a traced run's thread transitions, synchronously, on the
 * thread's worker. Implementations must not park, wake or spawn threads.
 *
 * @example Usage
 * ```ts
 * import { makeChannel, Scheduler } from "./mod.ts";
 * import type { ThreadTracer } from "./thread_tracer.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const seen: string[] = [];
 * const tracer: ThreadTracer = {
 *   blocked: (t, reason) => seen.push(`${t.id} ${reason}`),
 *   woken: (t) => seen.push(`${t.id} woken`),
 *   finished: (t) => seen.push(`${t.id} done`),
 * };
 * const s = new Scheduler({ seed: 1, tracer });
 * await s.run(async () => {
 *   const ch = makeChannel<number>();
 *   s.go(() => ch.send(1));
 *   await ch.recv();
 * });
 * assertEquals(seen, ["1 chan receive", "1 woken", "2 done", "1 done"]);
 * ```
 */
export interface ThreadTracer {
  /** `thread` stopped, waiting for `reason`. */
  blocked(thread: GreenThread, reason: WaitReason): void;
  /** `thread` was blocked and may run again (it is runnable). */
  woken(thread: GreenThread): void;
  /** `thread` ended, with `panic` if it panicked. */
  finished(thread: GreenThread, panic: Panic | undefined): void;
}
