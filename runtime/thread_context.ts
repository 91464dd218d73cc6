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
}

/**
 * One green thread's view of the run. The block runner records the op it
 * is at in `thread.where`, so a deadlock dump shows where each thread waits.
 *
 * It is also the options value of every scheduler operation an op may park
 * on (send, receive, select, sleep, a wait group): it names the thread, so
 * that the scheduler counts it as blocked and draws from its random stream,
 * and one object serves all of a thread's operations.
 */
export interface ThreadContext
  extends
    ChannelOpOptions,
    SelectOptions,
    SleepOptions,
    BlockForeverOptions,
    WaitGroupWaitOptions {
  /** The run's services. */
  readonly run: RunServices;
  /** The green thread running the ops. */
  readonly thread: GreenThread;
}
