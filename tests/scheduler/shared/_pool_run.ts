// Runs a test's main green thread as worker 0 of a pool over one shared
// heap: alone (`soloRun`) or with a Web Worker running `_pool_worker.ts`
// as worker 1 (`pairRun`). Both bound the wait, and always close the
// PoolMember and terminate the Worker.

import type { GreenThread } from "../../../scheduler/green_thread.ts";
import { Scheduler } from "../../../scheduler/scheduler.ts";
import { SharedHeap } from "../../../scheduler/shared/heap.ts";
import { PoolMember } from "../../../scheduler/shared/pool_member.ts";
import { createWakeRings } from "../../../scheduler/shared/wake_ring.ts";
import { within } from "../../_helpers/within.ts";
import { settle } from "../_settle.ts";
import type { PoolWorkerTask } from "./_pool_worker.ts";

/** What a test's main thread gets: its worker and its scheduler. */
export interface PoolContext {
  heap: SharedHeap;
  member: PoolMember;
  scheduler: Scheduler;
}

/** A test's main green thread. */
export type PoolMain = (
  pool: PoolContext,
  thread: GreenThread,
) => unknown;

function noop(): void {}

function joinPool(workers: number): PoolContext {
  const heap = SharedHeap.create();
  createWakeRings(heap, workers);
  const scheduler = new Scheduler({ seed: 1, threadContext: false });
  // Before run(): the run's threads are counted in the heap.
  const member = new PoolMember(heap, 0, scheduler);
  return { heap, member, scheduler };
}

/**
 * Runs `main` on a one-worker pool, failing after `ms`.
 *
 * @param main The main thread.
 * @param ms The time limit.
 */
export async function soloRun(main: PoolMain, ms = 3000): Promise<void> {
  const pool = joinPool(1);
  pool.member.start({ onQuiet: noop, onMessage: noop });
  try {
    await within(ms, pool.scheduler.run((t) => main(pool, t)));
  } finally {
    pool.member.close();
  }
}

/**
 * Runs `main` as worker 0 and a Web Worker as worker 1, which runs the
 * task `setup` describes (see `_pool_worker.ts`); fails after `ms`, or as
 * soon as either side fails.
 *
 * @param setup Makes the shared objects (lock not held) and names the task.
 * @param main The main thread.
 * @param ms The time limit.
 */
export async function pairRun(
  setup: (pool: PoolContext) => PoolWorkerTask,
  main: PoolMain,
  ms = 8000,
): Promise<void> {
  const pool = joinPool(2);
  const task = setup(pool);
  pool.member.start({ onQuiet: noop, onMessage: noop });
  const worker = new Worker(new URL("./_pool_worker.ts", import.meta.url), {
    type: "module",
  });
  try {
    const finished = new Promise<void>((resolve, reject) => {
      worker.onmessage = (e: MessageEvent) => {
        if (e.data === "done") resolve();
        else reject(new Error(`worker 1 failed: ${e.data.error}`));
      };
      worker.onerror = (e: ErrorEvent) => {
        e.preventDefault();
        reject(new Error(`worker 1 failed: ${e.message}`));
      };
    });
    worker.postMessage({ memory: pool.heap.memory, task });
    await within(
      ms,
      Promise.all([pool.scheduler.run((t) => main(pool, t)), finished]),
    );
  } finally {
    worker.terminate();
    pool.member.close();
  }
}

/**
 * Waits until `thread` is parked.
 *
 * @param thread A thread of the running scheduler.
 */
export async function untilBlocked(thread: GreenThread): Promise<void> {
  while (thread.state !== "blocked") await settle();
}
