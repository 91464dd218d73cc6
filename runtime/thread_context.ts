/**
 * What a running op sees besides its scope: the run's services (scheduler,
 * device, output, randomness) and the green thread it runs on.
 *
 * @module
 */
import type { Device } from "../kernels/device.ts";
import type { BlockForeverOptions } from "../scheduler/block_forever.ts";
import type { ChannelOpOptions } from "../scheduler/channel.ts";
import type { GreenThread } from "../scheduler/green_thread.ts";
import type { Scheduler } from "../scheduler/scheduler.ts";
import type { SelectOptions } from "../scheduler/select.ts";
import type { SleepOptions } from "../scheduler/timer.ts";
import type { WaitGroupWaitOptions } from "../scheduler/wait_group.ts";
import type { PoolRun } from "./pool/pool_run.ts";

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
 * One green thread's view of the run. The block runner records the op it
 * is at in `thread.where`, so a deadlock dump shows where each thread waits.
 */
export interface ThreadContext {
  /** The run's services. */
  readonly run: RunServices;
  /** The green thread running the ops. */
  readonly thread: GreenThread;
  /** What the thread's ops pass to the operations they park on. */
  readonly parkAs: ParkOptions;
}

/**
 * The context of a green thread of a run.
 *
 * @param run The run's services.
 * @param thread The thread.
 * @returns Its context; one object serves all of its parking operations.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler/scheduler.ts";
 * import { cpuDevice } from "../kernels/cpu/device.ts";
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
  // The context is its own park options: it names the thread, and no
  // operation takes an option named `run` or `parkAs`. One object less per
  // thread, which counts when a million of them are parked.
  const ctx: { run: RunServices; thread: GreenThread; parkAs: ParkOptions } = {
    run,
    thread,
    parkAs: NO_OPTIONS,
  };
  ctx.parkAs = ctx;
  return ctx;
}

const NO_OPTIONS: ParkOptions = {};
