// Green threads: async continuations that the Scheduler knows by id, state
// and wait reason.
//
// By default a green thread runs inside `storage.run(thread, fn)`, so every
// await in it carries the thread along and `currentThread()` finds it. Reading
// the storage costs a few tens of nanoseconds, so only the parking path reads
// it: an operation that completes at once never asks which thread it runs on.
// A scheduler made with `threadContext: false` skips the async context (about
// 400 bytes per suspended thread); its threads name themselves instead, by
// passing `{ thread }` to each operation that may park.
//
// Invariants:
//   state is "blocked" exactly while the thread is counted in its run's
//   `blocked` (#status holds its wait reason, else "runnable" or "done"),
//   and then `#parked` names the operation it waits on: the one it
//   parked last, which the code awaits. Only resuming that operation makes
//   the thread runnable; each operation resumes at most once.
//   "done" is final; done settles once, when the thread's function settles.
//   A thread is on its run's live list (liveHead..liveTail, linked through
//   #prevLive/#nextLive) from spawn until it is done.
//   Code may park an operation without awaiting it at once (a promise it
//   drops or awaits later). The thread counts as blocked on whichever
//   operation it parked last, even while it awaits something else (hold()
//   covers such a wait); an earlier operation completing does not make it
//   runnable, and none is counted after the thread is done.
//   The key names the thread's random stream: 0 for the main thread, else a
//   hash of its parent's key and its place among the parent's children
//   (of its id when spawned without a parent), so that what a thread draws
//   depends on the seed and the thread's lineage, not on which worker or
//   in which order threads ran.

import { AsyncLocalStorage } from "node:async_hooks";
import { Panic } from "./panic.ts";
import { Random } from "./random.ts";
import type { RunState } from "./_run_state.ts";
import type { Scheduler } from "./scheduler.ts";
import {
  type GoOrigin,
  lendThreadControl,
  type Parked,
} from "./_thread_control.ts";

const storage = new AsyncLocalStorage<GreenThread>();

/** Where a green thread is in its life: running or ready to, parked, or finished. */
export type ThreadState = "runnable" | "blocked" | "done";

/** Why a green thread is parked, in the words of Go's goroutine dumps. */
export type WaitReason =
  | "chan receive"
  | "chan send"
  | "chan receive (nil chan)"
  | "chan send (nil chan)"
  | "select"
  | "select (no cases)"
  | "sleep"
  | "sync.WaitGroup.Wait";

function noop(): void {}

// The resolvers of a thread's `done`, and once it ends, its panic if any.
interface DoneRecord extends PromiseWithResolvers<void> {
  panic?: Panic | undefined;
}

/**
 * Reads the green thread that the calling code runs on.
 *
 * It costs a lookup in `AsyncLocalStorage`, so call it off hot paths.
 *
 * @returns The current green thread, or `undefined` outside any green thread.
 *
 * @example Usage
 * ```ts
 * import { currentThread, Scheduler } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(currentThread(), undefined);
 * await new Scheduler({ seed: 1 }).run(() => {
 *   assertEquals(currentThread()?.id, 1);
 * });
 * ```
 */
export function currentThread(): GreenThread | undefined {
  return storage.getStore();
}

/**
 * A green thread: one async function run by a {@linkcode Scheduler}.
 *
 * Threads are made by `Scheduler.go()` (or the module function `go()`),
 * never constructed directly. The main thread of a run has id 1.
 *
 * @example Usage
 * ```ts
 * import { makeChannel, Scheduler } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const s = new Scheduler({ seed: 1 });
 * await s.run(async () => {
 *   const ch = makeChannel<number>();
 *   const t = s.go(async () => {
 *     await ch.send(7);
 *   }, { name: "sender" });
 *   assertEquals(t.name, "sender");
 *   assertEquals(await ch.recv(), 7);
 *   await t.done;
 *   assertEquals(t.state, "done");
 * });
 * ```
 */
export class GreenThread {
  /** The thread's number in its run; the main thread is 1. */
  readonly id: number;
  /**
   * Where the thread is: a runtime sets it to the location of the operation
   * it is about to run or await (`block 0 op 3 channel_recv`), for dumps and
   * panics.
   */
  where: string | undefined = undefined;
  // Fields are few on purpose: a million parked threads must fit in 1 GiB.
  #run: RunState;
  // The wait reason while blocked, else "runnable" or "done".
  #status: WaitReason | "runnable" | "done" = "runnable";
  #parked: Parked | undefined = undefined;
  #prevLive: GreenThread | undefined = undefined;
  #nextLive: GreenThread | undefined = undefined;
  // The GoOptions (name, createdAt) when given: shared, never copied.
  #origin: GoOrigin | undefined;
  // How the thread ends: the resolvers of `done` once asked for (they keep
  // the panic once it ends), else the panic that ended it, if any.
  #end: DoneRecord | Panic | undefined = undefined;
  // The random stream's key; or, once the thread has spawned a child or
  // drawn a number, a Lineage record with the key. Most threads never do,
  // and a million parked threads must stay small.
  #lineage: number | Lineage;

  private constructor(
    run: RunState,
    id: number,
    origin: GoOrigin | undefined,
    parent: GreenThread | number | undefined,
  ) {
    this.#run = run;
    this.id = id;
    this.#origin = origin;
    this.#lineage = typeof parent === "number"
      ? parent
      : parent !== undefined
      ? parent.#reserveChildKey()
      : id === 1
      ? 0
      : childKey(ORPHAN_KEY, id);
  }

  // Reserves the random stream of this thread's next child (see
  // reserveChildKey in _thread_control.ts).
  #reserveChildKey(): number {
    const lineage = this.#lineageRecord();
    return childKey(lineage.key, ++lineage.children);
  }

  /**
   * The thread's own seeded random stream: select's choices and random ops
   * on this thread draw from it. It depends only on the run's seed and the
   * thread's lineage (which thread spawned it, as its how-manyth child), so
   * a thread draws the same numbers however the run's threads interleave.
   * The main thread's stream is the scheduler's {@linkcode Scheduler.random}.
   *
   * @returns The thread's PRNG.
   *
   * @example Usage
   * ```ts
   * import { Scheduler } from "./mod.ts";
   * import { assert } from "@std/assert";
   *
   * const draws: number[] = [];
   * for (let i = 0; i < 2; i++) {
   *   const s = new Scheduler({ seed: 3 });
   *   await s.run((main) => {
   *     assert(main.random === s.random);
   *     const child = s.goFrom(main, () => {});
   *     draws.push(child.random.nextUint32());
   *   });
   * }
   * assert(draws[0] === draws[1]);
   * ```
   */
  get random(): Random {
    const lineage = this.#lineageRecord();
    return lineage.random ??= lineage.key === 0
      ? this.#run.random
      : new Random(this.#run.random.seed, lineage.key);
  }

  /**
   * The key of the thread's lineage (0 for the main thread): the same for
   * the same thread of a program on any worker count, so that a record of
   * a run (`--record`) names threads by it.
   *
   * @returns A 32-bit key.
   *
   * @example Usage
   * ```ts
   * import { Scheduler } from "./mod.ts";
   * import { assertEquals } from "@std/assert";
   *
   * await new Scheduler({ seed: 1 }).run((main) => {
   *   assertEquals(main.lineageKey, 0);
   * });
   * ```
   */
  get lineageKey(): number {
    const l = this.#lineage;
    return typeof l === "number" ? l : l.key;
  }

  #lineageRecord(): Lineage {
    const l = this.#lineage;
    if (typeof l !== "number") return l;
    return this.#lineage = { key: l, children: 0, random: undefined };
  }

  /**
   * A name for dumps, from `GoOptions.name`.
   *
   * @returns The name, or `undefined`.
   */
  get name(): string | undefined {
    return this.#origin?.name;
  }

  /**
   * Where the thread was spawned, from `GoOptions.createdAt`.
   *
   * @returns The creation site, or `undefined`.
   */
  get createdAt(): string | undefined {
    return this.#origin?.createdAt;
  }

  /**
   * The scheduler that runs this thread.
   *
   * @returns The owning scheduler.
   */
  get scheduler(): Scheduler {
    return this.#run.scheduler;
  }

  /**
   * Whether the thread is runnable, blocked or done.
   *
   * @returns The thread's state.
   */
  get state(): ThreadState {
    const s = this.#status;
    return s === "runnable" || s === "done" ? s : "blocked";
  }

  /**
   * Why the thread is blocked.
   *
   * @returns The wait reason, or `undefined` unless the state is "blocked".
   */
  get waitReason(): WaitReason | undefined {
    const s = this.#status;
    return s === "runnable" || s === "done" ? undefined : s;
  }

  /**
   * The panic that ended the thread, if one did.
   *
   * @returns The panic, or `undefined`.
   */
  get panic(): Panic | undefined {
    const end = this.#end;
    return end instanceof Panic ? end : end?.panic;
  }

  /**
   * Settles when the thread's function has: fulfils when it returns, rejects
   * with its {@linkcode Panic} when it panics. A thread abandoned when its
   * run ended never settles (Go's rule: the program is over).
   *
   * @returns A promise of the thread's end.
   */
  get done(): Promise<void> {
    const end = this.#end;
    if (end !== undefined && !(end instanceof Panic)) return end.promise;
    const r: DoneRecord = Promise.withResolvers<void>();
    // The run (or the scheduler's error report) already reports a panic;
    // awaiting `done` is optional.
    r.promise.catch(noop);
    if (this.#status === "done") {
      r.panic = end;
      if (end === undefined) r.resolve();
      else r.reject(end);
    }
    this.#end = r;
    return r.promise;
  }

  // The scheduler's side of a thread that runs on every park and wake-up:
  // private to the type (out of the docs, and an error in a program), and
  // called by element access (`thread["block"](…)`), which TypeScript
  // allows for private members, from the waiters, the timers, the wait
  // group, blockForever and the pool alone. They stay methods because a
  // method call is the cheapest call V8 has: the same code as free
  // functions imported from _thread_control.ts made a channel ping-pong
  // round trip 10% slower (an imported binding is a load through the
  // module's cell each time; `storage` stays in this module for the same
  // reason, as currentThread() reads it on every park).

  /** The run this thread belongs to. */
  private get runState(): RunState {
    return this.#run;
  }

  /**
   * Counts this thread as parked on `parked`. Precondition: its run has not
   * ended. A done thread (an operation it left running parks) is not
   * counted.
   */
  private block(reason: WaitReason, parked: Parked): void {
    const s = this.#status;
    if (s === "done") return;
    this.#status = reason;
    this.#parked = parked;
    if (s !== "runnable") return; // counted already
    const run = this.#run;
    if (run.tracer !== undefined) run.tracer.blocked(this, reason);
    run.blocked++;
    run.shared?.changed(-1);
    if (!run.checkQueued) run.queueCheck();
  }

  /**
   * Resumes an operation of this thread: it becomes runnable if that is
   * the operation it waits on. Returns false, changing nothing, when its
   * run has ended: the caller must then not resume anything.
   */
  private unblock(parked: Parked): boolean {
    const run = this.#run;
    if (run.ended) return false;
    if (this.#parked !== parked) return true; // not what it waits on
    this.#status = "runnable";
    this.#parked = undefined;
    if (run.tracer !== undefined) run.tracer.woken(this);
    run.blocked--;
    run.shared?.changed(1);
    return true;
  }

  // The rest of the scheduler's side of a thread, which _thread_control.ts
  // calls (see there).
  static {
    lendThreadControl({
      createThread: (run, id, origin, parent) =>
        new GreenThread(run, id, origin, parent),
      parkedOn: (t) => t.#parked,
      nextLive: (t) => t.#nextLive,
      reserveChildKey: (t) => t.#reserveChildKey(),
      enterThread(thread, fn, context) {
        return context ? storage.run(thread, fn, thread) : fn(thread);
      },
      exitContext(fn) {
        // Not storage.exit(): in Deno the continuations of promises made
        // inside exit() still see the outer context.
        storage.run(undefined as unknown as GreenThread, fn);
      },
      linkThread(t) {
        const run = t.#run;
        t.#prevLive = run.liveTail;
        if (run.liveTail === undefined) run.liveHead = t;
        else run.liveTail.#nextLive = t;
        run.liveTail = t;
        run.addLive();
        run.shared?.changed(1);
      },
      finishThread(t, panic) {
        const run = t.#run;
        const s = t.#status;
        if (s !== "runnable" && s !== "done") run.blocked--;
        const prev = t.#prevLive;
        const next = t.#nextLive;
        if (prev === undefined) run.liveHead = next;
        else prev.#nextLive = next;
        if (next === undefined) run.liveTail = prev;
        else next.#prevLive = prev;
        t.#prevLive = t.#nextLive = undefined;
        run.removeLive();
        if (run.tracer !== undefined) run.tracer.finished(t, panic);
        t.#status = "done";
        t.#parked = undefined;
        // Counted once the thread is off the list, so that the worker sees
        // what is left when it asks whether anything can still run.
        if (s === "runnable") run.shared?.changed(-1);
        const end = t.#end;
        if (end === undefined || end instanceof Panic) {
          t.#end = panic;
          return false;
        }
        end.panic = panic;
        if (panic === undefined) end.resolve();
        else end.reject(panic);
        return true;
      },
    });
  }
}

// A thread's random stream and the children it has spawned.
interface Lineage {
  readonly key: number;
  children: number;
  random: Random | undefined;
}

// The key threads spawned without a parent derive theirs from, with their id.
const ORPHAN_KEY = 0x5bd1e995;

// A 32-bit hash of a parent's key and a child's number (a SplitMix32
// finalizer); 0 is left to the main thread. Kept signed: V8 stores a 31-bit
// or signed 32-bit integer in the thread itself, while an unsigned one past
// 2^31 takes a heap number (16 bytes on half the threads).
function childKey(parent: number, n: number): number {
  let z = (Math.imul(parent, 0x9e3779b9) + n) | 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) || 1;
}
