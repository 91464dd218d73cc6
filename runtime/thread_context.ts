/**
 * What a running op sees besides its scope: the run's services (scheduler,
 * device, output, randomness) and the green thread it runs on.
 *
 * @module
 */
import type { Device } from "../kernels/device.ts";
import type { GreenThread } from "../scheduler/green_thread.ts";
import type { Scheduler } from "../scheduler/scheduler.ts";

/** The services one run of a program shares among its green threads. */
export interface RunServices {
  /** The run's scheduler. */
  readonly scheduler: Scheduler;
  /** The device tensor kernels run on. */
  readonly device: Device;
  /** Uniform floats in [0, 1) from the run's seed. */
  readonly random: () => number;
  /** The run's seed (`--seed`). */
  readonly seed: number;
  /** Writes one line of program output (`print`). */
  print(line: string): void;
}

/**
 * One green thread's view of the run. The block runner records the op it
 * is at in `thread.where`, so a deadlock dump shows where each thread waits.
 */
export interface ThreadContext {
  /** The run's services. */
  readonly run: RunServices;
  /** The green thread running the ops. */
  readonly thread: GreenThread;
}
