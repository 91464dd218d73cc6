// The records shared channels and selects keep in the heap, and the queue
// and completion steps they share. Every function here expects the heap's
// lock to be held. Offsets are byte offsets; `x >> 2` is a record's first
// word. The records lie in the control arena, which every worker's views
// cover from the start (heap.ts): nothing here covers.
//
// Invariants (lock held):
//   A waiter is in at most one queue: W_QUEUE names the word of that
//   queue's head (its tail is the next word), 0 once dequeued.
//   No queue holds a waiter whose select has fired: the waker that fires a
//   select unlinks the select's other waiters in the same critical section
//   (select's pass 3, done by the waker, as on one worker).
//   A value in transit has one owner: a ring slot, a waiter's value area, a
//   worker's scratch area, or a thread that took it and discards it after
//   decoding (see _values.ts).
//   A waiter or select whose token is NO_TOKEN belongs to a thread that
//   polls its state word instead of parking; its waker stores that word
//   last and wakes nobody. The owner turns it into a parked one (a token)
//   only with the lock held, so a waker sees one or the other.

import type { PoolMember } from "./pool_member.ts";

// A channel record's words. Words 0..15 are one cache line: what every
// operation reads (capacity, ring) and, written only with the lock held,
// the queues; then the holds, which change only when a handle is made or
// collected. A buffered channel has two more lines: its ring's senders'
// words (tail, free slots known) and its receivers' word (head), so that a
// sender and a receiver on two cores share little more than the slots
// between them (see _ring.ts).
export const C_CAP = 0;
/** The ring's first slot (64-aligned), and how many slots it has. */
export const C_RING = 1;
export const C_RING_CAP = 2;
/** The data block holding the ring, to free it when the ring grows. */
export const C_RING_BLOCK = 3;
/** The blob of the value a closed, drained channel yields. */
export const C_ZERO = 4;
export const C_ID = 5;
/** A number the channel's user keeps with it (the runtime: a dtype). */
export const C_TAG = 6;
export const C_CLOSED = 7;
/** The queues of parked receivers and senders: head and tail words each. */
export const C_RECVQ = 8;
export const C_SENDQ = 10;
/**
 * Holds on the record: one per handle on any worker, one per blob that
 * names the channel (shared_channel.ts).
 */
export const C_REFS = 12;
/** Where the record's block starts (a buffered record is aligned within). */
export const C_BLOCK = 13;
/**
 * Unbuffered channels: the rendezvous slot (shared_channel.ts). 0 when
 * both queues are empty, the channel is open and no locked operation is
 * under way; then a receiver that polls may publish its waiter here, for a
 * sender to complete without the lock. SLOT_FROZEN otherwise.
 */
export const C_SLOT = 14;
/** The slot's value while it may not be used. */
export const SLOT_FROZEN = -1;
/** Buffered channels: the ring's sides (see _ring.ts). */
export const C_TAIL = 16;
export const C_FREE = 17;
export const C_HEAD = 32;
export const C_AVAIL = 33;
export const UNBUFFERED_BYTES = 15 * 4;
export const BUFFERED_BYTES = 48 * 4;

// A waiter record's words.
export const W_NEXT = 0;
export const W_PREV = 1;
export const W_QUEUE = 2;
export const W_KIND = 3;
export const W_STATE = 4;
export const W_WORKER = 5;
export const W_TOKEN = 6;
/** The select the waiter is a case of (0 for a plain operation). */
export const W_SELECT = 7;
export const W_CASE = 8;
/**
 * The heap block the waiter lies in (the waiter starts the block's first
 * cache line; see `newWaiter`).
 */
export const W_BLOCK = 9;
/**
 * The waiter's value area (_values.ts): a send's value, or what a receive
 * was given.
 */
export const W_VALUE = 10;
export const WAITER_BYTES = 18 * 4;
// A block that holds a waiter from a cache line's start up to the end of
// the next line, whatever the block's alignment.
const WAITER_BLOCK_BYTES = 56 + 128;

/** Waiter kinds. */
export const RECV = 0;
export const SEND = 1;

/** Waiter states: waiting, completed, got a closed channel's zero, panicked. */
export const WAITING = 0;
export const DONE = 1;
export const CLOSED = 2;
export const PANICKED = 3;

/** The token of an operation whose thread polls instead of parking. */
export const NO_TOKEN = -1;

// How many spare waiter records a worker keeps for reuse.
const MAX_SPARES = 64;

// A select record's words; S_WAITERS.. hold its waiters' offsets.
/** The index of the case that fired; -1 until then. */
export const S_FIRED = 0;
export const S_WORKER = 1;
export const S_TOKEN = 2;
export const S_COUNT = 3;
export const S_WAITERS = 4;

/**
 * A waiter record for an operation of `member`'s, waiting, in no queue
 * and no select: a spare one of the worker's (see `dropWaiter`) or a new
 * one. Precondition: lock held.
 *
 * @param member This worker.
 * @param kind RECV or SEND.
 * @returns The waiter.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { dropWaiter, newWaiter, RECV, W_KIND, W_WORKER } from "./_records.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const member = new PoolMember(heap, 0, new Scheduler({ threadContext: false }));
 * member.lock();
 * const w = newWaiter(member, RECV);
 * assertEquals([heap.i32[(w >> 2) + W_KIND], heap.i32[(w >> 2) + W_WORKER]], [RECV, 0]);
 * dropWaiter(member, w);
 * assertEquals(newWaiter(member, RECV), w); // reused
 * member.unlock();
 * ```
 */
export function newWaiter(member: PoolMember, kind: number): number {
  const w = member.spares.pop() ?? allocateWaiter(member);
  initWaiter(member, w, kind);
  return w;
}

// A waiter on cache lines of its own: its owner polls its state while
// another worker writes its value and state, and a neighbour's words on
// the same lines (another worker's waiter, say) would move those lines
// between the cores once more per hand-off.
function allocateWaiter(member: PoolMember): number {
  const heap = member.heap;
  const block = heap.allocControl(WAITER_BLOCK_BYTES);
  const w = (block + 63) & ~63;
  heap.i32[(w >> 2) + W_BLOCK] = block;
  return w;
}

/**
 * A spare waiter record of `member`'s made ready as `newWaiter` makes one,
 * or 0 when the worker has none. Needs no lock: a spare is in no queue,
 * and no other worker refers to it.
 *
 * @param member This worker.
 * @param kind RECV or SEND.
 * @returns The waiter, or 0.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { dropWaiter, newWaiter, RECV, spareWaiter } from "./_records.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const member = new PoolMember(heap, 0, new Scheduler({ threadContext: false }));
 * assertEquals(spareWaiter(member, RECV), 0);
 * member.lock();
 * const w = newWaiter(member, RECV);
 * member.unlock();
 * dropWaiter(member, w);
 * assertEquals(spareWaiter(member, RECV), w);
 * ```
 */
export function spareWaiter(member: PoolMember, kind: number): number {
  const w = member.spares.pop();
  if (w === undefined) return 0;
  initWaiter(member, w, kind);
  return w;
}

function initWaiter(member: PoolMember, w: number, kind: number): void {
  const i32 = member.heap.i32;
  const wi = w >> 2;
  i32[wi + W_NEXT] = 0;
  i32[wi + W_PREV] = 0;
  i32[wi + W_QUEUE] = 0;
  i32[wi + W_KIND] = kind;
  i32[wi + W_STATE] = WAITING;
  i32[wi + W_WORKER] = member.self;
  i32[wi + W_TOKEN] = NO_TOKEN;
  i32[wi + W_SELECT] = 0;
  i32[wi + W_CASE] = 0;
}

/**
 * Gives back a waiter whose operation completed, once its outcome is read
 * (no other worker refers to it any more: see `complete`): kept for reuse,
 * or freed once the worker keeps enough.
 *
 * @param member This worker, the waiter's owner.
 * @param w The waiter.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { dropWaiter, newWaiter, SEND } from "./_records.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const member = new PoolMember(heap, 0, new Scheduler({ threadContext: false }));
 * member.lock();
 * const w = newWaiter(member, SEND);
 * member.unlock();
 * dropWaiter(member, w);
 * assertEquals(member.spares, [w]);
 * ```
 */
export function dropWaiter(member: PoolMember, w: number): void {
  if (member.spares.length < MAX_SPARES) member.spares.push(w);
  else member.freeControlLater(member.heap.i32[(w >> 2) + W_BLOCK]);
}

/**
 * Appends waiter `w` to the queue whose head is word `q`.
 *
 * @param i32 The heap's words.
 * @param q The queue's head word (its tail is `q + 1`).
 * @param w The waiter.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "./heap.ts";
 * import { dequeue, enqueue, WAITER_BYTES } from "./_records.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const q = heap.allocControl(8) >> 2; // a queue's head and tail words
 * const [a, b] = [heap.allocControl(WAITER_BYTES), heap.allocControl(WAITER_BYTES)];
 * enqueue(heap.i32, q, a);
 * enqueue(heap.i32, q, b);
 * assertEquals([dequeue(heap.i32, q), dequeue(heap.i32, q), dequeue(heap.i32, q)], [a, b, 0]);
 * heap.unlock();
 * ```
 */
export function enqueue(i32: Int32Array, q: number, w: number): void {
  const wi = w >> 2;
  const tail = i32[q + 1];
  i32[wi + W_QUEUE] = q;
  i32[wi + W_PREV] = tail;
  i32[wi + W_NEXT] = 0;
  if (tail === 0) i32[q] = w;
  else i32[(tail >> 2) + W_NEXT] = w;
  i32[q + 1] = w;
}

/**
 * Takes waiter `w` out of its queue, if it is in one.
 *
 * @param i32 The heap's words.
 * @param w The waiter.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "./heap.ts";
 * import { dequeue, enqueue, unlink, WAITER_BYTES } from "./_records.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const q = heap.allocControl(8) >> 2;
 * const [a, b] = [heap.allocControl(WAITER_BYTES), heap.allocControl(WAITER_BYTES)];
 * enqueue(heap.i32, q, a);
 * enqueue(heap.i32, q, b);
 * unlink(heap.i32, a);
 * unlink(heap.i32, a); // no longer queued: nothing happens
 * assertEquals(dequeue(heap.i32, q), b);
 * heap.unlock();
 * ```
 */
export function unlink(i32: Int32Array, w: number): void {
  const wi = w >> 2;
  const q = i32[wi + W_QUEUE];
  if (q === 0) return;
  const prev = i32[wi + W_PREV];
  const next = i32[wi + W_NEXT];
  if (prev === 0) i32[q] = next;
  else i32[(prev >> 2) + W_NEXT] = next;
  if (next === 0) i32[q + 1] = prev;
  else i32[(next >> 2) + W_PREV] = prev;
  i32[wi + W_QUEUE] = 0;
  i32[wi + W_PREV] = 0;
  i32[wi + W_NEXT] = 0;
}

/**
 * Dequeues the oldest waiter of queue `q`.
 *
 * @param i32 The heap's words.
 * @param q The queue's head word.
 * @returns The waiter, or 0 when the queue is empty.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "./heap.ts";
 * import { dequeue, enqueue, W_QUEUE, WAITER_BYTES } from "./_records.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const q = heap.allocControl(8) >> 2;
 * const w = heap.allocControl(WAITER_BYTES);
 * enqueue(heap.i32, q, w);
 * assertEquals(dequeue(heap.i32, q), w);
 * assertEquals(heap.i32[(w >> 2) + W_QUEUE], 0);
 * heap.unlock();
 * ```
 */
export function dequeue(i32: Int32Array, q: number): number {
  const w = i32[q];
  if (w !== 0) unlink(i32, w);
  return w;
}

/**
 * Records that `w`'s operation happened, with `state`; for a select case,
 * unlinks the select's other waiters and fires it. Then wakes the owner
 * (after the lock is released), unless it polls (NO_TOKEN): the state
 * word, or the select's S_FIRED, is stored last, with Atomics, so a
 * polling owner that sees it sees everything else.
 * Preconditions: `w` is out of its queue; a receive's value is in its
 * value area already.
 *
 * @param member The waking worker.
 * @param w The waiter.
 * @param state DONE, CLOSED or PANICKED.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { complete, DONE, newWaiter, RECV, W_STATE } from "./_records.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const member = new PoolMember(heap, 0, new Scheduler({ threadContext: false }));
 * member.lock();
 * const w = newWaiter(member, RECV); // its owner polls: no token, no wake-up
 * complete(member, w, DONE);
 * member.unlock();
 * assertEquals(Atomics.load(heap.i32, (w >> 2) + W_STATE), DONE);
 * ```
 */
export function complete(member: PoolMember, w: number, state: number): void {
  const i32 = member.heap.i32;
  const wi = w >> 2;
  const sel = i32[wi + W_SELECT];
  if (sel === 0) {
    const token = i32[wi + W_TOKEN];
    Atomics.store(i32, wi + W_STATE, state);
    if (token !== NO_TOKEN) member.wake(i32[wi + W_WORKER], token);
    return;
  }
  const si = sel >> 2;
  i32[wi + W_STATE] = state;
  const n = i32[si + S_COUNT];
  for (let k = 0; k < n; k++) unlink(i32, i32[si + S_WAITERS + k]);
  const token = i32[si + S_TOKEN];
  Atomics.store(i32, si + S_FIRED, i32[wi + W_CASE]);
  if (token !== NO_TOKEN) member.wake(i32[si + S_WORKER], token);
}
