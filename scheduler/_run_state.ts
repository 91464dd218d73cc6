// Bookkeeping that one Scheduler shares with the channels, selects and timers
// that park and wake its green threads.
//
// Everything runs on one JavaScript thread, so a field is guarded simply by
// not awaiting between reading and writing it.
//
// Invariants:
//   blocked counts the live threads whose state is "blocked" (0 <= blocked
//   <= live); the others are
//   runnable (running, resolved and queued as a microtask, or awaiting
//   something outside the scheduler, which may wake them by itself).
//   pending counts work outside the threads that may wake a blocked thread
//   later: timers, holds, and parked operations with an AbortSignal.
//   Deadlock: no thread is runnable and nothing is pending, seen from a
//   macrotask, when no microtask can still wake anyone.
//   Once ended, nothing is woken and nothing new is parked or started.
//   When the run spans several workers (`shared` set), every change of
//   live - blocked + pending is also reported to `shared`, which keeps the
//   sum over all workers and detects deadlock there; the local check is off.

import type { GreenThread } from "./green_thread.ts";
import type { Random } from "./random.ts";
import type { Scheduler } from "./scheduler.ts";
import type { ThreadTracer } from "./thread_tracer.ts";
import { clearImmediate, setImmediate } from "node:timers";

/** A setTimeout handle. */
export type TimerHandle = ReturnType<typeof setTimeout>;

/**
 * Where a run that spans workers counts its activity: live threads that
 * are not blocked, plus pending work, summed over every worker.
 */
export interface SharedActivity {
  /** Adds `delta` to this worker's share of the run's activity. */
  changed(delta: number): void;
  /** The next thread id of the run, unique across its workers. */
  nextThreadId(): number;
}

/** Shared state of one Scheduler; see the invariants above. */
export class RunState {
  /** The public face of this run. */
  readonly scheduler: Scheduler;
  /** The seeded PRNG of the run. */
  readonly random: Random;
  /** Threads spawned and not finished: a list linked through the threads. */
  liveHead: GreenThread | undefined = undefined;
  liveTail: GreenThread | undefined = undefined;
  /** How many threads are on the live list. */
  live = 0;
  /** Live threads parked on a channel, select, nil channel or sleep. */
  blocked = 0;
  /** Timers, holds and abortable parked operations still outstanding. */
  pending = 0;
  /** setTimeout handles of sleep and after; cleared when the run ends. */
  readonly timers: Set<TimerHandle> = new Set();
  /** The run has settled: wake-ups are dropped, parks never return. */
  ended = false;
  /** Set when the run spans workers; see the invariants. */
  shared: SharedActivity | undefined = undefined;
  /** Told of every park and wake-up when the run is traced. */
  tracer: ThreadTracer | undefined = undefined;
  #isBusy = false;
  #prevBusy: RunState | undefined = undefined;
  #nextBusy: RunState | undefined = undefined;
  /** Runs at the end of each time slice, before the host event loop. */
  onSlice: (() => void) | undefined = undefined;
  /** True while a deadlock check is queued, or forever when no run can fail. */
  checkQueued = true;
  /** Reports a deadlock; set while a run is in progress. */
  #onDeadlock: (() => void) | undefined;
  #checkHandle: ReturnType<typeof setImmediate> | undefined;

  constructor(scheduler: Scheduler, random: Random) {
    this.scheduler = scheduler;
    this.random = random;
  }

  /** Starts deadlock detection for a run; `onDeadlock` ends the run. */
  detect(onDeadlock: () => void): void {
    this.#onDeadlock = onDeadlock;
    this.checkQueued = this.shared !== undefined;
  }

  /**
   * Makes this run one worker's part of a run that spans workers: activity
   * is counted in `shared`, and this worker looks for no deadlock itself.
   */
  share(shared: SharedActivity): void {
    this.shared = shared;
    this.checkQueued = true;
  }

  /** One more unit of pending work (a timer, a hold, an abortable park). */
  addPending(): void {
    this.pending++;
    this.shared?.changed(1);
  }

  /**
   * Queues one deadlock check on the macrotask queue. Callers test
   * `checkQueued` first, so a park costs one field read in the common case.
   */
  queueCheck(): void {
    this.checkQueued = true;
    this.#checkHandle = setImmediate(() => this.#check());
  }

  /** One unit of pending work finished; a deadlock may have become visible. */
  settle(): void {
    this.pending--;
    this.shared?.changed(-1);
    if (!this.checkQueued) this.queueCheck();
  }

  /**
   * Runs `fire` after `ms` unless the run ends first; the timer counts as
   * pending work until it fires or is stopped.
   */
  startTimer(ms: number, fire: () => void): TimerHandle {
    this.addPending();
    const handle = setTimeout(() => {
      this.timers.delete(handle);
      if (this.ended) return;
      fire();
      this.settle();
    }, ms);
    this.timers.add(handle);
    return handle;
  }

  /** Cancels a timer from `startTimer` that has not fired. */
  stopTimer(handle: TimerHandle): void {
    if (this.timers.delete(handle)) {
      clearTimeout(handle);
      this.settle();
    }
  }

  /** Ends the run: no more checks, timers or wake-ups. */
  /** Counts a thread added to the live list. */
  addLive(): void {
    if (this.live++ === 0 && !this.ended) this.#busy(true);
  }

  /** Uncounts a thread taken off the live list. */
  removeLive(): void {
    if (--this.live === 0) this.#busy(false);
  }

  end(): void {
    this.#busy(false);
    this.ended = true;
    this.checkQueued = true;
    this.#onDeadlock = undefined;
    if (this.#checkHandle !== undefined) clearImmediate(this.#checkHandle);
    for (const handle of this.timers) clearTimeout(handle);
    this.timers.clear();
  }

  // Joins or leaves the runs with live threads (see the end of the file).
  #busy(yes: boolean): void {
    if (yes === this.#isBusy) return;
    this.#isBusy = yes;
    if (yes) {
      this.#nextBusy = busyHead;
      if (busyHead !== undefined) busyHead.#prevBusy = this;
      busyHead = this;
      busyCount++;
      return;
    }
    const prev = this.#prevBusy, next = this.#nextBusy;
    if (prev === undefined) busyHead = next;
    else prev.#nextBusy = next;
    if (next !== undefined) next.#prevBusy = prev;
    this.#prevBusy = this.#nextBusy = undefined;
    busyCount--;
  }

  #check(): void {
    this.#checkHandle = undefined;
    this.checkQueued = false;
    if (this.ended || this.pending > 0) return;
    if (this.live > 0 && this.blocked === this.live) this.#onDeadlock?.();
  }
}

// The runs that have live threads and have not ended, linked through
// their #prevBusy/#nextBusy fields (a transition costs a few writes, which
// a thread that spawns and finishes alone pays each time), and how many:
// while exactly one has any, a thread that names no PRNG most likely
// belongs to it (`currentRandom`), so it need not be looked up.
let busyHead: RunState | undefined;
let busyCount = 0;

/**
 * The only run with live threads, if exactly one has any.
 *
 * @returns The run, or `undefined`.
 */
export function soleBusyRun(): RunState | undefined {
  return busyCount === 1 ? busyHead : undefined;
}
