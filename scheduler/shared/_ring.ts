// The ring of a buffered shared channel, which its senders and receivers
// use without the heap's lock while nobody waits on the channel.
//
// The ring has C_RING_CAP slots, a power of two, each a value area
// (_values.ts). Positions count sends and receives modulo 2^29; position p
// is slot p mod C_RING_CAP. Each side has a cache line of its own:
//
//   C_TAIL   the next send's position << 2 | SLOW | LOCKED     (senders)
//   C_FREE   how many free slots the senders know of
//   C_HEAD   the next receive's position << 2 | SLOW | LOCKED  (receivers)
//   C_AVAIL  how many values the receivers know of
//
// The fast path (pushFast, takeFast; its code is WebAssembly, in
// _lock_free_wasm.ts, where an atomic operation is an inline instruction
// rather than an `Atomics` call, 15–30 ns here, about half of it the call)
// locks one side with a compare-and-swap that fails when SLOW is set, moves
// one value with plain reads and writes, and unlocks by storing the next
// position: two atomic operations, both on the side's own word. The store
// publishes the move: a sender's store of the tail publishes the value it
// wrote (a receiver reads the tail atomically before it reads a slot), a
// receiver's store of the head frees the slot it read. Each side counts
// what the other has published only when it knows of nothing left (C_FREE
// or C_AVAIL is 0): then it reads the other side's word once and counts
// again. So a stream between two cores moves the slots' lines and, once a
// batch, the other side's word; the SLOW bits, read in the
// compare-and-swap, are the only check for waiters, and nobody touches the
// heap's lock.
//
// The slow path (shared_channel.ts's ladders, and select) holds the heap's
// lock and freezes the ring: it locks both sides, so that it sees and
// changes the ring exactly, as a locked channel's; then it thaws it,
// unlocking both sides with their counts exact and their SLOW bits set by
// the rule below.
//
// Invariants:
//   0 <= tail - head <= min(C_CAP, C_RING_CAP), modulo 2^29; the values
//   are at positions head .. tail-1, oldest first.
//   C_FREE never exceeds the free slots: it is counted from the head,
//   which only moves on, and changes otherwise only with the tail.
//   C_AVAIL never exceeds the values in the ring: it is counted from the
//   tail, which only moves on, and changes otherwise only with the head.
//   A slot at a position in head .. tail-1 was written before the tail
//   that covers it was stored: whoever read that tail with Atomics reads
//   the value whole.
//   SLOW is set on the tail while the channel is closed or has parked
//   receivers (a sender must panic, or hand its value over), and on the
//   head while it has parked senders (a receiver must move the oldest
//   parked sender's value into the ring, so that no later sender passes
//   it). Only a thaw sets or clears SLOW. A SLOW bit whose cause went away
//   (a select that fired elsewhere withdrew its waiter) stays until the
//   next thaw: it costs one operation a slow path, and nothing else.
//   Parked receivers imply an empty ring; parked senders a full one (a
//   ring with fewer slots than the capacity grows instead).
//   A side's words change only while it is locked; C_RING and C_RING_CAP
//   only while the ring is frozen.
//   Whoever holds a side lock waits for nothing (not the heap's lock, not
//   a codec, not an allocation) and holds it for a few dozen instructions;
//   so the slow path, which holds the heap's lock and waits for side locks,
//   always gets them.

import {
  C_AVAIL,
  C_CAP,
  C_CLOSED,
  C_FREE,
  C_HEAD,
  C_RECVQ,
  C_RING,
  C_RING_BLOCK,
  C_RING_CAP,
  C_SENDQ,
  C_TAIL,
} from "./_records.ts";
import { copyValue, VALUE_BYTES, VALUE_WORDS } from "./_values.ts";
import { Global, type SharedHeap } from "./heap.ts";
import {
  FAST_BLOCKED,
  FAST_DONE,
  FAST_NO,
  LOCKED,
  lockFreeWasm,
  POSITIONS,
  SLOW,
} from "./_lock_free_wasm.ts";

// The largest ring made up front (2 KiB); larger capacities grow it by
// doubling, on the slow path, as it fills: channels live as long as the
// run, and most never hold many values.
const RING_START = 64;

export { FAST_BLOCKED, FAST_DONE, FAST_NO };

/**
 * Makes the ring of a new channel record (zeroed, lock held).
 *
 * @param heap The heap.
 * @param c The channel record's first word.
 * @param capacity The channel's capacity, at least 1.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "./heap.ts";
 * import { C_CAP, C_RING_CAP } from "./_records.ts";
 * import { createRing } from "./_ring.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const c = heap.allocControl(256) >> 2; // a channel record, zeroed
 * heap.i32[c + C_CAP] = 40;
 * createRing(heap, c, 40);
 * heap.unlock();
 * assertEquals(heap.i32[c + C_RING_CAP], 64);
 * ```
 */
export function createRing(
  heap: SharedHeap,
  c: number,
  capacity: number,
): void {
  let slots = 1;
  while (slots < capacity && slots < RING_START) slots *= 2;
  allocateRing(heap, c, slots);
}

// Gives the channel a ring of `slots` slots, 64-aligned in the data arena.
function allocateRing(heap: SharedHeap, c: number, slots: number): void {
  const block = heap.allocData(slots * VALUE_BYTES + 56);
  const i32 = heap.i32; // after allocData, which may grow the memory
  const ring = (block + 63) & ~63;
  i32[c + C_RING] = ring;
  i32[c + C_RING_CAP] = slots;
  i32[c + C_RING_BLOCK] = block;
}

// The heap's words, covering the ring (another worker may have grown the
// memory to make it). Exact with a side locked or the ring frozen; else
// the ring may be changing, and so may what this covers (hints only).
function ringWords(heap: SharedHeap, c: number): Int32Array {
  const i32 = heap.i32;
  return heap.i32To(i32[c + C_RING] + i32[c + C_RING_CAP] * VALUE_BYTES);
}

function slotOf(i32: Int32Array, c: number, position: number): number {
  return (i32[c + C_RING] >> 2) +
    (position & (i32[c + C_RING_CAP] - 1)) * VALUE_WORDS;
}

// How many values the ring may hold: the capacity, or the slots if fewer.
function limitOf(i32: Int32Array, c: number): number {
  return Math.min(i32[c + C_CAP], i32[c + C_RING_CAP]);
}

/**
 * Sends the value in area `from` into the ring without the heap's lock,
 * if nobody waits on the channel and a slot is free.
 *
 * @param heap The heap.
 * @param c The channel record's first word.
 * @param from The value area (the sender's scratch).
 * @returns FAST_DONE, FAST_BLOCKED (full) or FAST_NO.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "./heap.ts";
 * import { C_CAP } from "./_records.ts";
 * import { createRing, FAST_BLOCKED, FAST_DONE, pushFast } from "./_ring.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const c = heap.allocControl(256) >> 2;
 * const area = heap.allocControl(32) >> 2; // a value area
 * heap.i32[c + C_CAP] = 1;
 * createRing(heap, c, 1);
 * heap.unlock();
 * assertEquals(pushFast(heap, c, area), FAST_DONE);
 * assertEquals(pushFast(heap, c, area), FAST_BLOCKED); // full
 * ```
 */
export function pushFast(heap: SharedHeap, c: number, from: number): number {
  return lockFreeWasm(heap).push(c << 2, from << 2);
}

/**
 * Receives the oldest value of the ring into area `to` without the heap's
 * lock, if nobody waits on the channel and the ring is not empty.
 *
 * @param heap The heap.
 * @param c The channel record's first word.
 * @param to The value area (the receiver's scratch).
 * @returns FAST_DONE, FAST_BLOCKED (empty) or FAST_NO.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "./heap.ts";
 * import { C_CAP } from "./_records.ts";
 * import { createRing, FAST_BLOCKED, pushFast, takeFast } from "./_ring.ts";
 * import { V_INLINE } from "./_values.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const c = heap.allocControl(256) >> 2;
 * const area = heap.allocControl(32) >> 2;
 * heap.i32[c + C_CAP] = 2;
 * createRing(heap, c, 2);
 * heap.unlock();
 * heap.i32[area + V_INLINE] = 7;
 * pushFast(heap, c, area);
 * heap.i32[area + V_INLINE] = 0;
 * takeFast(heap, c, area);
 * assertEquals(heap.i32[area + V_INLINE], 7);
 * assertEquals(takeFast(heap, c, area), FAST_BLOCKED); // empty
 * ```
 */
export function takeFast(heap: SharedHeap, c: number, to: number): number {
  return lockFreeWasm(heap).take(c << 2, to << 2);
}

/**
 * Whether a receive would likely not wait: a value in the ring, or a
 * reason to take the slow path (read without any lock: a hint).
 *
 * @param heap The heap.
 * @param c The channel record's first word.
 * @returns True if it looks ready.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "./heap.ts";
 * import { C_CAP } from "./_records.ts";
 * import { canTakeHint, createRing, pushFast } from "./_ring.ts";
 * import { assert } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const c = heap.allocControl(256) >> 2;
 * const area = heap.allocControl(32) >> 2;
 * heap.i32[c + C_CAP] = 2;
 * createRing(heap, c, 2);
 * heap.unlock();
 * assert(!canTakeHint(heap, c));
 * pushFast(heap, c, area);
 * assert(canTakeHint(heap, c));
 * ```
 */
export function canTakeHint(heap: SharedHeap, c: number): boolean {
  const i32 = heap.i32;
  const word = Atomics.load(i32, c + C_HEAD);
  return (word & SLOW) !== 0 || Atomics.load(i32, c + C_CLOSED) !== 0 ||
    (Atomics.load(i32, c + C_TAIL) >> 2) !== (word >> 2);
}

/**
 * Whether a send would likely not wait: a free slot, or a reason to take
 * the slow path (a hint, like `canTakeHint`).
 *
 * @param heap The heap.
 * @param c The channel record's first word.
 * @returns True if it looks ready.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "./heap.ts";
 * import { C_CAP } from "./_records.ts";
 * import { canPushHint, createRing, pushFast } from "./_ring.ts";
 * import { assert } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const c = heap.allocControl(256) >> 2;
 * const area = heap.allocControl(32) >> 2;
 * heap.i32[c + C_CAP] = 1;
 * createRing(heap, c, 1);
 * heap.unlock();
 * assert(canPushHint(heap, c));
 * pushFast(heap, c, area);
 * assert(!canPushHint(heap, c));
 * ```
 */
export function canPushHint(heap: SharedHeap, c: number): boolean {
  const i32 = heap.i32;
  const tail = Atomics.load(i32, c + C_TAIL);
  const used = ((tail >> 2) - (Atomics.load(i32, c + C_HEAD) >> 2)) &
    POSITIONS;
  return (tail & SLOW) !== 0 || used < limitOf(i32, c) ||
    i32[c + C_RING_CAP] < i32[c + C_CAP];
}

// Locks side `at` for the slow path, whatever its SLOW bit: a fast
// operation holds it for a few dozen instructions at most, unless its
// worker was descheduled, when this one sleeps a little between looks
// (or killed, when the run has ended and this gives up).
function acquireSide(i32: Int32Array, at: number): void {
  for (let tries = 0;; tries++) {
    const word = Atomics.load(i32, at);
    if (
      (word & LOCKED) === 0 &&
      Atomics.compareExchange(i32, at, word, word | LOCKED) === word
    ) return;
    if (tries < 1000) continue;
    if (Atomics.load(i32, Global.Ended) !== 0) {
      throw new Error("shared channel: the run ended while a worker held it");
    }
    Atomics.wait(i32, at, word, 0.05);
  }
}

/**
 * Freezes the ring: locks both sides. Precondition: the heap's lock is
 * held; thaw before releasing it.
 *
 * @param heap The heap.
 * @param c The channel record's first word.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "./heap.ts";
 * import { C_CAP } from "./_records.ts";
 * import { createRing, FAST_NO, freeze, pushFast, thaw } from "./_ring.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const c = heap.allocControl(256) >> 2;
 * const area = heap.allocControl(32) >> 2;
 * heap.i32[c + C_CAP] = 2;
 * createRing(heap, c, 2);
 * freeze(heap, c);
 * assertEquals(pushFast(heap, c, area), FAST_NO); // the slow path has it
 * thaw(heap, c);
 * heap.unlock();
 * ```
 */
export function freeze(heap: SharedHeap, c: number): void {
  acquireSide(heap.i32, c + C_TAIL);
  acquireSide(heap.i32, c + C_HEAD);
}

/**
 * Thaws a frozen ring: exact counts on both sides, and SLOW set on each as
 * the invariants say.
 *
 * @param heap The heap.
 * @param c The channel record's first word.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "./heap.ts";
 * import { C_CAP, C_CLOSED } from "./_records.ts";
 * import { createRing, FAST_NO, freeze, pushFast, thaw } from "./_ring.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const c = heap.allocControl(256) >> 2;
 * const area = heap.allocControl(32) >> 2;
 * heap.i32[c + C_CAP] = 2;
 * createRing(heap, c, 2);
 * freeze(heap, c);
 * heap.i32[c + C_CLOSED] = 1;
 * thaw(heap, c); // SLOW on the tail: senders take the slow path
 * heap.unlock();
 * assertEquals(pushFast(heap, c, area), FAST_NO);
 * ```
 */
export function thaw(heap: SharedHeap, c: number): void {
  const i32 = heap.i32;
  const count = frozenCount(heap, c);
  i32[c + C_FREE] = limitOf(i32, c) - count;
  i32[c + C_AVAIL] = count;
  const tailSlow = i32[c + C_CLOSED] !== 0 || i32[c + C_RECVQ] !== 0;
  const headSlow = i32[c + C_SENDQ] !== 0;
  const tail = i32[c + C_TAIL] & ~(LOCKED | SLOW);
  const head = i32[c + C_HEAD] & ~(LOCKED | SLOW);
  Atomics.store(i32, c + C_TAIL, tail | (tailSlow ? SLOW : 0));
  Atomics.store(i32, c + C_HEAD, head | (headSlow ? SLOW : 0));
}

/**
 * How many values a frozen ring holds.
 *
 * @param heap The heap.
 * @param c The channel record's first word.
 * @returns The count.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "./heap.ts";
 * import { C_CAP } from "./_records.ts";
 * import { createRing, freeze, frozenCount, pushFast, thaw } from "./_ring.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const c = heap.allocControl(256) >> 2;
 * const area = heap.allocControl(32) >> 2;
 * heap.i32[c + C_CAP] = 4;
 * createRing(heap, c, 4);
 * heap.unlock();
 * pushFast(heap, c, area);
 * pushFast(heap, c, area);
 * heap.lock();
 * freeze(heap, c);
 * assertEquals(frozenCount(heap, c), 2);
 * thaw(heap, c);
 * heap.unlock();
 * ```
 */
export function frozenCount(heap: SharedHeap, c: number): number {
  const i32 = heap.i32;
  return ((i32[c + C_TAIL] >> 2) - (i32[c + C_HEAD] >> 2)) & POSITIONS;
}

// Moves a frozen side's position one on, keeping it locked.
function advance(i32: Int32Array, at: number): number {
  const position = i32[at] >> 2;
  i32[at] = (((position + 1) & POSITIONS) << 2) | LOCKED;
  return position;
}

/**
 * Appends the value in area `from` to a frozen ring. Precondition: it
 * holds fewer values than its slots and the capacity.
 *
 * @param heap The heap.
 * @param c The channel record's first word.
 * @param from The value area.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "./heap.ts";
 * import { C_CAP } from "./_records.ts";
 * import { createRing, freeze, pushFrozen, takeFast, thaw } from "./_ring.ts";
 * import { V_INLINE } from "./_values.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const c = heap.allocControl(256) >> 2;
 * const area = heap.allocControl(32) >> 2;
 * heap.i32[c + C_CAP] = 2;
 * createRing(heap, c, 2);
 * freeze(heap, c);
 * heap.i32[area + V_INLINE] = 5;
 * pushFrozen(heap, c, area);
 * thaw(heap, c);
 * heap.unlock();
 * heap.i32[area + V_INLINE] = 0;
 * takeFast(heap, c, area);
 * assertEquals(heap.i32[area + V_INLINE], 5);
 * ```
 */
export function pushFrozen(heap: SharedHeap, c: number, from: number): void {
  const i32 = ringWords(heap, c);
  const tail = advance(i32, c + C_TAIL);
  copyValue(i32, from, slotOf(i32, c, tail)); // published by the thaw
}

/**
 * Takes the oldest value of a frozen ring into area `to`. Precondition:
 * it is not empty.
 *
 * @param heap The heap.
 * @param c The channel record's first word.
 * @param to The value area.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "./heap.ts";
 * import { C_CAP } from "./_records.ts";
 * import { createRing, freeze, pushFast, takeFrozen, thaw } from "./_ring.ts";
 * import { V_INLINE } from "./_values.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const c = heap.allocControl(256) >> 2;
 * const area = heap.allocControl(32) >> 2;
 * heap.i32[c + C_CAP] = 2;
 * createRing(heap, c, 2);
 * heap.unlock();
 * heap.i32[area + V_INLINE] = 9;
 * pushFast(heap, c, area);
 * heap.lock();
 * freeze(heap, c);
 * heap.i32[area + V_INLINE] = 0;
 * takeFrozen(heap, c, area);
 * thaw(heap, c);
 * heap.unlock();
 * assertEquals(heap.i32[area + V_INLINE], 9);
 * ```
 */
export function takeFrozen(heap: SharedHeap, c: number, to: number): void {
  const i32 = ringWords(heap, c);
  copyValue(i32, slotOf(i32, c, advance(i32, c + C_HEAD)), to);
}

/**
 * Doubles a full frozen ring, keeping its values at their positions.
 * Preconditions: the ring has fewer slots than the capacity; the heap's
 * lock is held (this allocates).
 *
 * @param heap The heap.
 * @param c The channel record's first word.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "./heap.ts";
 * import { C_CAP, C_RING_CAP } from "./_records.ts";
 * import { createRing, freeze, frozenCount, growFrozen, thaw } from "./_ring.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const c = heap.allocControl(256) >> 2;
 * heap.i32[c + C_CAP] = 3000;
 * createRing(heap, c, 3000); // 64 slots at first
 * freeze(heap, c);
 * growFrozen(heap, c);
 * assertEquals(heap.i32[c + C_RING_CAP], 128);
 * assertEquals(frozenCount(heap, c), 0);
 * thaw(heap, c);
 * heap.unlock();
 * ```
 */
export function growFrozen(heap: SharedHeap, c: number): void {
  let i32 = ringWords(heap, c);
  const oldBlock = i32[c + C_RING_BLOCK];
  const old = i32[c + C_RING] >> 2;
  const oldMask = i32[c + C_RING_CAP] - 1;
  const head = i32[c + C_HEAD] >> 2;
  const count = frozenCount(heap, c);
  allocateRing(heap, c, i32[c + C_RING_CAP] * 2);
  i32 = heap.i32;
  for (let k = 0; k < count; k++) {
    const p = (head + k) & POSITIONS;
    copyValue(i32, old + (p & oldMask) * VALUE_WORDS, slotOf(i32, c, p));
  }
  heap.freeData(oldBlock);
}
