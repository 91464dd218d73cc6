// The scheduler: starts green threads, ends the run when the main thread
// returns (Go's rule), fails it on the first panic or on deadlock, and slices
// time so that busy threads let the host event loop run timers and I/O.
//
// A green thread is an async function run inside its own async context (see
// green_thread.ts), or with none when `threadContext` is false. `go` appends
// it to the run queue; one microtask drains the queue (outside every context
// when threads get none), starting each thread in turn until its first
// await, including threads that those spawn meanwhile. So a new thread starts
// after the spawner's current step, as a goroutine starts after the `go`
// statement, spawning never nests stacks, and a burst of spawns costs one
// microtask.
// The Deno event loop is the netpoller: it runs the timers and I/O whose
// callbacks wake parked threads.
//
// Invariants:
//   A run is idle (no main yet), running (#settle set) or ended.
//   Once ended, no thread starts, finishes, parks or wakes: the others are
//   abandoned where they stand, with their waiters unlinked.
//   #runq holds spawned threads not yet started; #drainQueued is true from
//   the first push until the drain has emptied it.
//   #yield is set while a slice-end macrotask is queued; every thread that
//   calls yieldSlice() meanwhile waits for that same macrotask.

import { clearImmediate, setImmediate } from "node:timers";
import { currentThread, type GreenThread } from "./green_thread.ts";
import { Deadlock, Panic } from "./panic.ts";
import { Random } from "./random.ts";
import { RunState, soleBusyRun } from "./_run_state.ts";
import {
  createThread,
  ENDS_ITSELF,
  enterThread,
  exitContext,
  exitThread,
  finishThread,
  lendSchedulerControl,
  linkThread,
  liveThreads,
  parkedOn,
} from "./_thread_control.ts";
import { formatThreadDump } from "./thread_dump.ts";
import type { ThreadTracer } from "./thread_tracer.ts";

/** Options for {@linkcode Scheduler}. */
export interface SchedulerOptions {
  /**
   * Seeds the PRNG that select and random kernels draw from, so that a run
   * can be repeated.
   *
   * @default {a random seed, readable as `scheduler.seed`}
   */
  seed?: number;
  /**
   * Runs each green thread in its own async context, so that code on it can
   * find it with `currentThread()`. When false, threads cost about 400 bytes
   * less each while suspended (a million parked threads fit in 1 GiB) and
   * start faster, but `currentThread()` returns `undefined` on them: code
   * names its thread explicitly, from the argument `go` and `run` pass to
   * the thread's function, as the `thread` option of every operation that
   * may park (`send`, `recv`, `select`, `sleep`, `blockForever`), and uses
   * `thread.scheduler` instead of `currentScheduler()` (in the module
   * function `go()`, and as `after()`'s `scheduler` option). An operation that parks without its thread is not
   * counted as blocked, as if made outside any green thread, so a deadlock
   * involving it goes unreported.
   *
   * @default {true}
   */
  threadContext?: boolean;
  /**
   * Told of every park and wake-up of the run's threads (a run trace);
   * none when undefined, which costs one branch per park and wake-up.
   *
   * @default {undefined}
   */
  tracer?: ThreadTracer;
}

/** Options for {@linkcode Scheduler.prototype.run}. */
export interface SchedulerRunOptions {
  /**
   * Ends the run when aborted: every thread is abandoned (as when `main`
   * returns), pending timers stop, and the run rejects with the signal's
   * reason. A thread in a long synchronous loop sees the abort at its next
   * {@linkcode Scheduler.prototype.yieldSlice}.
   *
   * @default {undefined}
   */
  signal?: AbortSignal;
}

/** Options for {@linkcode Scheduler.prototype.go}. */
export interface GoOptions {
  /**
   * A name shown in thread dumps. The thread keeps the options object, so
   * do not change it after the call (a runtime may share one per call site).
   *
   * @default {undefined}
   */
  name?: string;
  /**
   * Where the thread was spawned (`block 0 op 2 go`), shown in dumps as
   * `created at ...`.
   *
   * @default {undefined}
   */
  createdAt?: string;
}

// yieldSlice() reads the clock once per this many calls...
const CALLS_PER_CLOCK_READ = 256;
// ...and yields to the event loop once a slice of this many ms has passed.
const SLICE_MS = 4;
// A yield is a setImmediate, which costs microseconds; but under Deno a
// run of setImmediate yields serves network I/O late (a busy loop that
// yields that way answers an HTTP/2 PING after 0.5 s), while a setTimeout
// serves it at once and costs a few ms (timers nested deeper than five
// are clamped to 4 ms). So a yield this long after the last timer yield
// is a timer: network I/O waits at most about this long, for about 4% of
// a busy loop's time.
const IO_TURN_MS = 100;

function noop(): void {}

/**
 * Runs green threads: one instance per run of a program. Several may exist
 * at once in one process; each has its own threads, PRNG and deadlock
 * detection. Channels are not tied to a scheduler, but a channel shared by
 * two runs makes their deadlock reports unreliable.
 *
 * @example Usage
 * ```ts
 * import { makeChannel, Scheduler } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const s = new Scheduler({ seed: 42 });
 * let sum = 0;
 * await s.run(async () => {
 *   const ch = makeChannel<number>();
 *   for (let i = 1; i <= 3; i++) s.go(() => ch.send(i));
 *   for (let i = 0; i < 3; i++) sum += await ch.recv();
 * });
 * assertEquals(sum, 6);
 * ```
 */
export class Scheduler {
  #run: RunState;
  #nextId = 2;
  #main: GreenThread | undefined = undefined;
  #settle: PromiseWithResolvers<void> | undefined = undefined;
  #runq: GreenThread[] = [];
  #runqFns: ThreadFunction[] = [];
  #context: boolean;
  #drainQueued = false;
  #budget = CALLS_PER_CLOCK_READ;
  #sliceStart = performance.now();
  #yield: Promise<void> | undefined = undefined;
  #yieldHandle: ReturnType<typeof setImmediate> | undefined = undefined;
  #timerHandle: ReturnType<typeof setTimeout> | undefined = undefined;
  #ioTurnAt = performance.now();

  /**
   * Makes a scheduler.
   *
   * @param options The seed, and whether threads get an async context.
   */
  constructor(options?: SchedulerOptions) {
    const seed = options?.seed ?? Math.floor(Math.random() * 2 ** 53);
    this.#context = options?.threadContext ?? true;
    this.#run = new RunState(this, new Random(seed));
    this.#run.tracer = options?.tracer;
  }

  /**
   * The run's seeded PRNG. `select` draws from it; random kernels may too.
   *
   * @returns The PRNG.
   */
  get random(): Random {
    return this.#run.random;
  }

  /**
   * The seed of {@linkcode Scheduler.prototype.random}.
   *
   * @returns The seed given, or the one drawn at construction.
   */
  get seed(): number {
    return this.#run.random.seed;
  }

  /**
   * The live green threads (not done), in id order.
   *
   * @returns A snapshot array.
   *
   * @example Usage
   * ```ts
   * import { Scheduler } from "./mod.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const s = new Scheduler({ seed: 1 });
   * await s.run(() => {
   *   assertEquals(s.threads().map((t) => t.id), [1]);
   * });
   * ```
   */
  threads(): GreenThread[] {
    return liveThreads(this.#run).sort((a, b) => a.id - b.id);
  }

  /**
   * Runs `main` as green thread 1 and settles when the run ends. The run
   * ends when `main` returns, whatever the other threads are doing; they
   * are abandoned (Go's rule). It fails with the first {@linkcode Panic} of
   * any thread, or with {@linkcode Deadlock} when every thread is blocked
   * and no timer, hold or abortable operation is pending.
   *
   * @param main The main thread's function; it gets the main thread.
   * @param options An abort signal that ends the run.
   * @returns A promise that fulfils when `main` returns.
   * @throws {Panic} The first panic (or wrapped error) of any thread.
   * @throws {Deadlock} When every thread is asleep.
   * @throws {Error} If this scheduler has already run.
   * @throws {unknown} The signal's reason, when it aborts the run.
   *
   * @example Usage
   * ```ts
   * import { Scheduler, sleep } from "./mod.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const s = new Scheduler({ seed: 1 });
   * let lateRan = false;
   * await s.run(() => {
   *   s.go(async () => {
   *     await sleep(10);
   *     lateRan = true; // never: main returned first
   *   });
   * });
   * await new Promise((r) => setTimeout(r, 20));
   * assertEquals(lateRan, false);
   * ```
   *
   * @example Ending a run that would not end by itself
   * ```ts
   * import { Scheduler } from "./mod.ts";
   * import { assertRejects } from "@std/assert";
   *
   * const s = new Scheduler({ seed: 1 });
   * const spinning = s.run(async () => {
   *   for (;;) {
   *     const slice = s.yieldSlice();
   *     if (slice) await slice;
   *   }
   * }, { signal: AbortSignal.timeout(10) });
   * await assertRejects(() => spinning, DOMException, "timeout");
   * ```
   */
  run(main: ThreadFunction, options: SchedulerRunOptions = {}): Promise<void> {
    if (this.#main !== undefined) {
      return Promise.reject(
        new Error("Cannot run the scheduler: it has already run"),
      );
    }
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.#settle = Promise.withResolvers<void>();
    this.#run.detect(() => this.#deadlock());
    this.#main = createThread(this.#run, 1, undefined, undefined);
    this.#spawn(this.#main, main);
    if (signal === undefined) return this.#settle.promise;
    const abort = () => this.#end({ error: signal.reason });
    signal.addEventListener("abort", abort, { once: true });
    const forget = () => signal.removeEventListener("abort", abort);
    return this.#settle.promise.finally(forget);
  }

  /**
   * Starts `fn` on a new green thread (Go's `go` statement). The thread
   * starts after the caller's current synchronous step, on a microtask.
   *
   * @param fn The thread's function; it gets the new thread, to pass as the
   * `thread` option of the operations it parks on.
   * @param options A name and a creation site for dumps.
   * @returns The new thread.
   *
   * @example Usage
   * ```ts
   * import { makeChannel, Scheduler } from "./mod.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const s = new Scheduler({ seed: 1 });
   * await s.run(async () => {
   *   const done = makeChannel<string>();
   *   const t = s.go(() => done.send("hi"), { createdAt: "main.ts:7" });
   *   assertEquals(t.id, 2);
   *   assertEquals(await done.recv(), "hi");
   * });
   * ```
   *
   * @example Naming the thread explicitly (no async context)
   * ```ts
   * import { makeChannel, Scheduler } from "./mod.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const s = new Scheduler({ seed: 1, threadContext: false });
   * await s.run(async (main) => {
   *   const ch = makeChannel<number>();
   *   s.go((t) => ch.send(t.id, { thread: t }));
   *   assertEquals(await ch.recv({ thread: main }), 2);
   * });
   * ```
   */
  go(fn: ThreadFunction, options?: GoOptions): GreenThread {
    const t = createThread(this.#run, this.#newId(), options, undefined);
    this.#spawn(t, fn);
    return t;
  }

  /**
   * Like {@linkcode Scheduler.prototype.go}, naming the spawning thread:
   * the new thread's random stream derives from `parent`'s (see
   * {@linkcode GreenThread.prototype.random}), so what it draws does not
   * depend on how the run's threads interleave.
   *
   * @param parent The spawning thread, of this scheduler.
   * @param fn The thread's function; it gets the new thread.
   * @param options A name and a creation site for dumps.
   * @returns The new thread.
   *
   * @example Usage
   * ```ts
   * import { Scheduler } from "./mod.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const s = new Scheduler({ seed: 1, threadContext: false });
   * await s.run((main) => {
   *   assertEquals(s.goFrom(main, () => {}).id, 2);
   * });
   * ```
   */
  goFrom(
    parent: GreenThread,
    fn: ThreadFunction,
    options?: GoOptions,
  ): GreenThread {
    return this.#goFrom(parent, fn, options);
  }

  // A parent may also be a stream key a thread reserved for a child spawned
  // here (goFromKey in _thread_control.ts).
  #goFrom(
    parent: GreenThread | number,
    fn: ThreadFunction,
    options: GoOptions | undefined,
  ): GreenThread {
    const t = createThread(this.#run, this.#newId(), options, parent);
    this.#spawn(t, fn);
    return t;
  }

  // Thread ids are unique in the run, across its workers when it spans some.
  #newId(): number {
    return this.#run.shared?.nextThreadId() ?? this.#nextId++;
  }

  /**
   * Registers pending work outside the threads (file I/O, a GPU read-back,
   * an RPC) whose completion will wake a thread through a channel, so that
   * threads waiting for it are not reported as deadlocked. A thread that
   * simply awaits such work needs no hold: it is not blocked on a channel
   * (unless it left a channel operation parked before awaiting).
   *
   * @returns A function that releases the hold; calling it again does
   * nothing.
   *
   * @example Usage
   * ```ts
   * import { makeChannel, Scheduler } from "./mod.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const s = new Scheduler({ seed: 1 });
   * await s.run(async () => {
   *   const ch = makeChannel<string>(1);
   *   const release = s.hold();
   *   setTimeout(() => {
   *     ch.send("read");
   *     release();
   *   }, 5);
   *   assertEquals(await ch.recv(), "read");
   * });
   * ```
   */
  hold(): () => void {
    const run = this.#run;
    if (run.ended) return noop;
    run.addPending();
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      run.settle();
    };
  }

  /**
   * Ends the current time slice if it is over: returns `undefined` (at the
   * cost of a counter decrement, and a clock read every few hundred calls)
   * until about 4 ms have passed since the last yield, then a promise that
   * resolves after one macrotask, so that timers and I/O run. Call it once
   * per iteration of a long-running loop; await only what it returns.
   *
   * @param heavy Whether the iteration did work that may have taken long
   * (a large kernel): the clock is read now rather than some hundred
   * calls later, so that a loop of a few slow iterations still yields.
   * @returns `undefined`, or a promise to await.
   *
   * @example Usage
   * ```ts
   * import { Scheduler } from "./mod.ts";
   * import { assert } from "@std/assert";
   *
   * const s = new Scheduler({ seed: 1 });
   * await s.run(async () => {
   *   let fired = false;
   *   setTimeout(() => fired = true, 1);
   *   while (!fired) {
   *     const y = s.yieldSlice();
   *     if (y) await y;
   *   }
   *   assert(fired);
   * });
   * ```
   */
  yieldSlice(heavy = false): Promise<void> | undefined {
    if (--this.#budget > 0 && !heavy) return undefined;
    return this.#endSlice();
  }

  #endSlice(): Promise<void> | undefined {
    if (this.#yield !== undefined) return this.#yield;
    if (this.#run.ended) return new Promise(noop);
    this.#budget = CALLS_PER_CLOCK_READ;
    this.#run.onSlice?.();
    const now = performance.now();
    if (now - this.#sliceStart < SLICE_MS) return undefined;
    // Leave #budget at 0 so that every caller joins this yield until the
    // macrotask runs.
    this.#budget = 0;
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#yield = promise;
    const resume = () => {
      this.#yield = undefined;
      this.#yieldHandle = undefined;
      this.#timerHandle = undefined;
      this.#budget = CALLS_PER_CLOCK_READ;
      this.#sliceStart = performance.now();
      resolve();
    };
    if (now - this.#ioTurnAt < IO_TURN_MS) {
      this.#yieldHandle = setImmediate(resume);
    } else {
      this.#ioTurnAt = now;
      this.#timerHandle = setTimeout(resume, 0);
    }
    return promise;
  }

  #spawn(t: GreenThread, fn: ThreadFunction): void {
    if (this.#run.ended) return;
    linkThread(t);
    this.#runq.push(t);
    this.#runqFns.push(fn);
    if (!this.#drainQueued) {
      this.#drainQueued = true;
      // Threads without a context of their own must not inherit the
      // spawner's: drain outside every context.
      queueMicrotask(
        this.#context
          ? () => this.#drain()
          : () => exitContext(() => this.#drain()),
      );
    }
  }

  #drain(): void {
    const runq = this.#runq;
    const fns = this.#runqFns;
    // Threads started here may spawn more: the loop reaches them too.
    for (let i = 0; i < runq.length; i++) {
      if (this.#run.ended) break;
      this.#start(runq[i], fns[i]);
    }
    // A burst of spawns leaves long arrays: let them go rather than keep
    // their backing stores.
    if (runq.length > 1024) {
      this.#runq = [];
      this.#runqFns = [];
    } else {
      runq.length = 0;
      fns.length = 0;
    }
    this.#drainQueued = false;
  }

  #start(t: GreenThread, fn: ThreadFunction): void {
    let result: unknown;
    try {
      result = enterThread(t, fn, this.#context);
    } catch (error) {
      return this.#exit(t, Panic.from(error, t));
    }
    if (result === ENDS_ITSELF) return;
    if (result instanceof Promise) awaitThread(t, result);
    else this.#exit(t, undefined);
  }

  #exit(t: GreenThread, panic: Panic | undefined): void {
    const run = this.#run;
    if (run.ended) return; // abandoned: the run is over
    if (panic !== undefined) return this.#panicked(t, panic);
    finishThread(t, undefined);
    if (t === this.#main) return this.#end();
    // The last runnable thread may have gone: look again for a deadlock.
    if (!run.checkQueued) run.queueCheck();
  }

  #panicked(t: GreenThread, panic: Panic): void {
    // The dump shows the panicking thread as it was, so take it first.
    panic.dump = formatThreadDump(this.threads());
    const observed = finishThread(t, panic);
    if (this.#settle !== undefined) return this.#end({ error: panic });
    // No run to fail (threads started with go() outside run()): unless
    // someone awaits the thread, report the panic as uncaught, which ends
    // the program as a Go panic does.
    if (!observed) reportError(panic);
  }

  #deadlock(): void {
    this.#end({ error: new Deadlock(this.threads()) });
  }

  #end(outcome?: { error: unknown }): void {
    const settle = this.#settle;
    if (settle === undefined) return; // already ended
    const run = this.#run;
    run.end();
    if (this.#yieldHandle !== undefined) clearImmediate(this.#yieldHandle);
    clearTimeout(this.#timerHandle);
    // Abandon the other threads: unlink their waiters, so no channel keeps
    // a waiter that can never resume.
    for (const t of liveThreads(run)) parkedOn(t)?.unlink();
    this.#settle = undefined;
    if (outcome === undefined) settle.resolve();
    else settle.reject(outcome.error);
  }

  // The runtime's side of a scheduler, which _thread_control.ts calls (see
  // there).
  static {
    lendSchedulerControl({
      schedulerRun: (s) => s.#run,
      exitThread: (t, panic) => t.scheduler.#exit(t, panic),
      goFromKey: (s, key, fn, options) => s.#goFrom(key, fn, options),
    });
  }
}

let fallback: Scheduler | undefined;

/**
 * The PRNG for an operation that names neither its thread nor a PRNG: while
 * exactly one scheduler has live threads (the usual case) that scheduler's,
 * found without looking up the calling thread; else
 * {@linkcode currentScheduler}'s.
 *
 * @returns A PRNG.
 *
 * @example Usage
 * ```ts
 * import { currentRandom, Scheduler } from "./scheduler.ts";
 * import { assert } from "@std/assert";
 *
 * const s = new Scheduler({ seed: 1, threadContext: false });
 * await s.run(() => {
 *   assert(currentRandom() === s.random);
 * });
 * ```
 */
export function currentRandom(): Random {
  return soleBusyRun()?.random ?? currentScheduler().random;
}

/**
 * The scheduler of the calling green thread, or outside any green thread the
 * process-wide default scheduler, which has no run: its threads are never
 * reported as deadlocked, and a panic in one is reported as an uncaught
 * error unless its `done` is awaited.
 *
 * @returns The current scheduler.
 *
 * @example Usage
 * ```ts
 * import { currentScheduler, Scheduler } from "./mod.ts";
 * import { assert } from "@std/assert";
 *
 * const s = new Scheduler({ seed: 1 });
 * await s.run(() => {
 *   assert(currentScheduler() === s);
 * });
 * assert(currentScheduler() !== s);
 * ```
 */
export function currentScheduler(): Scheduler {
  return currentThread()?.scheduler ?? (fallback ??= new Scheduler());
}

/**
 * Starts `fn` on a new green thread of the current scheduler (see
 * {@linkcode currentScheduler}): Go's `go` statement.
 *
 * @param fn The thread's function.
 * @param options A name and a creation site for dumps.
 * @returns The new thread.
 *
 * @example Usage
 * ```ts
 * import { go, makeChannel } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const ch = makeChannel<number>();
 * go(() => ch.send(42));
 * assertEquals(await ch.recv(), 42);
 * ```
 */
export function go(fn: ThreadFunction, options?: GoOptions): GreenThread {
  return currentScheduler().go(fn, options);
}

/**
 * Runs `main` on a new {@linkcode Scheduler}: see
 * {@linkcode Scheduler.prototype.run}.
 *
 * @param main The main thread's function.
 * @param options The scheduler's options, and an abort signal for the run.
 * @returns A promise that fulfils when `main` returns.
 * @throws {Panic} The first panic of any thread.
 * @throws {Deadlock} When every thread is asleep.
 *
 * @example Usage
 * ```ts
 * import { go, makeChannel, run } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * let got = 0;
 * await run(async () => {
 *   const ch = makeChannel<number>();
 *   go(() => ch.send(9));
 *   got = await ch.recv();
 * }, { seed: 7 });
 * assertEquals(got, 9);
 * ```
 */
export function run(
  main: ThreadFunction,
  options?: SchedulerOptions & SchedulerRunOptions,
): Promise<void> {
  return new Scheduler(options).run(main, options);
}

/**
 * A green thread's function: it gets its own thread, to name in the
 * operations it parks on when the scheduler gives threads no async context.
 */
export type ThreadFunction = (thread: GreenThread) => unknown;

// Watches a suspended thread's promise. The handlers are bound to the thread
// (no closure context, no bound arguments): this costs per parked thread.
function awaitThread(t: GreenThread, result: Promise<unknown>): void {
  result.then(threadReturned.bind(t), threadThrew.bind(t));
}

function threadReturned(this: GreenThread): void {
  exitThread(this, undefined);
}

function threadThrew(this: GreenThread, error: unknown): void {
  exitThread(this, Panic.from(error, this));
}
