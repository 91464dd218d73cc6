// One worker's part of a run that spans workers: its scheduler, the shared
// heap, the operations its threads have parked on shared objects (by
// token), and the run's activity count, which it keeps with the others.
//
// Wake-ups: a waker completes a parked operation with the heap's lock held
// and calls `wake(worker, token)`. The woken thread is counted active at
// that moment, by the waker, so that the run's activity never reads zero
// while a wake-up is in flight. A local token is resumed when the waker
// releases the lock; a remote one goes on the owner's wake ring, whose
// doorbell the waker rings after releasing the lock. The owner resumes it
// when it drains its ring.
//
// A thread whose worker has nothing else to run may poll for a while
// instead of parking (a channel's spinner, or `spinner` for a select): then
// nobody counts it blocked, and its waker wakes nobody (see _records.ts).
// A worker whose threads all wait polls its doorbell for a while before it
// sleeps (#idleSpinner). How long, both: _spinner.ts. It then sleeps in
// place (Atomics.wait) for up to IDLE_BLOCK_MS, where a notify wakes it in
// a few microseconds, and after that in the event loop (waitAsync), where
// it takes tens.
//
// Deadlock: activity is live threads not blocked, plus pending work, over
// all workers, in the heap's Active word. When an update makes it zero,
// `onQuiet` runs (on a macrotask); the runtime then confirms with every
// worker that nothing moved (Epoch counts every rise from zero).
//
// Invariants:
//   A token names one parked operation of this worker from park until it is
//   resumed; then it is free for reuse.
//   `#remote` and `#local` are empty whenever the lock is free.

import type { RunState, SharedActivity } from "../_run_state.ts";
import type { WaitReason } from "../green_thread.ts";
import type { Scheduler } from "../scheduler.ts";
import { parkedOn, schedulerRun } from "../_thread_control.ts";
import { Spinner } from "./_spinner.ts";
import { VALUE_BYTES } from "./_values.ts";
import { Global, type SharedHeap } from "./heap.ts";
import type { SharedParked } from "./shared_wait.ts";
import { WakeRing } from "./wake_ring.ts";

export { type SharedParked, SharedWait } from "./shared_wait.ts";

function noop(): void {}

/** Options of {@linkcode PoolMember}. */
export interface PoolMemberOptions {
  /**
   * Live threads of this worker's scheduler that are not part of the run
   * (a worker's own main thread, which only keeps its scheduler going):
   * the worker is idle when all the others are blocked.
   *
   * @default {0}
   */
  serviceThreads?: number;
}

/** What a worker does with what arrives; see `PoolMember.start`. */
export interface PoolMemberHandlers {
  /** Called (on a macrotask) when the run's activity drops to zero. */
  onQuiet(): void;
  /**
   * Called with each message another worker posted to this one (see
   * `post`), in order, when this worker drains its ring.
   */
  onMessage(message: number): void;
}

// How many deferred frees wait at most for this worker's next lock: a
// worker whose channel operations all take the lock-free path would
// otherwise never free the blobs it received.
const MAX_DEFERRED = 256;
// How long a worker whose threads all wait sleeps in place (blocking its
// event loop) once its polling ran out, before it goes back to the event
// loop to sleep there: a timer or I/O of this worker's is served late by
// this much at most, once each time the worker goes idle.
const IDLE_BLOCK_MS = 1;

/**
 * One worker's view of a run that spans workers.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const scheduler = new Scheduler({ seed: 1, threadContext: false });
 * const member = new PoolMember(heap, 0, scheduler);
 * await scheduler.run(() => {
 *   assertEquals(member.self, 0);
 *   member.close();
 * });
 * ```
 */
export class PoolMember implements SharedActivity {
  /** The run's shared heap. */
  readonly heap: SharedHeap;
  /** This worker's index; 0 is the main thread. */
  readonly self: number;
  /** This worker's scheduler. */
  readonly scheduler: Scheduler;
  /**
   * The first word of this worker's scratch value area (_values.ts), where
   * a channel operation encodes a value before it moves, or copies one in
   * before it decodes it.
   */
  readonly scratch: number;
  /** How long this worker's selects poll before they park. */
  readonly spinner: Spinner;
  // How long this worker polls its doorbell when its threads all wait.
  readonly #idleSpinner: Spinner;
  /** Waiter records this worker owns and may reuse (see _records.ts). */
  readonly spares: number[] = [];
  /**
   * Set while a run records the order of its channel operations (by the
   * runtime; runtime/core/schedule_recorder.ts): every send, receive,
   * close and select on a shared channel calls it with the channel's tag,
   * holding the lock with the channel frozen, so that the lock orders the
   * attempts it notes. While it is set, those operations skip the
   * lock-free paths (the ring's, the rendezvous slot's).
   */
  attemptHook: ((tag: number) => void) | undefined = undefined;
  readonly #run: RunState;
  readonly #ring: WakeRing;
  #onQuiet: () => void = noop;
  #onMessage: (message: number) => void = noop;
  readonly #service: number;
  #parked: (SharedParked | undefined)[] = [];
  #freeTokens: number[] = [];
  // Wake-ups found while the lock is held, delivered once it is released.
  #remote: number[] = [];
  #local: number[] = [];
  // Blobs and records to free the next time the lock is taken.
  #dataToFree: number[] = [];
  #controlToFree: number[] = [];
  #tasksAtLock: (() => void)[] = [];
  #holding = false;
  // Wake-ups this worker counted active for a thread it resumes now (see
  // #resume): the resumed thread's own count is not added again.
  #credit = 0;
  #watching = false;
  #idleQueued = false;
  #closed = false;
  // A ref'd timer while parked operations wait here: a pending
  // Atomics.waitAsync alone does not keep a Deno process alive.
  #keepAlive: ReturnType<typeof setInterval> | undefined;

  /**
   * Joins `scheduler` to the run: its activity is counted in the heap from
   * now on, and its thread ids come from the heap.
   *
   * @param heap The run's heap.
   * @param self This worker's index.
   * @param scheduler This worker's scheduler.
   * @param options How many service threads the scheduler has.
   */
  constructor(
    heap: SharedHeap,
    self: number,
    scheduler: Scheduler,
    options: PoolMemberOptions = {},
  ) {
    this.heap = heap;
    this.self = self;
    this.scheduler = scheduler;
    this.#run = schedulerRun(scheduler);
    this.#ring = new WakeRing(heap, self);
    this.#service = options.serviceThreads ?? 0;
    this.spinner = new Spinner(heap.i32);
    this.#idleSpinner = new Spinner(heap.i32, 0);
    // A cache line of its own: another worker's scratch area in the same
    // line would make every value move that line between the cores.
    heap.lock();
    const block = heap.allocControl(VALUE_BYTES + 96);
    heap.unlock();
    this.scratch = ((block + 63) & ~63) >> 2;
    this.#run.share(this);
    this.#run.onSlice = () => this.#poll();
  }

  /**
   * Starts taking wake-ups and messages from the ring.
   *
   * @param handlers What to do when the run goes quiet or a message comes.
   */
  start(handlers: PoolMemberHandlers): void {
    this.#onQuiet = () => handlers.onQuiet();
    this.#onMessage = (m) => handlers.onMessage(m);
    this.#keepAlive = setInterval(noop, 2 ** 30);
    this.#watch();
    this.#drain(); // marks the ring asleep if nothing can run yet
  }

  /** Whether `close` was called: the run has ended here. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Stops watching the ring and lets the process exit. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#keepAlive);
  }

  // SharedActivity

  /**
   * Adds `delta` to the run's activity.
   *
   * @param delta The change.
   */
  changed(delta: number): void {
    if (delta === 1 && this.#credit > 0) {
      this.#credit--;
      return;
    }
    this.#count(delta);
    // A park, an exit or the end of pending work may leave nothing to run
    // here: then poll for wake-ups, and sleep marked (see #drain).
    if (delta < 0 && !this.#idleQueued && this.#isIdle()) {
      this.#idleQueued = true;
      queueMicrotask(() => this.#idle());
    }
  }

  #count(delta: number): void {
    const before = Atomics.add(this.heap.i32, Global.Active, delta);
    if (delta > 0 && before === 0) Atomics.add(this.heap.i32, Global.Epoch, 1);
    if (before + delta === 0) setImmediate(this.#onQuiet);
  }

  /**
   * The next thread id of the run.
   *
   * @returns A run-wide unique id.
   */
  nextThreadId(): number {
    return Atomics.add(this.heap.i32, Global.NextThreadId, 1);
  }

  // The lock, with deferred frees and wake-ups delivered after release.

  /** Takes the heap's lock. */
  lock(): void {
    this.heap.lock();
    this.#holding = true;
    const data = this.#dataToFree;
    if (data.length > 0) {
      for (const off of data) this.heap.freeData(off);
      data.length = 0;
    }
    const control = this.#controlToFree;
    if (control.length > 0) {
      for (const off of control) this.heap.freeControl(off);
      control.length = 0;
    }
    const tasks = this.#tasksAtLock;
    if (tasks.length > 0) {
      this.#tasksAtLock = [];
      for (const task of tasks) task();
    }
  }

  /** Releases the lock, then rings remote doorbells and resumes local tokens. */
  unlock(): void {
    this.#holding = false;
    this.heap.unlock();
    const remote = this.#remote;
    if (remote.length > 0) {
      for (const w of remote) WakeRing.ring(this.heap, w);
      remote.length = 0;
    }
    const local = this.#local;
    if (local.length > 0) {
      // Resuming may park again and queue more: take this batch first.
      this.#local = [];
      for (const token of local) this.#resume(token);
    }
  }

  /**
   * Frees a data blob the next time the lock is taken (a receiver reads a
   * blob after releasing the lock; nobody else holds it).
   *
   * @param off The blob.
   */
  freeDataLater(off: number): void {
    this.#dataToFree.push(off);
    this.#bound(this.#dataToFree);
  }

  /**
   * Runs `task` the next time this worker takes the lock, with the lock
   * held: teardown that a finalizer finds due waits for a lock taken
   * anyway, rather than taking it from the event loop, where waiting for
   * another worker to release it would block this thread.
   *
   * @param task Work on the heap; it must not take the lock.
   */
  atNextLock(task: () => void): void {
    this.#tasksAtLock.push(task);
    this.#bound(this.#tasksAtLock);
  }

  /**
   * Frees a control record the next time the lock is taken.
   *
   * @param off The record.
   */
  freeControlLater(off: number): void {
    this.#controlToFree.push(off);
    this.#bound(this.#controlToFree);
  }

  // Frees what waits once too much does, unless this worker holds the lock
  // (then its release comes soon, and the next lock frees them).
  #bound(list: unknown[]): void {
    if (list.length < MAX_DEFERRED || this.#holding) return;
    this.lock();
    this.unlock();
  }

  /**
   * Wakes the operation `token` of `worker`, completed by the caller.
   * Precondition: the lock is held.
   *
   * @param worker The owning worker.
   * @param token Its token there.
   */
  wake(worker: number, token: number): void {
    // The woken thread is active from now on; see the top of this file.
    this.changed(1);
    if (worker === this.self) {
      this.#local.push(token);
    } else {
      WakeRing.push(this.heap, worker, token);
      if (!this.#remote.includes(worker)) this.#remote.push(worker);
    }
  }

  /**
   * Posts `message` (a non-negative number, meaning what the runtime
   * makes it mean) to `worker`, behind the wake-ups already queued there.
   * Precondition: the lock is held.
   *
   * @param worker The receiving worker.
   * @param message The message.
   */
  post(worker: number, message: number): void {
    WakeRing.push(this.heap, worker, -1 - message);
    if (!this.#remote.includes(worker)) this.#remote.push(worker);
  }

  /**
   * Registers a parked operation and counts its thread as blocked.
   * Precondition: the lock is held.
   *
   * @param parked The operation.
   * @param reason The wait reason for dumps.
   * @returns Its token.
   */
  park(parked: SharedParked, reason: WaitReason): number {
    const token = this.#freeTokens.pop() ?? this.#parked.length;
    this.#parked[token] = parked;
    if (parked.thread !== undefined) parked.thread["block"](reason, parked);
    return token;
  }

  // Resumes one local token: the thread is runnable again, then the
  // operation settles. The waker counted the thread active already, so
  // unblock's count is absorbed (#credit); if unblock counts nothing, the
  // waker's count is taken back.
  #resume(token: number): void {
    const parked = this.#parked[token]!;
    this.#parked[token] = undefined;
    this.#freeTokens.push(token);
    const thread = parked.thread;
    if (thread !== undefined && thread["runState"].ended) {
      return this.#count(-1);
    }
    this.#credit = 1;
    if (thread !== undefined && parkedOn(thread) === parked) {
      thread["unblock"](parked);
    }
    if (this.#credit === 1) this.#count(-1); // unblock counted nothing
    this.#credit = 0;
    parked.settle(this);
  }

  // Takes every token on the ring; then marks the ring asleep, so that the
  // next waker notifies: this worker may go back to the event loop with
  // threads that run, or that await something outside the scheduler, and
  // only a notification reaches it there. (A waker stores the tail before
  // it reads the mark, this worker sets the mark before it reads the
  // tail: one of them sees the other.) Only `#idle`'s spin, which watches
  // the doorbell itself, clears the mark.
  #drain(): void {
    for (const token of this.#ring.drain()) {
      if (token >= 0) this.#resume(token);
      else this.#onMessage(-1 - token);
    }
    this.#ring.sleep(true);
    if (this.#ring.pending()) this.#drain();
  }

  /**
   * Whether a thread that is about to park would leave this worker with
   * nothing to run: then it may as well poll a while for the state it
   * waits for, which another worker may make within microseconds.
   *
   * @returns True if no other thread here is runnable.
   */
  aloneHere(): boolean {
    const run = this.#run;
    return run.blocked + this.#service + 1 === run.live;
  }

  #isIdle(): boolean {
    const run = this.#run;
    return !this.#closed && !run.ended &&
      run.blocked + this.#service === run.live;
  }

  // Keeps one Atomics.waitAsync on the doorbell armed for the whole run.
  #watch(): void {
    if (this.#closed || this.#watching) return;
    this.#watching = true;
    const seen = this.#ring.doorbell();
    if (this.#ring.pending()) {
      this.#watching = false;
      this.#drain();
      return queueMicrotask(() => this.#watch());
    }
    const waiting = this.#ring.wait(seen);
    const next = () => {
      this.#watching = false;
      this.#idleSpinner.answered(); // if it slept, the sleep ends here
      if (this.#closed) return;
      this.#drain();
      this.#watch();
    };
    if (waiting === undefined) queueMicrotask(next);
    else waiting.then(next);
  }

  // Every local thread is blocked: poll the doorbell for a while, so that a
  // hand-off from a busy worker costs microseconds, not a sleep.
  #idle(): void {
    this.#idleQueued = false;
    if (!this.#isIdle()) return;
    // While it spins, this worker sees the doorbell itself: no notify.
    this.#ring.sleep(false);
    const seen = this.#ring.doorbell();
    if (
      !this.#ring.pending() && !this.#ring.spin(seen, this.#idleSpinner)
    ) {
      // Then sleep in place a while: a wake-up that comes meanwhile costs
      // the kernel's few microseconds, not the event loop's tens.
      if (!this.#ring.pending() && this.#ring.block(seen, IDLE_BLOCK_MS)) {
        this.#idleSpinner.answered();
      }
    }
    this.#drain();
  }

  // A busy worker is never idle, and nobody notifies it: it takes its
  // wake-ups at the end of each time slice.
  #poll(): void {
    if (!this.#closed && this.#ring.pending()) this.#drain();
  }
}
