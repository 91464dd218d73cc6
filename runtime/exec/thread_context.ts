/**
 * What a running op sees besides its scope: the run's services (scheduler,
 * device, output, randomness) and the green thread it runs on.
 *
 * @module
 */
import type { Device } from "../../kernels/device.ts";
import type { BlockForeverOptions } from "../../scheduler/block_forever.ts";
import type { ChannelOpOptions } from "../../scheduler/channel.ts";
import type { GreenThread } from "../../scheduler/green_thread.ts";
import type { Scheduler } from "../../scheduler/scheduler.ts";
import type { SelectOptions } from "../../scheduler/select.ts";
import type { SleepOptions } from "../../scheduler/timer.ts";
import type { WaitGroupWaitOptions } from "../../scheduler/wait_group.ts";
import type { Resumer } from "../../scheduler/resumer.ts";
import { type BlockFrame, failParked, resumeParked } from "./block_runner.ts";
import type { PoolRun } from "../pool/pool_run.ts";

/** The services one run of a program shares among its green threads. */
export interface RunServices {
  /** The run's scheduler. */
  readonly scheduler: Scheduler;
  /** The device tensor kernels run on. */
  readonly device: Device;
  /** The run's seed (`--seed`). */
  readonly seed: number;
  /** Writes one line of program output (`print`). */
  print(line: string): void;
  /** This worker's part of the run, when the run spans workers. */
  readonly pool?: PoolRun;
  /** Where the run's cluster ops find workers and this process. */
  readonly cluster?: ClusterSettings;
}

/** How a run's cluster ops find the workers and this process. */
export interface ClusterSettings {
  /** `--worker-addrs a,b,c`: the workers, ahead of RILL_WORKERS. */
  readonly workerAddrs?: string;
  /** `--listen HOST:PORT`: where this process serves. */
  readonly selfAddr?: string;
  /** The environment to read (RILL_WORKERS, the pod's); default the process's. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The options of every scheduler operation an op may park on (send,
 * receive, select, sleep, a wait group, blocking forever). They name the
 * thread, so that the scheduler counts it as blocked and draws from its
 * random stream.
 */
export type ParkOptions =
  & ChannelOpOptions
  & SelectOptions
  & SleepOptions
  & BlockForeverOptions
  & WaitGroupWaitOptions;

/**
 * What ops pass to an operation whose result they return straight to the
 * block runner: the park options, and the thread's context as the resumer
 * that continues the block (see `ThreadContext.resumeAs`).
 */
export type ResumeOptions = ParkOptions & { readonly resumer: Resumer };

/**
 * One green thread's view of the run. The block runner records the op it
 * is at in `thread.where`, so a deadlock dump shows where each thread waits.
 *
 * It is also the thread's resumer: a channel operation or select that an op
 * returns straight to the block runner parks with `resumeAs`, and hands its
 * outcome to the suspended block here rather than to a promise, so that a
 * parked goroutine of a program costs no promise and no async function.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../../scheduler/scheduler.ts";
 * import { cpuDevice } from "../../kernels/cpu/device.ts";
 * import { ThreadContext } from "./thread_context.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const scheduler = new Scheduler({ seed: 1 });
 * await scheduler.run((thread) => {
 *   const run = { scheduler, device: cpuDevice, seed: 1, print: () => {} };
 *   const ctx = new ThreadContext(run, thread);
 *   assertEquals(ctx.parkAs.thread, thread);
 *   assertEquals(ctx.resumeAs.resumer, ctx);
 * });
 * ```
 */
export class ThreadContext implements Resumer {
  /** The run's services. */
  readonly run: RunServices;
  /** The green thread running the ops. */
  readonly thread: GreenThread;
  /**
   * The block runner's: the innermost suspended block, when a resumer
   * operation parked it.
   *
   * @ignore
   */
  parkedFrame: BlockFrame | undefined = undefined;
  #parkAs: ParkOptions | undefined = undefined;

  /**
   * Makes the context of `thread`.
   *
   * @param run The run's services.
   * @param thread The thread.
   */
  constructor(run: RunServices, thread: GreenThread) {
    this.run = run;
    this.thread = thread;
  }

  /**
   * What the thread's ops pass to the operations they park on and then
   * await or chain themselves: it names the thread.
   *
   * @returns Options that name the thread.
   */
  get parkAs(): ParkOptions {
    // Made on first use: most goroutines park only through resumeAs.
    return this.#parkAs ??= { thread: this.thread };
  }

  /**
   * What an op passes to a channel operation or select whose result it
   * returns straight to the block runner: the thread, and this context as
   * the resumer. Such an operation returns `PARKED` when it waits.
   *
   * @returns This context, as park options with a resumer.
   */
  get resumeAs(): ResumeOptions {
    return this;
  }

  /**
   * The resumer of `resumeAs`: this context.
   *
   * @returns This context.
   */
  get resumer(): Resumer {
    return this;
  }

  /**
   * Continues the parked block with the outcome of its operation.
   *
   * @param value What the operation delivered.
   */
  resume(value: unknown): void {
    resumeParked(this, value);
  }

  /**
   * Continues the parked block with its operation's failure.
   *
   * @param error The panic or abort reason.
   */
  fail(error: unknown): void {
    failParked(this, error);
  }
}

/**
 * The context of a green thread of a run.
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
 * });
 * ```
 */
export function threadContext(
  run: RunServices,
  thread: GreenThread,
): ThreadContext {
  return new ThreadContext(run, thread);
}
