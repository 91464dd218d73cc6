// Go's select statement over channels of one worker.
//
// Three passes, as in Go's selectgo:
//   Pass 1 polls every case without changing anything. If some are ready it
//   picks one uniformly at random with the run's seeded PRNG (Go shuffles
//   its poll order to the same effect) and performs it at once; else it
//   takes the default case if there is one.
//   Pass 2 parks the thread on every case: one waiter per case, queued on
//   its channel in a random order (Go's poll order), all sharing one
//   SelectRecord.
//   Pass 3 takes the select off the cases it lost. Here the waker does it,
//   when it completes the winning case (complete() in _waiter.ts), before
//   anything else runs; so a woken select never touches a queue again and
//   no queue keeps a stale waiter.
//
// All of this runs in one synchronous step, so no lock order is needed: a
// channel cannot change between polling a case and performing it. The same
// channel may appear in several cases, on both sides.

import type { Channel } from "./channel.ts";
import type { GreenThread, WaitReason } from "./green_thread.ts";
import type { Random } from "./random.ts";
import { PARKED, type Resumer } from "./resumer.ts";
import { currentRandom } from "./scheduler.ts";
import {
  receiversOf,
  recvInto,
  sendersOf,
  sendNow,
} from "./_channel_select.ts";
import {
  parkSelect,
  RECV,
  type SelectOutcome,
  SelectRecord,
  SelectWaiter,
  SEND,
} from "./_waiter.ts";

/**
 * A receive case: `case v, ok := <-ch`. A `null` channel is the nil
 * channel: never ready.
 *
 * @typeParam T The channel's value type.
 */
export interface RecvCase<T> {
  /** The channel to receive from, or `null`. */
  recv: Channel<T> | null;
}

/**
 * A send case: `case ch <- value`. The value is fixed when the select
 * starts. A `null` channel is never ready.
 *
 * @typeParam T The channel's value type.
 */
export interface SendCase<T> {
  /** The channel to send on, or `null`. */
  send: Channel<T> | null;
  /** The value to send. */
  value: T;
}

/** The default case: taken when no other case is ready. */
export interface DefaultCase {
  /** Marks the default case. */
  default: true;
}

/** Any select case. */
export type SelectCase = RecvCase<unknown> | SendCase<unknown> | DefaultCase;

/**
 * The outcome of a select: which case ran and, for a receive, what it got.
 *
 * @typeParam I The case index.
 * @typeParam V The received value's type (undefined for send and default).
 */
export interface SelectResult<I extends number = number, V = unknown> {
  /** The index of the case that ran. */
  index: I;
  /** For a receive, the value (the zero value if closed); else undefined. */
  value: V;
  /** False only for a receive from a closed, drained channel. */
  ok: boolean;
}

/**
 * The result of case `I` of a select, when that case is `C`: a receive's
 * result carries the channel's element type.
 *
 * @typeParam I The case's index.
 * @typeParam C The case.
 */
export type CaseResult<I extends number, C> = C extends
  { recv: Channel<infer T> | null } ? SelectResult<I, T>
  : SelectResult<I, undefined>;

/**
 * The union of the possible results of a select over the cases `C`,
 * discriminated by `index`.
 *
 * @typeParam C The cases, as a tuple.
 */
export type SelectResultOf<C extends readonly SelectCase[]> = {
  [K in keyof C]: K extends `${infer I extends number}` ? CaseResult<I, C[K]>
    : CaseResult<number, C[K]>;
}[number];

/**
 * What {@linkcode select} returns for the cases `C`: the result itself when
 * there is a default case (such a select never waits), else the result or
 * a promise of it.
 *
 * @typeParam C The cases, as a tuple.
 */
export type SelectReturn<C extends readonly SelectCase[]> =
  [Extract<C[number], DefaultCase>] extends [never]
    ? SelectResultOf<C> | Promise<SelectResultOf<C>>
    : SelectResultOf<C>;

/** Options for {@linkcode select}. */
export interface SelectOptions {
  /**
   * Abandons the select if it is still waiting when the signal aborts: its
   * waiters are removed and the promise rejects with the signal's reason.
   * A select that can complete at once ignores the signal.
   *
   * @default {undefined}
   */
  signal?: AbortSignal;
  /**
   * The PRNG choosing among ready cases.
   *
   * @default {the thread's own stream when `thread` is given, else the
   * run's (see `currentRandom()`)}
   */
  random?: Random;
  /**
   * The green thread making the select: counted as blocked while it waits,
   * named by its panic, and its own random stream chooses. Required for that
   * on a scheduler made with `threadContext: false`.
   *
   * @default {currentThread()}
   */
  thread?: GreenThread;
  /**
   * For runtimes that keep their own continuations: when the select must
   * wait, it returns `PARKED` and hands its result to this
   * resumer instead of settling a promise (see resumer.ts).
   *
   * @default {undefined}
   */
  resumer?: Resumer;
}

// The fields of any case, for reading a case without narrowing its type.
interface AnyCase {
  recv?: Channel<unknown> | null;
  send?: Channel<unknown> | null;
  value?: unknown;
  default?: boolean;
}

function noop(): void {}

/**
 * Go's select: waits until one of several channel operations can proceed,
 * and performs exactly that one.
 *
 * If several cases are ready, one is chosen uniformly at random with the
 * run's seeded PRNG; if none is, the default case runs if present,
 * otherwise the thread parks on every case until one fires. A receive from
 * a closed channel is ready (its `ok` is false). A send on a closed channel
 * is ready and panics when chosen. `null` channels are never ready. A select
 * with no cases, or only `null` ones, blocks forever.
 *
 * @typeParam C The tuple of cases.
 * @param cases The cases, in order; the result's `index` points into it.
 * @param options An abort signal, the PRNG and the selecting thread.
 * @returns The result at once when a case is ready or the default applies,
 * else a promise of it.
 * @throws {Panic} `send on closed channel` when a send case on a closed
 * channel is chosen.
 * @throws {TypeError} For a case that is not a send, receive or default,
 * or for more than one default.
 *
 * @example Usage
 * ```ts
 * import { makeChannel, select } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const numbers = makeChannel<number>(1);
 * const words = makeChannel<string>(1);
 * words.send("hi");
 * const r = await select([{ recv: numbers }, { recv: words }, { send: numbers, value: 1 }]);
 * // Two cases were ready: receive from words, or send on numbers.
 * if (r.index === 1) assertEquals(r.value, "hi");
 * else assertEquals(r.index, 2);
 * assertEquals(select([{ recv: null }, { default: true }]).index, 1);
 * ```
 */
export function select<const C extends readonly SelectCase[]>(
  cases: C,
  options?: SelectOptions,
): SelectReturn<C> {
  const n = cases.length;
  // Pass 1: poll every case; count the ready ones (and mark the first 31
  // in a bit mask, so that choosing among them needs no second poll) and
  // find the default.
  let ready = 0;
  let readyMask = 0;
  let chosen = -1;
  let defaultIndex = -1;
  for (let i = 0; i < n; i++) {
    const c = cases[i] as AnyCase;
    if (c.recv !== undefined) {
      if (c.recv !== null && c.recv.canRecv()) {
        ready++;
        readyMask |= 1 << i;
        chosen = i;
      }
    } else if (c.send !== undefined) {
      if (c.send !== null && c.send.canSend()) {
        ready++;
        readyMask |= 1 << i;
        chosen = i;
      }
    } else if (c.default === true) {
      if (defaultIndex !== -1) {
        throw new TypeError("Cannot select: more than one default case");
      }
      defaultIndex = i;
    } else {
      throw new TypeError(
        `Cannot select: case ${i} is not a send, receive or default case`,
      );
    }
  }
  // Some case is ready: choose uniformly among the ready ones and perform it.
  if (ready > 0) {
    if (ready > 1) {
      const random = options?.random ?? options?.thread?.random ??
        currentRandom();
      const k = random.nextInt(ready);
      chosen = n <= 31 ? nthBit(readyMask, k) : nthReady(cases, k);
    }
    return perform(
      cases[chosen] as AnyCase,
      chosen,
      options?.thread,
    ) as SelectReturn<C>;
  }
  // None is ready: the default case.
  if (defaultIndex !== -1) {
    return {
      index: defaultIndex,
      value: undefined,
      ok: true,
    } as SelectReturn<C>;
  }
  // Pass 2: park on every case, queueing the waiters in a random order, so
  // that a channel named by several cases serves them in a random order too.
  const signal = options?.signal;
  if (signal?.aborted) return Promise.reject(signal.reason) as SelectReturn<C>;
  const rec = new SelectRecord();
  const reason: WaitReason = n === 0 ? "select (no cases)" : "select";
  const parked = parkSelect(rec, reason, options);
  if (parked === null) { // the run has ended
    return (options?.resumer ? PARKED : new Promise(noop)) as SelectReturn<C>;
  }
  const random = options?.random ?? rec.thread?.random ?? currentRandom();
  const order = n > 1 ? random.permutation(n) : [0];
  for (let j = 0; j < n; j++) {
    const i = order[j];
    const c = cases[i] as AnyCase;
    if (c.recv != null) {
      const w = new SelectWaiter(RECV, undefined, rec, i);
      rec.waiters.push(w);
      receiversOf(c.recv).push(w);
    } else if (c.send != null) {
      const w = new SelectWaiter(SEND, c.value, rec, i);
      rec.waiters.push(w);
      sendersOf(c.send).push(w);
    }
  }
  // Pass 3 happens in the waker; see the top of this file.
  return parked as Promise<SelectOutcome> as SelectReturn<C>;
}

// The position of the k-th set bit (0-based) of a mask with more than k.
function nthBit(mask: number, k: number): number {
  let m = mask;
  for (let j = k; j > 0; j--) m &= m - 1; // clears the lowest set bit
  return 31 - Math.clz32(m & -m);
}

// The index of the k-th ready case (0-based) in case order.
function nthReady(cases: readonly SelectCase[], k: number): number {
  for (let i = 0; i < cases.length; i++) {
    const c = cases[i] as AnyCase;
    const ready = c.recv !== undefined
      ? c.recv !== null && c.recv.canRecv()
      : c.send !== undefined && c.send !== null && c.send.canSend();
    if (ready && k-- === 0) return i;
  }
  throw new Error(
    "Cannot select: fewer ready cases than counted (this is a Rill bug)",
  );
}

// Precondition: the case is ready.
function perform(
  c: AnyCase,
  index: number,
  thread: GreenThread | undefined,
): SelectResult {
  const out: SelectResult = { index, value: undefined, ok: true };
  if (c.recv !== undefined) recvInto(c.recv!, out);
  else sendNow(c.send!, c.value, thread);
  return out;
}
