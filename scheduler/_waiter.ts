// Waiters: a parked channel operation (Go's sudog), the queues they wait in,
// and the record a parked select shares among its cases.
//
// Invariants:
//   A waiter is in at most one queue; `queue` names it, null once dequeued.
//   A waiter in a queue belongs to an operation that has not completed: the
//   waker that completes a select case unlinks the select's other waiters
//   before anything else runs, so no queue holds a stale waiter.
//   Completing (recording the outcome) and resuming (settling the promise)
//   are separate steps: a waker finishes every state change first and
//   resumes last. A promise settles once; its continuation runs as a later
//   microtask, never inside the waker.

import {
  currentThread,
  type GreenThread,
  type WaitReason,
} from "./green_thread.ts";
import type { Parked } from "./_thread_control.ts";
import type { Panic } from "./panic.ts";
import {
  PARKED,
  type Resumer,
  type Settle,
  settle,
  settleWithError,
} from "./resumer.ts";

// A waiter's kind: its operation, and for a plain waiter, once a waker has
// completed it, how its thread resumes.

/** A plain receive: resumes with the value. */
export const RECV = 0;
/** A receive with ok: resumes with `{ value, ok }`. */
export const RECV_OK = 1;
/** A send: resumes with undefined. */
export const SEND = 2;
// A RECV_OK that got a closed channel's zero value: resumes with ok false.
const RECV_CLOSED = 3;
// Any plain operation that panics: `value` holds the Panic.
const PANICKED = 4;

function noop(): void {}

/** An abortable parked operation's signal and its listener. */
export interface AbortWatch {
  readonly signal: AbortSignal;
  readonly onAbort: () => void;
}

/**
 * One parked plain operation on one channel. Fields are few on purpose (a
 * million parked threads must fit in 1 GiB): `kind` is the operation and
 * then its outcome; a panic replaces the value; the promise keeps only its
 * resolve function (a rejection resolves it with a rejected promise). A
 * select's cases are SelectWaiters, whose parking is on their select.
 */
export class Waiter implements Parked {
  prev: Waiter | null = null;
  next: Waiter | null = null;
  /** The queue holding this waiter, or null. */
  queue: WaitQueue | null = null;
  /** RECV, RECV_OK or SEND; once completed, RECV_CLOSED or PANICKED too. */
  kind: number;
  /**
   * SEND: the value offered, fixed when the operation began. RECV: the value
   * delivered. PANICKED: the Panic.
   */
  value: unknown;
  // A plain operation's parking; a select keeps these on its record.
  thread: GreenThread | undefined = undefined;
  /** Where the outcome goes: the parked promise's resolve, or a resumer. */
  resolve: Settle<unknown> = noop;
  /** The signal that may abort a plain operation, while it is parked. */
  abort: AbortWatch | undefined = undefined;

  constructor(kind: number, value: unknown) {
    this.kind = kind;
    this.value = value;
  }

  unlink(): void {
    this.queue?.remove(this);
  }
}

/** One case of a parked select: a waiter that knows its select and case. */
export class SelectWaiter extends Waiter {
  /** The select this waiter is a case of. */
  readonly select: SelectRecord;
  /** The case index within the select. */
  readonly index: number;

  constructor(
    kind: number,
    value: unknown,
    select: SelectRecord,
    index: number,
  ) {
    super(kind, value);
    this.select = select;
    this.index = index;
  }
}

/** The thread a waiter's operation belongs to, if known. */
export function waiterThread(w: Waiter): GreenThread | undefined {
  return w instanceof SelectWaiter ? w.select.thread : w.thread;
}

/** A FIFO of waiters, as an intrusive doubly linked list (O(1) removal). */
export class WaitQueue {
  head: Waiter | null = null;
  tail: Waiter | null = null;

  push(w: Waiter): void {
    w.queue = this;
    w.prev = this.tail;
    w.next = null;
    if (this.tail === null) this.head = w;
    else this.tail.next = w;
    this.tail = w;
  }

  /** Dequeues the head. Precondition: `head !== null`. */
  shift(): Waiter {
    const w = this.head!;
    this.head = w.next;
    if (this.head === null) this.tail = null;
    else this.head.prev = null;
    w.next = null;
    w.queue = null;
    return w;
  }

  remove(w: Waiter): void {
    if (w.prev === null) this.head = w.next;
    else w.prev.next = w.next;
    if (w.next === null) this.tail = w.prev;
    else w.next.prev = w.prev;
    w.prev = null;
    w.next = null;
    w.queue = null;
  }
}

/** A parked select: its cases' waiters and, once fired, the outcome. */
export class SelectRecord implements Parked {
  readonly waiters: SelectWaiter[] = [];
  /** The case that fired, or -1. */
  index = -1;
  value: unknown = undefined;
  ok = true;
  panic: Panic | undefined = undefined;
  thread: GreenThread | undefined = undefined;
  resolve: Settle<SelectOutcome> = noop;
  abort: AbortWatch | undefined = undefined;

  unlink(): void {
    for (const w of this.waiters) w.queue?.remove(w);
  }
}

/** What a select resolves with. */
export interface SelectOutcome {
  index: number;
  value: unknown;
  ok: boolean;
}

// The promise executor stores the resolve function on `parking`, which the
// caller sets just before `new Promise` runs the executor synchronously: one
// shared executor instead of a closure per park. The reject function is
// dropped, so that a parked operation does not keep it alive.
let parking: { resolve: (value: never) => void } | undefined;

function captureResolve(resolve: (value: never) => void): void {
  parking!.resolve = resolve;
  parking = undefined;
}

// A promise of the outcome of `on`, which keeps its resolve function.
function parkPromise<T>(on: { resolve: Settle<T> }): Promise<T> {
  parking = on as { resolve: (value: never) => void };
  return new Promise<T>(captureResolve);
}

/** How an operation parks: its abort signal, thread and resumer, if any. */
export interface ParkingOptions {
  signal?: AbortSignal;
  thread?: GreenThread;
  resumer?: Resumer;
}

/**
 * Parks `thread` (when given; else the current thread, if any) on `w`,
 * queued in `queue`, until a waker resumes it; abandons it (a promise that
 * never settles, nothing queued) when its run has ended. With a resumer,
 * returns PARKED and hands the outcome to the resumer. Precondition: the
 * signal is not aborted.
 */
export function park(
  w: Waiter,
  queue: WaitQueue,
  reason: WaitReason,
  options: ParkingOptions | undefined,
): Promise<unknown> {
  const thread = options?.thread ?? currentThread();
  const resumer = options?.resumer;
  if (thread !== undefined) {
    if (thread["runState"].ended) return resumer ? PARKED : new Promise(noop);
    w.thread = thread;
    thread["block"](reason, w);
  }
  queue.push(w);
  let p: Promise<unknown> = PARKED;
  if (resumer === undefined) p = parkPromise(w);
  else w.resolve = resumer;
  const signal = options?.signal;
  if (signal !== undefined) {
    w.abort = watch(signal, abortWaiterOnce(w), thread);
  }
  return p;
}

/**
 * Parks `thread` (when given; else the current thread, if any) on a select
 * whose waiters the caller queues next; null when the run has ended (the
 * caller queues nothing and never returns). Precondition: `signal` is not
 * aborted.
 */
export function parkSelect(
  rec: SelectRecord,
  reason: WaitReason,
  options: ParkingOptions | undefined,
): Promise<SelectOutcome> | null {
  const thread = options?.thread ?? currentThread();
  const resumer = options?.resumer;
  if (thread !== undefined) {
    if (thread["runState"].ended) return null;
    rec.thread = thread;
    thread["block"](reason, rec);
  }
  let p: Promise<SelectOutcome> = PARKED;
  if (resumer === undefined) p = parkPromise(rec);
  else rec.resolve = resumer;
  const signal = options?.signal;
  if (signal !== undefined) {
    rec.abort = watch(signal, abortSelectOnce(rec), thread);
  }
  return p;
}

/**
 * Records that `w`'s operation happened: delivered `value` (with `ok`) to a
 * receiver, or took a sender's value. For a select case, fires the select and
 * unlinks its other waiters. Precondition: `w` is out of its queue.
 */
export function complete(w: Waiter, value: unknown, ok: boolean): void {
  if (!(w instanceof SelectWaiter)) {
    w.value = value;
    if (!ok && w.kind === RECV_OK) w.kind = RECV_CLOSED;
    return;
  }
  const rec = w.select;
  rec.index = w.index;
  rec.value = value;
  rec.ok = ok;
  rec.unlink();
}

/** Like `complete`, but the operation panics (a send on a closed channel). */
export function completeWithPanic(w: Waiter, panic: Panic): void {
  if (!(w instanceof SelectWaiter)) {
    w.kind = PANICKED;
    w.value = panic;
    return;
  }
  const rec = w.select;
  rec.index = w.index;
  rec.panic = panic;
  rec.unlink();
}

/** Resumes the thread parked on a completed waiter: the waker's last step. */
export function resume(w: Waiter): void {
  if (w instanceof SelectWaiter) return resumeSelect(w.select);
  if (w.thread !== undefined && !w.thread["unblock"](w)) return;
  if (w.abort !== undefined) {
    unwatch(w.abort, w.thread);
    w.abort = undefined;
  }
  const kind = w.kind;
  const to = w.resolve;
  if (kind === RECV) settle(to, w.value);
  else if (kind === SEND) settle(to, undefined);
  else if (kind === RECV_OK) settle(to, { value: w.value, ok: true });
  else if (kind === RECV_CLOSED) settle(to, { value: w.value, ok: false });
  else settleWithError(to, w.value);
}

function resumeSelect(rec: SelectRecord): void {
  if (rec.thread !== undefined && !rec.thread["unblock"](rec)) return;
  if (rec.abort !== undefined) unwatch(rec.abort, rec.thread);
  if (rec.panic !== undefined) settleWithError(rec.resolve, rec.panic);
  else settle(rec.resolve, { index: rec.index, value: rec.value, ok: rec.ok });
}

// An abortable parked operation counts as pending work: its signal may fire
// from outside the run (AbortSignal.timeout, a caller's controller).
function watch(
  signal: AbortSignal,
  onAbort: () => void,
  thread: GreenThread | undefined,
): AbortWatch {
  signal.addEventListener("abort", onAbort, { once: true });
  if (thread !== undefined) thread["runState"].addPending();
  return { signal, onAbort };
}

function unwatch(abort: AbortWatch, thread: GreenThread | undefined): void {
  abort.signal.removeEventListener("abort", abort.onAbort);
  if (thread !== undefined) thread["runState"].settle();
}

// The abort handlers are made here rather than in park() and parkSelect(),
// which would otherwise allocate a context for what they capture on every
// call, signal or not.
function abortWaiterOnce(w: Waiter): () => void {
  return () => abortWaiter(w);
}

function abortSelectOnce(rec: SelectRecord): () => void {
  return () => abortSelect(rec);
}

function abortWaiter(w: Waiter): void {
  if (w.queue === null) return; // completed already
  w.queue.remove(w);
  if (w.thread !== undefined && !w.thread["unblock"](w)) return;
  if (w.thread !== undefined) w.thread["runState"].settle();
  const abort = w.abort!;
  w.abort = undefined;
  settleWithError(w.resolve, abort.signal.reason);
}

function abortSelect(rec: SelectRecord): void {
  if (rec.index !== -1) return; // fired already
  rec.unlink();
  if (rec.thread !== undefined && !rec.thread["unblock"](rec)) return;
  if (rec.thread !== undefined) rec.thread["runState"].settle();
  settleWithError(rec.resolve, rec.abort!.signal.reason);
}
