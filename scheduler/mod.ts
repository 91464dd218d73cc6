/**
 * Rill's green-thread runtime: green threads, Go channels, select, timers,
 * deadlock detection and panics, with Go's semantics.
 *
 * Channel operations complete synchronously when they can and return a
 * promise only when they must wait. A {@linkcode Scheduler} runs one program:
 * its main green thread ends the run, a panic anywhere fails it, and so does
 * a deadlock. The module functions use the current thread's scheduler.
 *
 * @example Usage
 * ```ts
 * import { after, go, makeChannel, run, select } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const got: number[] = [];
 * await run(async () => {
 *   const ch = makeChannel<number>();
 *   go(async () => {
 *     for (let i = 0; i < 3; i++) await ch.send(i);
 *   });
 *   const timeout = after(1000);
 *   for (let i = 0; i < 3; i++) {
 *     const r = await select([{ recv: ch }, { recv: timeout }]);
 *     if (r.index === 0) got.push(r.value);
 *   }
 * }, { seed: 1 });
 * assertEquals(got, [0, 1, 2]);
 * ```
 *
 * @module
 */

export { blockForever, type BlockForeverOptions } from "./block_forever.ts";
export {
  Channel,
  type ChannelOpOptions,
  type ChannelOptions,
  closeChannel,
  makeChannel,
  type RecvResult,
  type TryRecvResult,
} from "./channel.ts";
export {
  currentThread,
  GreenThread,
  type ThreadState,
  type WaitReason,
} from "./green_thread.ts";
export { Deadlock, Panic, type PanicOptions } from "./panic.ts";
export { Random } from "./random.ts";
export { PARKED, type Resumer } from "./resumer.ts";
export {
  currentScheduler,
  go,
  type GoOptions,
  run,
  Scheduler,
  type SchedulerOptions,
  type SchedulerRunOptions,
  type ThreadFunction,
} from "./scheduler.ts";
export {
  type CaseResult,
  type DefaultCase,
  type RecvCase,
  select,
  type SelectCase,
  type SelectOptions,
  type SelectResult,
  type SelectResultOf,
  type SelectReturn,
  type SendCase,
} from "./select.ts";
export {
  formatThreadDump,
  type ThreadInfo,
  threadSnapshot,
} from "./thread_dump.ts";
export { after, type AfterOptions, sleep, type SleepOptions } from "./timer.ts";
export { WaitGroup, type WaitGroupWaitOptions } from "./wait_group.ts";
export type { ThreadTracer } from "./thread_tracer.ts";
