// The records shared channels and selects keep in the heap, and the queue
// and completion steps they share. Every function here expects the heap's
// lock to be held. Offsets are byte offsets; `x >> 2` is a record's first
// word.
//
// Invariants (lock held):
//   A waiter is in at most one queue: W_QUEUE names the word of that
//   queue's head (its tail is the next word), 0 once dequeued.
//   No queue holds a waiter whose select has fired: the waker that fires a
//   select unlinks the select's other waiters in the same critical section
//   (select's pass 3, done by the waker, as on one worker).
//   A value blob has one owner: a ring slot, a waiter, or a thread that
//   took it and frees it after decoding.

import type { PoolMember } from "./pool_member.ts";

// A channel record's words.
export const C_CLOSED = 0;
export const C_CAP = 1;
export const C_COUNT = 2;
export const C_HEAD = 3;
/** The ring of value blobs: its offset, and how many slots it has. */
export const C_RING = 4;
export const C_RING_CAP = 5;
/** The queues of parked receivers and senders: head and tail words each. */
export const C_RECVQ = 6;
export const C_SENDQ = 8;
/** The blob of the value a closed, drained channel yields. */
export const C_ZERO = 10;
export const C_ID = 11;
/** A number the channel's user keeps with it (the runtime: a dtype). */
export const C_TAG = 12;
export const CHANNEL_BYTES = 16 * 4;

// A waiter record's words.
export const W_NEXT = 0;
export const W_PREV = 1;
export const W_QUEUE = 2;
export const W_KIND = 3;
export const W_STATE = 4;
/** SEND: the blob offered (0 once taken). Receives: the blob delivered. */
export const W_VALUE = 5;
export const W_WORKER = 6;
export const W_TOKEN = 7;
/** The select the waiter is a case of (0 for a plain operation). */
export const W_SELECT = 8;
export const W_CASE = 9;
export const WAITER_BYTES = 12 * 4;

/** Waiter kinds. */
export const RECV = 0;
export const SEND = 1;

/** Waiter states: waiting, completed, got a closed channel's zero, panicked. */
export const WAITING = 0;
export const DONE = 1;
export const CLOSED = 2;
export const PANICKED = 3;

// A select record's words; S_WAITERS.. hold its waiters' offsets.
export const S_FIRED = 0;
export const S_WORKER = 1;
export const S_TOKEN = 2;
export const S_COUNT = 3;
export const S_WAITERS = 4;

/**
 * Appends waiter `w` to the queue whose head is word `q`.
 *
 * @param i32 The heap's words.
 * @param q The queue's head word (its tail is `q + 1`).
 * @param w The waiter.
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
 */
export function dequeue(i32: Int32Array, q: number): number {
  const w = i32[q];
  if (w !== 0) unlink(i32, w);
  return w;
}

/**
 * Records that `w`'s operation happened, with `state` and, for a receive,
 * the blob delivered; for a select case, fires the select and unlinks its
 * other waiters. Then wakes the owner (after the lock is released).
 * Precondition: `w` is out of its queue.
 *
 * @param member The waking worker.
 * @param w The waiter.
 * @param value A receive's blob (0 for none); ignored for sends.
 * @param state DONE, CLOSED or PANICKED.
 */
export function complete(
  member: PoolMember,
  w: number,
  value: number,
  state: number,
): void {
  const i32 = member.heap.i32;
  const wi = w >> 2;
  if (i32[wi + W_KIND] === RECV) i32[wi + W_VALUE] = value;
  else if (state === DONE) i32[wi + W_VALUE] = 0; // the receiver took it
  i32[wi + W_STATE] = state;
  const sel = i32[wi + W_SELECT];
  if (sel === 0) return member.wake(i32[wi + W_WORKER], i32[wi + W_TOKEN]);
  const si = sel >> 2;
  i32[si + S_FIRED] = i32[wi + W_CASE];
  const n = i32[si + S_COUNT];
  for (let k = 0; k < n; k++) unlink(i32, i32[si + S_WAITERS + k]);
  member.wake(i32[si + S_WORKER], i32[si + S_TOKEN]);
}
