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
  blockThread,
  currentThread,
  type GreenThread,
  type Parked,
  runOf,
  unblockThread,
  type WaitReason,
} from "./green_thread.ts";
import type { Panic } from "./panic.ts";

/** A plain receive: resumes with the value. */
export const RECV = 0;
/** A receive with ok: resumes with `{ value, ok }`. */
export const RECV_OK = 1;
/** A send: resumes with undefined. */
export const SEND = 2;

function noop(): void {}

/** One parked operation on one channel, or one case of a parked select. */
export class Waiter implements Parked {
  prev: Waiter | null = null;
  next: Waiter | null = null;
  /** The queue holding this waiter, or null. */
  queue: WaitQueue | null = null;
  /** RECV, RECV_OK or SEND. */
  readonly kind: number;
  /** SEND: the value offered, fixed when the operation began. RECV: the value delivered. */
  value: unknown;
  /** RECV: false when the delivery is a closed channel's zero value. */
  ok = true;
  /** Set instead of a value when the operation panics (send on a closed channel). */
  panic: Panic | undefined = undefined;
  /** The select this waiter is a case of, or null for a plain operation. */
  readonly select: SelectRecord | null;
  /** The case index within the select. */
  readonly index: number;
  // A plain operation's parking; a select keeps these on its record.
  thread: GreenThread | undefined = undefined;
  resolve: (value: unknown) => void = noop;
  reject: (error: unknown) => void = noop;
  signal: AbortSignal | undefined = undefined;
  onAbort: (() => void) | undefined = undefined;

  constructor(
    kind: number,
    value: unknown,
    select: SelectRecord | null,
    index: number,
  ) {
    this.kind = kind;
    this.value = value;
    this.select = select;
    this.index = index;
  }

  unlink(): void {
    this.queue?.remove(this);
  }
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
  readonly waiters: Waiter[] = [];
  /** The case that fired, or -1. */
  index = -1;
  value: unknown = undefined;
  ok = true;
  panic: Panic | undefined = undefined;
  thread: GreenThread | undefined = undefined;
  resolve: (value: SelectOutcome) => void = noop;
  reject: (error: unknown) => void = noop;
  signal: AbortSignal | undefined = undefined;
  onAbort: (() => void) | undefined = undefined;

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

// The promise executor stores the resolving functions on `parking`, which
// the caller sets just before `new Promise` runs the executor synchronously:
// one shared executor instead of a closure per park.
let parking: {
  resolve: (value: never) => void;
  reject: (error: unknown) => void;
} | undefined;

function captureResolvers(
  resolve: (value: never) => void,
  reject: (error: unknown) => void,
): void {
  parking!.resolve = resolve;
  parking!.reject = reject;
  parking = undefined;
}

/**
 * Parks the current thread on `w`, queued in `queue`, until a waker resumes
 * it; abandons it (a promise that never settles, nothing queued) when its
 * run has ended. Precondition: `signal` is not aborted.
 */
export function park(
  w: Waiter,
  queue: WaitQueue,
  reason: WaitReason,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  const thread = currentThread();
  if (thread !== undefined) {
    if (runOf(thread).ended) return new Promise(noop);
    w.thread = thread;
    blockThread(thread, reason, w);
  }
  queue.push(w);
  parking = w;
  const p = new Promise(captureResolvers);
  if (signal !== undefined) {
    w.signal = signal;
    w.onAbort = () => abortWaiter(w);
    watch(signal, w.onAbort, thread);
  }
  return p;
}

/**
 * Parks the current thread on a select whose waiters the caller queues next;
 * null when the run has ended (the caller queues nothing and never returns).
 * Precondition: `signal` is not aborted.
 */
export function parkSelect(
  rec: SelectRecord,
  reason: WaitReason,
  signal: AbortSignal | undefined,
): Promise<SelectOutcome> | null {
  const thread = currentThread();
  if (thread !== undefined) {
    if (runOf(thread).ended) return null;
    rec.thread = thread;
    blockThread(thread, reason, rec);
  }
  parking = rec;
  const p = new Promise<SelectOutcome>(captureResolvers);
  if (signal !== undefined) {
    rec.signal = signal;
    rec.onAbort = () => abortSelect(rec);
    watch(signal, rec.onAbort, thread);
  }
  return p;
}

/**
 * Records that `w`'s operation happened: delivered `value` (with `ok`) to a
 * receiver, or took a sender's value. For a select case, fires the select and
 * unlinks its other waiters. Precondition: `w` is out of its queue.
 */
export function complete(w: Waiter, value: unknown, ok: boolean): void {
  const rec = w.select;
  if (rec === null) {
    w.value = value;
    w.ok = ok;
    return;
  }
  rec.index = w.index;
  rec.value = value;
  rec.ok = ok;
  rec.unlink();
}

/** Like `complete`, but the operation panics (a send on a closed channel). */
export function completeWithPanic(w: Waiter, panic: Panic): void {
  const rec = w.select;
  if (rec === null) {
    w.panic = panic;
    return;
  }
  rec.index = w.index;
  rec.panic = panic;
  rec.unlink();
}

/** Resumes the thread parked on a completed waiter: the waker's last step. */
export function resume(w: Waiter): void {
  const rec = w.select;
  if (rec !== null) return resumeSelect(rec);
  if (w.thread !== undefined && !unblockThread(w.thread, w)) return;
  if (w.signal !== undefined) unwatch(w.signal, w.onAbort!, w.thread);
  if (w.panic !== undefined) w.reject(w.panic);
  else if (w.kind === RECV) w.resolve(w.value);
  else if (w.kind === RECV_OK) w.resolve({ value: w.value, ok: w.ok });
  else w.resolve(undefined);
}

function resumeSelect(rec: SelectRecord): void {
  if (rec.thread !== undefined && !unblockThread(rec.thread, rec)) return;
  if (rec.signal !== undefined) unwatch(rec.signal, rec.onAbort!, rec.thread);
  if (rec.panic !== undefined) rec.reject(rec.panic);
  else rec.resolve({ index: rec.index, value: rec.value, ok: rec.ok });
}

// An abortable parked operation counts as pending work: its signal may fire
// from outside the run (AbortSignal.timeout, a caller's controller).
function watch(
  signal: AbortSignal,
  onAbort: () => void,
  thread: GreenThread | undefined,
): void {
  signal.addEventListener("abort", onAbort, { once: true });
  if (thread !== undefined) runOf(thread).pending++;
}

function unwatch(
  signal: AbortSignal,
  onAbort: () => void,
  thread: GreenThread | undefined,
): void {
  signal.removeEventListener("abort", onAbort);
  if (thread !== undefined) runOf(thread).settle();
}

function abortWaiter(w: Waiter): void {
  if (w.queue === null) return; // completed already
  w.queue.remove(w);
  if (w.thread !== undefined && !unblockThread(w.thread, w)) return;
  if (w.thread !== undefined) runOf(w.thread).settle();
  w.reject(w.signal!.reason);
}

function abortSelect(rec: SelectRecord): void {
  if (rec.index !== -1) return; // fired already
  rec.unlink();
  if (rec.thread !== undefined && !unblockThread(rec.thread, rec)) return;
  if (rec.thread !== undefined) runOf(rec.thread).settle();
  rec.reject(rec.signal!.reason);
}
