// The scheduler's side of a green thread: making threads, entering their
// async context, the live list, finishing threads, and ending the threads a
// runtime ends itself. Only the scheduler, the waiters, the timers and the
// pool (scheduler/shared/, and the runtime's block runner for ENDS_ITSELF
// and exitThread) call these; programs see a GreenThread's public members
// only. What runs on every park and wake-up (a thread's run, block and
// unblock) stays a method of GreenThread, private to the type: see there.
//
// GreenThread and Scheduler keep their state in #private fields. Each class
// lends this module closures over those fields once, from a static block,
// when its module is evaluated (before any thread exists), and this module
// exports them as they are: bindings that importers only read, assigned by
// lendThreadControl and lendSchedulerControl alone. So the fields stay
// private to their class, and a call is one call, though through an
// imported binding, which costs more than a method call: fine once per
// thread, not once per channel operation.
//
// The invariants these keep are green_thread.ts's and _run_state.ts's.

import type { GreenThread } from "./green_thread.ts";
import type { Panic } from "./panic.ts";
import type { RunState } from "./_run_state.ts";
import type { GoOptions, Scheduler, ThreadFunction } from "./scheduler.ts";

/** What a parked thread waits on, so that the end of a run can unlink it. */
export interface Parked {
  /** Takes the parked operation's waiters off their channels. */
  unlink(): void;
}

/** A thread's name and creation site, as `GoOptions` gives them. */
export interface GoOrigin {
  /** The name for dumps. */
  readonly name?: string;
  /** Where the thread was spawned. */
  readonly createdAt?: string;
}

/** What GreenThread lends this module (see the top of the file). */
export interface ThreadControl {
  createThread: (
    run: RunState,
    id: number,
    origin: GoOrigin | undefined,
    parent: GreenThread | number | undefined,
  ) => GreenThread;
  parkedOn: (thread: GreenThread) => Parked | undefined;
  nextLive: (thread: GreenThread) => GreenThread | undefined;
  reserveChildKey: (thread: GreenThread) => number;
  linkThread: (thread: GreenThread) => void;
  finishThread: (thread: GreenThread, panic: Panic | undefined) => boolean;
  enterThread: <R>(
    thread: GreenThread,
    fn: (thread: GreenThread) => R,
    context: boolean,
  ) => R;
  exitContext: (fn: () => void) => void;
}

/** What Scheduler lends this module (see the top of the file). */
export interface SchedulerControl {
  schedulerRun: (scheduler: Scheduler) => RunState;
  exitThread: (thread: GreenThread, panic: Panic | undefined) => void;
  goFromKey: (
    scheduler: Scheduler,
    key: number,
    fn: ThreadFunction,
    options: GoOptions | undefined,
  ) => GreenThread;
}

/**
 * Takes GreenThread's closures; only its static block calls this.
 *
 * @param control The closures.
 */
export function lendThreadControl(control: ThreadControl): void {
  ({
    createThread,
    parkedOn,
    nextLive,
    reserveChildKey,
    linkThread,
    finishThread,
    enterThread,
    exitContext,
  } = control);
}

/**
 * Takes Scheduler's closures; only its static block calls this.
 *
 * @param control The closures.
 */
export function lendSchedulerControl(control: SchedulerControl): void {
  ({ schedulerRun, exitThread, goFromKey } = control);
}

let nextLive: ThreadControl["nextLive"];

/**
 * Makes a thread of `run`; only Scheduler calls this. A thread with a
 * `parent` draws from a random stream derived from the parent's; a number
 * is a stream key reserved with {@linkcode reserveChildKey}.
 *
 * @param run The run the thread belongs to.
 * @param id Its number in the run.
 * @param origin Its name and creation site.
 * @param parent The spawning thread, a reserved stream key, or none.
 * @returns The thread, not yet on the run's live list.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "./scheduler.ts";
 * import { createThread, schedulerRun } from "./_thread_control.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const s = new Scheduler({ seed: 1 });
 * const t = createThread(schedulerRun(s), 9, { name: "x" }, undefined);
 * assertEquals([t.id, t.name, t.scheduler === s], [9, "x", true]);
 * ```
 */
export let createThread: ThreadControl["createThread"];

/**
 * What a thread waits on while blocked.
 *
 * @param thread The thread.
 * @returns The operation it parked last, or `undefined` unless blocked.
 *
 * @example Usage
 * ```ts
 * import { Channel, Scheduler } from "./mod.ts";
 * import { parkedOn } from "./_thread_control.ts";
 * import { assert } from "@std/assert";
 *
 * const s = new Scheduler({ seed: 1 });
 * await s.run(async (main) => {
 *   const ch = new Channel<number>();
 *   const t = s.go(() => ch.recv());
 *   await Promise.resolve();
 *   assert(parkedOn(t) !== undefined && parkedOn(main) === undefined);
 *   ch.send(1);
 * });
 * ```
 */
export let parkedOn: ThreadControl["parkedOn"];

/**
 * The live threads of a run, in spawn order.
 *
 * @param run The run.
 * @returns Its threads that have not finished.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "./scheduler.ts";
 * import { liveThreads, schedulerRun } from "./_thread_control.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const s = new Scheduler({ seed: 1 });
 * await s.run(() => {
 *   s.go(() => {});
 *   assertEquals(liveThreads(schedulerRun(s)).map((t) => t.id), [1, 2]);
 * });
 * ```
 */
export function liveThreads(run: RunState): GreenThread[] {
  const list: GreenThread[] = [];
  for (let t = run.liveHead; t !== undefined; t = nextLive(t)) {
    list.push(t);
  }
  return list;
}

/**
 * Reserves the random stream of a thread's next child: the key a child
 * spawned on another worker is made with ({@linkcode goFromKey}), so that
 * it draws what it would have drawn here. The pool calls this.
 *
 * @param thread The spawning thread.
 * @returns A stream key.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "./scheduler.ts";
 * import { goFromKey, reserveChildKey } from "./_thread_control.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const draws: number[] = [];
 * for (const elsewhere of [false, true]) {
 *   const s = new Scheduler({ seed: 1, threadContext: false });
 *   await s.run((main) => {
 *     const child = elsewhere
 *       ? goFromKey(s, reserveChildKey(main), () => {}, undefined)
 *       : s.goFrom(main, () => {});
 *     draws.push(child.random.nextUint32());
 *   });
 * }
 * assertEquals(draws[0], draws[1]);
 * ```
 */
export let reserveChildKey: ThreadControl["reserveChildKey"];

/**
 * Adds a new thread to its run's live list; only Scheduler calls this.
 *
 * @param thread The thread, fresh from `createThread`.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "./scheduler.ts";
 * import {
 *   createThread,
 *   linkThread,
 *   schedulerRun,
 * } from "./_thread_control.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const s = new Scheduler({ seed: 1 });
 * const t = createThread(schedulerRun(s), 5, undefined, undefined);
 * linkThread(t);
 * assertEquals(s.threads(), [t]);
 * ```
 */
export let linkThread: ThreadControl["linkThread"];

/**
 * Marks `thread` done and takes it off the live list, settling `done` with
 * its panic if any; only Scheduler calls this.
 *
 * @param thread The thread.
 * @param panic What ended it, if it panicked.
 * @returns Whether anyone has asked for the thread's `done`.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "./scheduler.ts";
 * import {
 *   createThread,
 *   finishThread,
 *   linkThread,
 *   schedulerRun,
 * } from "./_thread_control.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const s = new Scheduler({ seed: 1 });
 * const t = createThread(schedulerRun(s), 5, undefined, undefined);
 * linkThread(t);
 * assertEquals(finishThread(t, undefined), false);
 * assertEquals([t.state, s.threads().length], ["done", 0]);
 * ```
 */
export let finishThread: ThreadControl["finishThread"];

/**
 * Calls `fn(thread)` as the body of `thread`, inside its own async context
 * when `context` is true, else with none (see `exitContext`).
 *
 * @typeParam R What `fn` returns.
 * @param thread The thread.
 * @param fn Its body.
 * @param context Whether the thread has an async context of its own.
 * @returns What `fn` returns.
 *
 * @example Usage
 * ```ts
 * import { currentThread, Scheduler } from "./mod.ts";
 * import { enterThread } from "./_thread_control.ts";
 * import { assertEquals } from "@std/assert";
 *
 * await new Scheduler({ seed: 1 }).run((main) => {
 *   assertEquals(enterThread(main, () => currentThread(), false), main);
 * });
 * ```
 */
export let enterThread: ThreadControl["enterThread"];

/**
 * Calls `fn` outside every green thread's async context, so that threads it
 * starts without a context of their own do not inherit the caller's.
 *
 * @param fn What to call.
 *
 * @example Usage
 * ```ts
 * import { currentThread, Scheduler } from "./mod.ts";
 * import { exitContext } from "./_thread_control.ts";
 * import { assertEquals } from "@std/assert";
 *
 * await new Scheduler({ seed: 1 }).run(() => {
 *   exitContext(() => assertEquals(currentThread(), undefined));
 * });
 * ```
 */
export let exitContext: ThreadControl["exitContext"];

/**
 * The state of a scheduler's run (timers, parking, a pool).
 *
 * @param scheduler The scheduler.
 * @returns Its run's state.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "./scheduler.ts";
 * import { schedulerRun } from "./_thread_control.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const s = new Scheduler({ seed: 1 });
 * assertEquals(schedulerRun(s).scheduler, s);
 * ```
 */
export let schedulerRun: SchedulerControl["schedulerRun"];

/**
 * Starts `fn` on a new green thread of `scheduler` whose random stream is
 * `key`, reserved with {@linkcode reserveChildKey} by its parent on another
 * worker: `Scheduler.goFrom` for a child spawned away from its parent. The
 * pool calls this.
 *
 * @param scheduler The scheduler.
 * @param key The child's stream key.
 * @param fn The thread's function; it gets the new thread.
 * @param options A name and a creation site for dumps.
 * @returns The new thread.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "./scheduler.ts";
 * import { goFromKey, reserveChildKey } from "./_thread_control.ts";
 * import { assert } from "@std/assert";
 *
 * const s = new Scheduler({ seed: 1, threadContext: false });
 * await s.run((main) => {
 *   const child = goFromKey(s, reserveChildKey(main), () => {}, undefined);
 *   assert(child.random !== main.random);
 * });
 * ```
 */
export let goFromKey: SchedulerControl["goFromKey"];

/**
 * What a thread's function returns to say that it will end its thread
 * itself: it promises to call {@linkcode exitThread} exactly once, later,
 * and to let no error escape. The scheduler then does not watch a promise
 * for the thread, which saves about 190 bytes per suspended thread; the
 * runtime's interpreter ends its threads this way.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "./scheduler.ts";
 * import { ENDS_ITSELF, exitThread } from "./_thread_control.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const s = new Scheduler({ seed: 1 });
 * await s.run(async () => {
 *   const t = s.go((t) => {
 *     setTimeout(() => exitThread(t, undefined), 1);
 *     return ENDS_ITSELF;
 *   });
 *   await t.done;
 *   assertEquals(t.state, "done");
 * });
 * ```
 */
export const ENDS_ITSELF: unique symbol = Symbol("rill.endsItself");

/**
 * Ends `thread`, which returned or threw `panic`: what a thread function
 * that returned {@linkcode ENDS_ITSELF} calls once it is over. Does
 * nothing once the thread's run has ended.
 *
 * @param thread The thread.
 * @param panic What ended it, if it panicked.
 *
 * @example Usage
 * ```ts
 * import { Panic, Scheduler } from "./mod.ts";
 * import { ENDS_ITSELF, exitThread } from "./_thread_control.ts";
 * import { assertRejects } from "@std/assert";
 *
 * const s = new Scheduler({ seed: 1 });
 * await assertRejects(
 *   () =>
 *     s.run((main) => {
 *       queueMicrotask(() => exitThread(main, new Panic("boom")));
 *       return ENDS_ITSELF;
 *     }),
 *   Panic,
 *   "boom",
 * );
 * ```
 */
export let exitThread: SchedulerControl["exitThread"];
