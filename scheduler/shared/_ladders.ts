// The ladders of shared_channel.ts's slow path, and select's: what a send
// or a receive does with the heap's lock held and the channel's ring
// frozen (_ring.ts), in Go's order, one comment per rung. They stop short
// of parking, which their callers do (one waiter, or one per select case).

import {
  C_CAP,
  C_CLOSED,
  C_RECVQ,
  C_RING_CAP,
  C_SENDQ,
  CLOSED,
  complete,
  dequeue,
  DONE,
  PANICKED,
  W_VALUE,
} from "./_records.ts";
import { frozenCount, growFrozen, pushFrozen, takeFrozen } from "./_ring.ts";
import { copyValue } from "./_values.ts";
import type { SharedChannel } from "./shared_channel.ts";
import { channelMember, channelRecord, isBuffered } from "./_channel_handle.ts";

/** What a ladder did: the operation completed (or its value moved). */
export const COMPLETED = 0;
/** The operation must wait: park. */
export const MUST_WAIT = 1;
/** The channel is closed: a send panics, a receive gets the zero value. */
export const WAS_CLOSED = 2;

/**
 * Whether a receive would complete at once. Precondition: frozen.
 *
 * @param ch The channel.
 * @returns True if ready.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createSharedChannel, freezeChannel, thawChannel } from "./_channel_handle.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { readyToRecv } from "./_ladders.ts";
 * import { assert } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const member = new PoolMember(heap, 0, new Scheduler({ threadContext: false }));
 * const codec = {
 *   byteLength: () => 8,
 *   write: (h: SharedHeap, off: number, v: number) => void (h.f64[off >> 3] = v),
 *   read: (h: SharedHeap, off: number) => h.f64[off >> 3],
 * };
 * const ch = createSharedChannel(member, 1, codec, 0);
 * ch.trySend(1);
 * member.lock();
 * freezeChannel(ch);
 * assert(readyToRecv(ch));
 * thawChannel(ch);
 * member.unlock();
 * ```
 */
export function readyToRecv<T>(ch: SharedChannel<T>): boolean {
  const heap = channelMember(ch).heap;
  const c = channelRecord(ch) >> 2;
  return heap.i32[c + C_SENDQ] !== 0 || heap.i32[c + C_CLOSED] !== 0 ||
    (isBuffered(ch) && frozenCount(heap, c) > 0);
}

/**
 * Whether a send would complete or panic at once. Precondition: frozen.
 *
 * @param ch The channel.
 * @returns True if ready.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createSharedChannel, freezeChannel, thawChannel } from "./_channel_handle.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { readyToSend } from "./_ladders.ts";
 * import { assert } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const member = new PoolMember(heap, 0, new Scheduler({ threadContext: false }));
 * const codec = {
 *   byteLength: () => 8,
 *   write: (h: SharedHeap, off: number, v: number) => void (h.f64[off >> 3] = v),
 *   read: (h: SharedHeap, off: number) => h.f64[off >> 3],
 * };
 * const ch = createSharedChannel(member, 1, codec, 0);
 * ch.trySend(1);
 * member.lock();
 * freezeChannel(ch);
 * assert(!readyToSend(ch)); // full
 * thawChannel(ch);
 * member.unlock();
 * ```
 */
export function readyToSend<T>(ch: SharedChannel<T>): boolean {
  const heap = channelMember(ch).heap;
  const c = channelRecord(ch) >> 2;
  const i32 = heap.i32;
  return i32[c + C_CLOSED] !== 0 || i32[c + C_RECVQ] !== 0 ||
    (isBuffered(ch) && frozenCount(heap, c) < i32[c + C_CAP]);
}

/**
 * The send ladder short of parking, for the value in value area `area`.
 * Precondition: frozen. On COMPLETED the value has moved; on WAS_CLOSED
 * (the caller panics) and MUST_WAIT it is still in `area`.
 *
 * @param ch The channel.
 * @param area The value area.
 * @returns COMPLETED, MUST_WAIT or WAS_CLOSED.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createSharedChannel, freezeChannel, thawChannel } from "./_channel_handle.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { COMPLETED, MUST_WAIT, offerFrozen } from "./_ladders.ts";
 * import { encodeValue } from "./_values.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const member = new PoolMember(heap, 0, new Scheduler({ threadContext: false }));
 * const codec = {
 *   byteLength: () => 8,
 *   write: (h: SharedHeap, off: number, v: number) => void (h.f64[off >> 3] = v),
 *   read: (h: SharedHeap, off: number) => h.f64[off >> 3],
 * };
 * const ch = createSharedChannel(member, 1, codec, 0);
 * member.lock();
 * freezeChannel(ch);
 * encodeValue(member, codec, 1, member.scratch, true);
 * assertEquals(offerFrozen(ch, member.scratch), COMPLETED);
 * assertEquals(offerFrozen(ch, member.scratch), MUST_WAIT); // full
 * thawChannel(ch);
 * member.unlock();
 * ```
 */
export function offerFrozen<T>(ch: SharedChannel<T>, area: number): number {
  const m = channelMember(ch);
  const heap = m.heap;
  const c = channelRecord(ch) >> 2;
  // Closed: the caller panics.
  if (heap.i32[c + C_CLOSED] !== 0) return WAS_CLOSED;
  // A receiver is waiting (so the ring is empty): hand the value over.
  const w = dequeue(heap.i32, c + C_RECVQ);
  if (w !== 0) {
    copyValue(heap.i32, area, (w >> 2) + W_VALUE);
    complete(m, w, DONE);
    return COMPLETED;
  }
  // Room in the buffer: append, growing the ring first if it is full.
  if (isBuffered(ch)) {
    const count = frozenCount(heap, c);
    if (count < heap.i32[c + C_CAP]) {
      if (count === heap.i32[c + C_RING_CAP]) growFrozen(heap, c);
      pushFrozen(heap, c, area);
      return COMPLETED;
    }
  }
  return MUST_WAIT;
}

/**
 * The receive ladder short of parking: on COMPLETED the value is in
 * value area `area`; WAS_CLOSED means closed and drained (the zero
 * value, not ok). Precondition: frozen.
 *
 * @param ch The channel.
 * @param area The value area.
 * @returns COMPLETED, MUST_WAIT or WAS_CLOSED.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createSharedChannel, freezeChannel, thawChannel } from "./_channel_handle.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { COMPLETED, MUST_WAIT, pollFrozen } from "./_ladders.ts";
 * import { takeValue } from "./_values.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const member = new PoolMember(heap, 0, new Scheduler({ threadContext: false }));
 * const codec = {
 *   byteLength: () => 8,
 *   write: (h: SharedHeap, off: number, v: number) => void (h.f64[off >> 3] = v),
 *   read: (h: SharedHeap, off: number) => h.f64[off >> 3],
 * };
 * const ch = createSharedChannel(member, 1, codec, 0);
 * ch.trySend(5);
 * member.lock();
 * freezeChannel(ch);
 * assertEquals(pollFrozen(ch, member.scratch), COMPLETED);
 * assertEquals(pollFrozen(ch, member.scratch + 8), MUST_WAIT);
 * thawChannel(ch);
 * member.unlock();
 * assertEquals(takeValue(member, codec, member.scratch), 5);
 * ```
 */
export function pollFrozen<T>(ch: SharedChannel<T>, area: number): number {
  const m = channelMember(ch);
  const heap = m.heap;
  const c = channelRecord(ch) >> 2;
  // A sender is waiting. Unbuffered: take its value directly. Buffered
  // (so the ring is full): take the oldest value and put the sender's in
  // as the newest. Either way its send is complete.
  const w = dequeue(heap.i32, c + C_SENDQ);
  if (w !== 0) {
    const from = (w >> 2) + W_VALUE;
    if (isBuffered(ch)) {
      takeFrozen(heap, c, area);
      pushFrozen(heap, c, from);
    } else {
      copyValue(heap.i32, from, area);
    }
    complete(m, w, DONE);
    return COMPLETED;
  }
  // A buffered value: take the oldest.
  if (isBuffered(ch) && frozenCount(heap, c) > 0) {
    takeFrozen(heap, c, area);
    return COMPLETED;
  }
  // Closed and drained: the zero value, not ok.
  if (heap.i32[c + C_CLOSED] !== 0) return WAS_CLOSED;
  return MUST_WAIT;
}

/**
 * Closes a frozen channel: its parked receivers get the zero value (ok
 * false), its parked senders panic. Thawing it then sets SLOW on the
 * tail for good, so that every later send takes the slow path and panics.
 *
 * @param ch The channel.
 * @returns False if it was closed already (the caller panics).
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createSharedChannel, freezeChannel, thawChannel } from "./_channel_handle.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { closeFrozen } from "./_ladders.ts";
 * import { assert } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const member = new PoolMember(heap, 0, new Scheduler({ threadContext: false }));
 * const codec = {
 *   byteLength: () => 8,
 *   write: (h: SharedHeap, off: number, v: number) => void (h.f64[off >> 3] = v),
 *   read: (h: SharedHeap, off: number) => h.f64[off >> 3],
 * };
 * const ch = createSharedChannel(member, 1, codec, 0);
 * member.lock();
 * freezeChannel(ch);
 * assert(closeFrozen(ch));
 * assert(!closeFrozen(ch)); // closed already
 * thawChannel(ch);
 * member.unlock();
 * assert(ch.closed);
 * ```
 */
export function closeFrozen<T>(ch: SharedChannel<T>): boolean {
  const m = channelMember(ch);
  const i32 = m.heap.i32;
  const c = channelRecord(ch) >> 2;
  if (i32[c + C_CLOSED] !== 0) return false;
  Atomics.store(i32, c + C_CLOSED, 1);
  for (
    let w = dequeue(i32, c + C_RECVQ);
    w !== 0;
    w = dequeue(i32, c + C_RECVQ)
  ) {
    complete(m, w, CLOSED);
  }
  for (
    let w = dequeue(i32, c + C_SENDQ);
    w !== 0;
    w = dequeue(i32, c + C_SENDQ)
  ) {
    complete(m, w, PANICKED);
  }
  return true;
}
