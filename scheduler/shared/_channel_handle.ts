// A shared channel's handle from the inside: making a channel's record and
// opening handles on it, the holds that keep a record alive, and what the
// slow path (_ladders.ts, _parking.ts, _rendezvous.ts, shared_select.ts)
// reads of a handle. Only scheduler/shared/ and the pool (runtime/pool/)
// call these; programs see SharedChannel's public methods.
//
// SharedChannel keeps its handle's fields in #private fields and lends this
// module closures over them once, from a static block, when
// shared_channel.ts is evaluated: so they stay private to the class, and a
// call here costs what a field read or a method call did (V8 inlines the
// closure at a monomorphic call site).
//
// A record lives while anything names it: C_REFS counts each handle on
// each worker (a handle's hold ends when it is collected) and each blob
// that names the channel (a spawned goroutine's captured variables). A
// thread parked on the channel keeps its handle, so a record whose holds
// are gone has empty queues; its last holder tears it down at its worker's
// next lock, discarding the values left in its ring.

import { Panic } from "../panic.ts";
import {
  BUFFERED_BYTES,
  C_BLOCK,
  C_CAP,
  C_ID,
  C_RECVQ,
  C_REFS,
  C_RING_BLOCK,
  C_SENDQ,
  C_TAG,
  C_ZERO,
  UNBUFFERED_BYTES,
} from "./_records.ts";
import { createRing, freeze, frozenCount, takeFrozen } from "./_ring.ts";
import { discardValue, encode, VALUE_BYTES } from "./_values.ts";
import { Global } from "./heap.ts";
import type { PoolMember } from "./pool_member.ts";
// Loads SharedChannel, which lends its closures (see `lent` below).
import "./shared_channel.ts";
import type { SharedChannel } from "./shared_channel.ts";
import type { SharedCodec } from "./shared_codec.ts";
import type { Spinner } from "./_spinner.ts";

/** What SharedChannel lends this module (see the top of the file). */
export interface ChannelHandleAccess {
  open<T>(
    member: PoolMember,
    off: number,
    codec: SharedCodec<T>,
  ): SharedChannel<T>;
  member(ch: SharedChannel<unknown>): PoolMember;
  record(ch: SharedChannel<unknown>): number;
  codec<T>(ch: SharedChannel<T>): SharedCodec<T>;
  buffered(ch: SharedChannel<unknown>): boolean;
  freeze(ch: SharedChannel<unknown>): void;
  thaw(ch: SharedChannel<unknown>): void;
  zeroValue<T>(ch: SharedChannel<T>): T;
  spinner(ch: SharedChannel<unknown>): Spinner;
}

// SharedChannel's closures. This module and shared_channel.ts import each
// other: the factories below need the class loaded, and the class needs
// lendChannelHandle. When this module is imported first, shared_channel.ts
// runs first, and its static block lends before this module's body has run:
// so `var`, which exists from the start, where a `let` would still be
// uninitialized (and would then be reset by its declaration).
// deno-lint-ignore no-var
var lent: ChannelHandleAccess;

/**
 * Takes SharedChannel's closures; only its static block calls this.
 *
 * @param access The closures.
 */
export function lendChannelHandle(access: ChannelHandleAccess): void {
  lent = access;
}

/**
 * Makes a channel in the run's heap.
 *
 * @typeParam T The values carried.
 * @param member This worker.
 * @param capacity The buffer size.
 * @param codec How values become bytes.
 * @param zero The value a closed, drained channel yields.
 * @param tag A number kept with the channel for its user.
 * @returns A handle on the new channel.
 * @throws {Panic} `makechan: size out of range`.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { channelTag, createSharedChannel } from "./_channel_handle.ts";
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
 * const ch = createSharedChannel(member, 2, codec, 0, 9);
 * assertEquals([ch.cap, ch.len, channelTag(ch)], [2, 0, 9]);
 * ```
 */
export function createSharedChannel<T>(
  member: PoolMember,
  capacity: number,
  codec: SharedCodec<T>,
  zero: T,
  tag = 0,
): SharedChannel<T> {
  if (!Number.isInteger(capacity) || capacity < 0 || capacity >= 2 ** 31) {
    throw new Panic("makechan: size out of range");
  }
  member.lock();
  try {
    const heap = member.heap;
    // A buffered record starts a cache line: its ring's words have one
    // each (never freed, like every channel record).
    const block = capacity === 0
      ? heap.allocControl(UNBUFFERED_BYTES)
      : heap.allocControl(BUFFERED_BYTES + 56);
    const off = capacity === 0 ? block : (block + 63) & ~63;
    const c = off >> 2;
    heap.i32[c + C_BLOCK] = block;
    if (capacity > 0) createRing(heap, c, capacity);
    const zeroBlob = encode(heap, codec, zero);
    const i32 = heap.i32;
    i32[c + C_CAP] = capacity;
    i32[c + C_ZERO] = zeroBlob;
    i32[c + C_TAG] = tag;
    i32[c + C_ID] = Atomics.add(i32, Global.NextObjectId, 1);
    return lent.open(member, off, codec);
  } finally {
    member.unlock();
  }
}

/**
 * Opens a handle on an existing channel record (one made on another worker
 * of the run, say); the handle holds the record until it is collected.
 *
 * @typeParam T The values carried.
 * @param member This worker.
 * @param off The record.
 * @param codec The channel's codec.
 * @returns The handle.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import {
 *   channelRecord,
 *   createSharedChannel,
 *   openSharedChannel,
 * } from "./_channel_handle.ts";
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
 * const other = openSharedChannel(member, channelRecord(ch), codec);
 * ch.trySend(2.5);
 * assertEquals(other.recv(), 2.5);
 * ```
 */
export function openSharedChannel<T>(
  member: PoolMember,
  off: number,
  codec: SharedCodec<T>,
): SharedChannel<T> {
  return lent.open(member, off, codec);
}

/**
 * Adds a hold on a channel's record, for a blob that names it.
 *
 * @param member This worker.
 * @param off The record.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { C_REFS } from "./_records.ts";
 * import {
 *   channelRecord,
 *   createSharedChannel,
 *   releaseChannel,
 *   retainChannel,
 * } from "./_channel_handle.ts";
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
 * const off = channelRecord(createSharedChannel(member, 0, codec, 0));
 * retainChannel(member, off);
 * assertEquals(heap.i32[(off >> 2) + C_REFS], 2); // the handle and the blob
 * releaseChannel(member, off, codec);
 * assertEquals(heap.i32[(off >> 2) + C_REFS], 1);
 * ```
 */
export function retainChannel(member: PoolMember, off: number): void {
  Atomics.add(member.heap.i32, (off >> 2) + C_REFS, 1);
}

/**
 * Ends a hold on a channel's record; after the last, the record, its ring
 * and the values left in it are freed at this worker's next lock. Nothing
 * is freed once the run has ended (its memory goes whole).
 *
 * @typeParam T The values carried.
 * @param member This worker.
 * @param off The record.
 * @param codec The channel's codec, to discard the values left.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { C_REFS } from "./_records.ts";
 * import {
 *   channelRecord,
 *   createSharedChannel,
 *   releaseChannel,
 * } from "./_channel_handle.ts";
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
 * const off = channelRecord(createSharedChannel(member, 1, codec, 0));
 * releaseChannel(member, off, codec); // as the handle's finalizer would
 * assertEquals(heap.i32[(off >> 2) + C_REFS], 0);
 * ```
 */
export function releaseChannel<T>(
  member: PoolMember,
  off: number,
  codec: SharedCodec<T>,
): void {
  if (member.closed) return;
  if (Atomics.sub(member.heap.i32, (off >> 2) + C_REFS, 1) !== 1) return;
  member.atNextLock(() => tearDown(member, off, codec));
}

/**
 * The worker a handle belongs to.
 *
 * @typeParam T The values carried.
 * @param ch The handle.
 * @returns Its worker's pool member.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { channelMember, createSharedChannel } from "./_channel_handle.ts";
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
 * assert(channelMember(createSharedChannel(member, 0, codec, 0)) === member);
 * ```
 */
export function channelMember<T>(ch: SharedChannel<T>): PoolMember {
  return lent.member(ch);
}

/**
 * The heap offset of a handle's channel record: what names the channel on
 * every worker (handles of one channel on different workers are different
 * objects, so compare channels by their record, not with `===`).
 *
 * @typeParam T The values carried.
 * @param ch The handle.
 * @returns The record's offset.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { C_CAP } from "./_records.ts";
 * import { channelRecord, createSharedChannel } from "./_channel_handle.ts";
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
 * const off = channelRecord(createSharedChannel(member, 3, codec, 0));
 * assertEquals(heap.i32[(off >> 2) + C_CAP], 3);
 * ```
 */
export function channelRecord<T>(ch: SharedChannel<T>): number {
  return lent.record(ch);
}

/**
 * How a handle's values become bytes.
 *
 * @typeParam T The values carried.
 * @param ch The handle.
 * @returns Its codec.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { channelCodec, createSharedChannel } from "./_channel_handle.ts";
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
 * assert(channelCodec(createSharedChannel(member, 0, codec, 0)) === codec);
 * ```
 */
export function channelCodec<T>(ch: SharedChannel<T>): SharedCodec<T> {
  return lent.codec(ch);
}

/**
 * Whether a handle's channel has a buffer (a ring) rather than a
 * rendezvous slot.
 *
 * @typeParam T The values carried.
 * @param ch The handle.
 * @returns True for a buffered channel.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { createSharedChannel, isBuffered } from "./_channel_handle.ts";
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
 * assertEquals(isBuffered(createSharedChannel(member, 0, codec, 0)), false);
 * assertEquals(isBuffered(createSharedChannel(member, 1, codec, 0)), true);
 * ```
 */
export function isBuffered<T>(ch: SharedChannel<T>): boolean {
  return lent.buffered(ch);
}

/**
 * Freezes a channel's ring, or an unbuffered channel's rendezvous slot, for
 * the slow path's ladders. Precondition: the heap's lock is held.
 *
 * @typeParam T The values carried.
 * @param ch The handle.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { readyToSend } from "./_ladders.ts";
 * import {
 *   createSharedChannel,
 *   freezeChannel,
 *   thawChannel,
 * } from "./_channel_handle.ts";
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
 * assert(readyToSend(ch));
 * thawChannel(ch);
 * member.unlock();
 * ```
 */
export function freezeChannel<T>(ch: SharedChannel<T>): void {
  lent.freeze(ch);
}

/**
 * Thaws a channel's ring, setting its SLOW bits from the queues, or reopens
 * its slot if nobody waits. Precondition: the heap's lock is held and the
 * channel is frozen.
 *
 * @typeParam T The values carried.
 * @param ch The handle.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import {
 *   createSharedChannel,
 *   freezeChannel,
 *   thawChannel,
 * } from "./_channel_handle.ts";
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
 * thawChannel(ch);
 * member.unlock();
 * assertEquals(ch.trySend(1), true); // the fast path works again
 * ```
 */
export function thawChannel<T>(ch: SharedChannel<T>): void {
  lent.thaw(ch);
}

/**
 * The value a closed, drained channel yields, decoded afresh.
 *
 * @typeParam T The values carried.
 * @param ch The handle.
 * @returns The zero value.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { createSharedChannel, zeroValueOf } from "./_channel_handle.ts";
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
 * assertEquals(zeroValueOf(createSharedChannel(member, 0, codec, -1)), -1);
 * ```
 */
export function zeroValueOf<T>(ch: SharedChannel<T>): T {
  return lent.zeroValue(ch);
}

/**
 * How long this worker's threads poll a channel before they park
 * (_spinner.ts).
 *
 * @typeParam T The values carried.
 * @param ch The handle.
 * @returns The handle's polling budget.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { channelSpinner, createSharedChannel } from "./_channel_handle.ts";
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
 * assert(!channelSpinner(createSharedChannel(member, 0, codec, 0)).waiting);
 * ```
 */
export function channelSpinner<T>(ch: SharedChannel<T>): Spinner {
  return lent.spinner(ch);
}

/**
 * The number kept with a channel when it was made (the pool keeps a tensor
 * channel's dtype there).
 *
 * @typeParam T The values carried.
 * @param ch The handle.
 * @returns The tag.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { channelTag, createSharedChannel } from "./_channel_handle.ts";
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
 * assertEquals(channelTag(createSharedChannel(member, 0, codec, 0, 4)), 4);
 * ```
 */
export function channelTag<T>(ch: SharedChannel<T>): number {
  return lent.member(ch).heap.i32[(lent.record(ch) >> 2) + C_TAG];
}

// Frees a channel nothing holds (lock held): the values left in its ring
// (their blobs, and what the codec releases), the ring, the zero value's
// blob and the record. A record with a parked waiter would break
// shared_channel.ts's invariants: it is left alone.
function tearDown<T>(
  member: PoolMember,
  off: number,
  codec: SharedCodec<T>,
): void {
  const heap = member.heap;
  const c = off >> 2;
  if (heap.i32[c + C_RECVQ] !== 0 || heap.i32[c + C_SENDQ] !== 0) return;
  if (heap.i32[c + C_CAP] > 0) {
    freeze(heap, c);
    const left = frozenCount(heap, c);
    if (left > 0) {
      const area = heap.allocControl(VALUE_BYTES);
      for (let i = 0; i < left; i++) {
        takeFrozen(heap, c, area >> 2);
        discardValue(member, codec, area >> 2);
      }
      heap.freeControl(area);
    }
    heap.freeData(heap.i32[c + C_RING_BLOCK]);
  }
  const zero = heap.i32[c + C_ZERO];
  codec.discard?.(heap, zero);
  heap.freeData(zero);
  heap.freeControl(heap.i32[c + C_BLOCK]);
}

/**
 * Sets the number a channel's user keeps with it (see `channelTag`); only
 * before the channel is shared, as nothing orders this write with readers.
 *
 * @typeParam T The channel's values.
 * @param ch The channel.
 * @param tag The new tag.
 *
 * @example Usage
 * ```ts
 * import { channelTag, createSharedChannel, setChannelTag } from "./_channel_handle.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { Scheduler } from "../scheduler.ts";
 * import { createWakeRings } from "./wake_ring.ts";
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
 * const ch = createSharedChannel(member, 0, codec, 0, 4);
 * setChannelTag(ch, 260);
 * assertEquals(channelTag(ch), 260);
 * ```
 */
export function setChannelTag<T>(ch: SharedChannel<T>, tag: number): void {
  lent.member(ch).heap.i32[(lent.record(ch) >> 2) + C_TAG] = tag;
}
