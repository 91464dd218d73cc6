// Values in transit through shared channels. A value area is VALUE_WORDS
// words, laid out alike in a ring slot, a waiter and a worker's scratch
// area, so that moving a value between them is a copy of a few words:
//
//   V_BLOB    the blob holding the value, or 0 when the value is inline
//   V_SPARE   a spare word, which copies skip
//   V_INLINE  the codec's bytes of a value of at most INLINE_BYTES
//
// A small value (a number, a small tensor, a tensor by reference) is thus
// written once into the sender's scratch area, copied into the slot or
// waiter, and copied out into the receiver's scratch area, with no
// allocation and no lock. A larger one goes into a blob, which needs the
// heap's lock to allocate and to free.
//
// Growth: a waiter's and a scratch area lie in the control arena, which
// every worker's views cover; a ring slot and a blob lie in the data
// arena: _ring.ts covers its slots before it copies a value, and a codec
// covers a blob it reads (SharedCodec).
//
// Invariants:
//   A value area holds a value from the write (or copy) that fills it
//   until the copy or discard that empties it; exactly one party owns it
//   meanwhile (see _records.ts).
//   A worker's scratch area is used only between an encode and the copy
//   that follows it, or between a copy and the decode that follows it,
//   with no other thread's code in between: a parked operation decodes
//   from its own waiter, never from scratch.

import type { SharedCodec } from "./shared_channel.ts";
import type { PoolMember } from "./pool_member.ts";
import type { SharedHeap } from "./heap.ts";

export const V_BLOB = 0;
export const V_SPARE = 1;
export const V_INLINE = 2;
export const VALUE_WORDS = 8;
export const VALUE_BYTES = VALUE_WORDS * 4;
/** The bytes a codec may write inline (words V_INLINE..VALUE_WORDS-1). */
export const INLINE_BYTES = (VALUE_WORDS - V_INLINE) * 4;

/**
 * Writes `value` as a new blob. Precondition: lock held.
 *
 * @param heap The heap.
 * @param codec The codec.
 * @param value The value.
 * @returns The blob.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "./heap.ts";
 * import { encode } from "./_values.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const codec = {
 *   byteLength: () => 8,
 *   write: (h: SharedHeap, off: number, v: number) => void (h.f64[off >> 3] = v),
 *   read: (h: SharedHeap, off: number) => h.f64[off >> 3],
 * };
 * const heap = SharedHeap.create();
 * heap.lock();
 * const blob = encode(heap, codec, 2.5);
 * heap.unlock();
 * assertEquals(codec.read(heap, blob), 2.5);
 * ```
 */
export function encode<T>(
  heap: SharedHeap,
  codec: SharedCodec<T>,
  value: T,
): number {
  const blob = heap.allocData(codec.byteLength(heap, value));
  codec.write(heap, blob, value);
  return blob;
}

/**
 * Writes `value` into value area `area` (a word index): inline if it
 * fits, else as a blob, taking the lock for it unless `locked`.
 *
 * @param member This worker.
 * @param codec The codec.
 * @param value The value.
 * @param area The value area's first word.
 * @param locked Whether the caller holds the lock.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { encodeValue, takeValue, V_BLOB } from "./_values.ts";
 * import { assert, assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const member = new PoolMember(heap, 0, new Scheduler({ threadContext: false }));
 * const strings = {
 *   byteLength: (_: SharedHeap, s: string) => 8 + s.length,
 *   write(h: SharedHeap, off: number, s: string) {
 *     h.i32[off >> 2] = s.length;
 *     for (let i = 0; i < s.length; i++) h.u8[off + 8 + i] = s.charCodeAt(i);
 *   },
 *   read: (h: SharedHeap, off: number) =>
 *     String.fromCharCode(...h.u8.slice(off + 8, off + 8 + h.i32[off >> 2])),
 * };
 * encodeValue(member, strings, "short", member.scratch, false); // inline
 * assertEquals(heap.i32[member.scratch + V_BLOB], 0);
 * assertEquals(takeValue(member, strings, member.scratch), "short");
 * encodeValue(member, strings, "x".repeat(40), member.scratch, false);
 * assert(heap.i32[member.scratch + V_BLOB] !== 0); // a blob
 * assertEquals(takeValue(member, strings, member.scratch), "x".repeat(40));
 * ```
 */
export function encodeValue<T>(
  member: PoolMember,
  codec: SharedCodec<T>,
  value: T,
  area: number,
  locked: boolean,
): void {
  const heap = member.heap;
  if (codec.byteLength(heap, value) <= INLINE_BYTES) {
    codec.write(heap, (area + V_INLINE) << 2, value);
    heap.i32[area + V_BLOB] = 0;
    return;
  }
  if (!locked) member.lock();
  try {
    const blob = encode(heap, codec, value);
    heap.i32[area + V_BLOB] = blob;
  } finally {
    if (!locked) member.unlock();
  }
}

/**
 * Copies the value in area `from` to area `to` (all but V_SPARE).
 *
 * @param i32 The heap's words.
 * @param from The source area's first word.
 * @param to The destination area's first word.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "./heap.ts";
 * import { copyValue, V_INLINE } from "./_values.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const from = heap.allocControl(32) >> 2;
 * const to = heap.allocControl(32) >> 2;
 * heap.unlock();
 * heap.f64[(from + V_INLINE) >> 1] = 0.5;
 * copyValue(heap.i32, from, to);
 * assertEquals(heap.f64[(to + V_INLINE) >> 1], 0.5);
 * ```
 */
export function copyValue(i32: Int32Array, from: number, to: number): void {
  i32[to] = i32[from];
  i32[to + 2] = i32[from + 2];
  i32[to + 3] = i32[from + 3];
  i32[to + 4] = i32[from + 4];
  i32[to + 5] = i32[from + 5];
  i32[to + 6] = i32[from + 6];
  i32[to + 7] = i32[from + 7];
}

/**
 * Decodes the value in area `area`, then discards the area's hold on it
 * (see `discardValue`). Call without the lock.
 *
 * @param member This worker.
 * @param codec The codec.
 * @param area The value area's first word.
 * @returns The value.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { encodeValue, takeValue } from "./_values.ts";
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
 * encodeValue(member, codec, 3, member.scratch, false);
 * assertEquals(takeValue(member, codec, member.scratch), 3);
 * ```
 */
export function takeValue<T>(
  member: PoolMember,
  codec: SharedCodec<T>,
  area: number,
): T {
  const value = codec.read(member.heap, valueAt(member.heap, area));
  discardValue(member, codec, area);
  return value;
}

/**
 * Lets go of the value in area `area` unread: what the codec holds for it,
 * and its blob (freed the next time the lock is taken).
 *
 * @param member This worker.
 * @param codec The codec.
 * @param area The value area's first word.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../scheduler.ts";
 * import { SharedHeap } from "./heap.ts";
 * import { PoolMember } from "./pool_member.ts";
 * import { createWakeRings } from "./wake_ring.ts";
 * import { discardValue, encodeValue } from "./_values.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const member = new PoolMember(heap, 0, new Scheduler({ threadContext: false }));
 * let released = 0;
 * const codec = {
 *   byteLength: () => 8,
 *   write: (h: SharedHeap, off: number, v: number) => void (h.f64[off >> 3] = v),
 *   read: (h: SharedHeap, off: number) => h.f64[off >> 3],
 *   discard: () => void released++,
 * };
 * encodeValue(member, codec, 3, member.scratch, false);
 * discardValue(member, codec, member.scratch);
 * assertEquals(released, 1);
 * ```
 */
export function discardValue<T>(
  member: PoolMember,
  codec: SharedCodec<T>,
  area: number,
): void {
  const heap = member.heap;
  codec.discard?.(heap, valueAt(heap, area));
  const blob = heap.i32[area + V_BLOB];
  if (blob !== 0) member.freeDataLater(blob);
}

// Where the value of area `area` starts: its blob, or the area's inline
// bytes.
function valueAt(heap: SharedHeap, area: number): number {
  const blob = heap.i32[area + V_BLOB];
  return blob !== 0 ? blob : (area + V_INLINE) << 2;
}
