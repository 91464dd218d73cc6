/**
 * What ops ask of a run that spans workers, reached through `poolOf`. It is
 * internal to Rill: the ops, the pool that implements it (`PoolRun`) and the
 * code that makes a pooled run's services use it; a run's public
 * `RunServices` does not show it.
 *
 * @module
 */
import type { DType } from "../../kernels/dtype.ts";
import type { Tensor } from "../../kernels/tensor.ts";
import type { GreenThread } from "../../scheduler/green_thread.ts";
import type { PoolMember } from "../../scheduler/shared/pool_member.ts";
import type { SharedChannel } from "../../scheduler/shared/shared_channel.ts";
import type { Scope } from "./scope.ts";
import type { RunServices } from "./thread_context.ts";
import type { TensorArray } from "./value.ts";

/**
 * What ops ask of a run that spans workers: shared channels and arrays,
 * where a goroutine may go, and starting one on another worker. Channels
 * and arrays of a pooled run always live in shared memory, so any select
 * may mix them.
 */
export interface PoolServices {
  /** This worker's link to the others. */
  readonly member: PoolMember;
  /** How many workers the run has. */
  readonly workers: number;
  /** A new shared channel of tensors (`dtype` undefined: any tensor). */
  makeChannel(capacity: number, dtype?: DType): SharedChannel<Tensor>;
  /** A shared channel that delivers `true` once, after `ms`. */
  after(ms: number): SharedChannel<Tensor>;
  /** Whether the threads of `block` may run on another worker. */
  movable(block: number): boolean;
  /** A new shared tensor array. */
  newArray(): TensorArray;
  /** The worker the next movable thread goes to, round the pool. */
  nextWorker(): number;
  /**
   * Starts a thread of `block` on `worker` with copies of what it reads
   * from `scope`.
   */
  spawn(
    worker: number,
    block: number,
    scope: Scope,
    parent: GreenThread,
  ): void;
  /**
   * Runs `n` iterations of a `parallel_for`'s `block` on whichever workers
   * are free to take them, and waits for them all (`undefined`: already
   * done).
   */
  parallelFor(
    block: number,
    n: number,
    scope: Scope,
    parent: GreenThread,
  ): void | Promise<void>;
}

/** The services of a run, with its pool when it spans workers. */
export interface PooledRunServices extends RunServices {
  /** This worker's part of the run, when the run spans workers. */
  readonly pool?: PoolServices;
}

/**
 * The pool of a run that spans workers; undefined for a run on one worker.
 *
 * @param run The run's services.
 * @returns Its pool, if any.
 *
 * @example Usage
 * ```ts
 * import { poolOf } from "./_pool_services.ts";
 * import { Scheduler } from "../../scheduler/scheduler.ts";
 * import { cpuDevice } from "../../kernels/cpu/device.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const run = { scheduler: new Scheduler(), device: cpuDevice, seed: 1, print() {} };
 * assertEquals(poolOf(run), undefined);
 * ```
 */
export function poolOf(run: RunServices): PoolServices | undefined {
  return (run as PooledRunServices).pool;
}
