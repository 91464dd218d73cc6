/**
 * The block runner's context of a green thread: what its ops see (the
 * `ThreadContext` interface of `runtime/core/`), and the thread's resumer,
 * which continues the block that a channel operation or select parked.
 *
 * @module
 */
import type { GreenThread } from "../../scheduler/green_thread.ts";
import type { Resumer } from "../../scheduler/resumer.ts";
import type {
  ParkOptions,
  ResumeOptions,
  RunServices,
  ThreadContext,
} from "../core/thread_context.ts";
import { type BlockFrame, failParked, resumeParked } from "./block_runner.ts";

/**
 * A green thread's context as the block runner keeps it: `ThreadContext`,
 * plus the innermost block a resumer operation parked (`parkedFrame`), which
 * only the block runner reads and writes.
 *
 * It is the thread's resumer: a channel operation or select that an op
 * returns straight to the block runner parks with `resumeAs`, and hands its
 * outcome to the suspended block here rather than to a promise, so that a
 * parked goroutine of a program costs no promise and no async function.
 */
class RunnerContext implements ThreadContext, Resumer {
  readonly run: RunServices;
  readonly thread: GreenThread;
  parkedFrame: BlockFrame | undefined = undefined;
  #parkAs: ParkOptions | undefined = undefined;

  constructor(run: RunServices, thread: GreenThread) {
    this.run = run;
    this.thread = thread;
  }

  get parkAs(): ParkOptions {
    // Made on first use: most goroutines park only through resumeAs.
    return this.#parkAs ??= { thread: this.thread };
  }

  get resumeAs(): ResumeOptions {
    return this;
  }

  get resumer(): Resumer {
    return this;
  }

  resume(value: unknown): void {
    resumeParked(this, value);
  }

  fail(error: unknown): void {
    failParked(this, error);
  }
}

/**
 * The context of a green thread of a run. It is also the thread's resumer
 * (`ctx.resumer === ctx.resumeAs`), through which a parked block continues.
 *
 * @param run The run's services.
 * @param thread The thread.
 * @returns Its context.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../../scheduler/scheduler.ts";
 * import { cpuDevice } from "../../kernels/cpu/device.ts";
 * import { threadContext } from "./thread_context.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const scheduler = new Scheduler({ seed: 1 });
 * await scheduler.run((thread) => {
 *   const run = { scheduler, device: cpuDevice, seed: 1, print: () => {} };
 *   const ctx = threadContext(run, thread);
 *   assertEquals(ctx.parkAs.thread, thread);
 *   assertEquals(ctx.resumeAs.resumer, ctx);
 * });
 * ```
 */
export function threadContext(
  run: RunServices,
  thread: GreenThread,
): ThreadContext {
  return new RunnerContext(run, thread);
}
