/**
 * A shared tensor array's record (shared_tensor_array.ts) and its slots,
 * in the control arena.
 *
 *   word ArrayRecord.Length  the array's length
 *   word ArrayRecord.Cap     how many slots the slot block has room for
 *   word ArrayRecord.Slots   the slot block (0 before the first): Cap
 *                            words, each a tensor blob (_tensor_blob.ts)
 *                            or 0, a hole
 *   word ArrayRecord.Refs    holds on the record: one per handle on any
 *                            worker, one per blob that names the array
 *
 * Invariants:
 *   Length, Cap, Slots and the slots change only with the heap's lock
 *   held; Length is stored with Atomics, so that a worker may read it
 *   without the lock (a snapshot).
 *   Length <= Cap; every slot at or past Length is a hole.
 *   A slot's blob is the array's alone: replacing or dropping it frees it.
 *   Refs changes only by Atomics, without the lock; whoever takes it to 0
 *   frees the record, its slot block and their blobs at its worker's next
 *   lock (shared_tensor_array.ts).
 *   The record and its slot block never leave the control arena, which
 *   every worker's views cover from the start (heap.ts): no helper here
 *   covers. The blobs lie in the data arena: read them through
 *   _tensor_blob.ts, which does.
 *
 * @module
 */
import type { SharedHeap } from "../../scheduler/shared/heap.ts";

/**
 * A tensor array record's words (word indices from its first word).
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { ArrayRecord, createArrayRecord, reserveSlots } from "./_array_record.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const off = createArrayRecord(heap);
 * reserveSlots(heap, off, 3);
 * heap.unlock();
 * assertEquals(heap.i32[(off >> 2) + ArrayRecord.Cap], 4); // at least 4
 * ```
 */
export const ArrayRecord = {
  /** The array's length. */
  Length: 0,
  /** How many slots the slot block has room for. */
  Cap: 1,
  /** The slot block (0 before the first). */
  Slots: 2,
  /** Holds on the record. */
  Refs: 3,
} as const;

const RECORD_BYTES = 16;

/**
 * A new empty array's record, with no holds. Precondition: the lock is
 * held.
 *
 * @param heap The heap.
 * @returns The record.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { arrayLength, createArrayRecord } from "./_array_record.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const off = createArrayRecord(heap);
 * heap.unlock();
 * assertEquals(arrayLength(heap, off), 0);
 * ```
 */
export function createArrayRecord(heap: SharedHeap): number {
  return heap.allocControl(RECORD_BYTES);
}

/**
 * The array's length. Needs no lock (then it is a snapshot).
 *
 * @param heap The heap.
 * @param off The record.
 * @returns The length.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import {
 *   arrayLength,
 *   createArrayRecord,
 *   reserveSlots,
 *   setArrayLength,
 * } from "./_array_record.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const off = createArrayRecord(heap);
 * reserveSlots(heap, off, 2);
 * setArrayLength(heap, off, 2);
 * heap.unlock();
 * assertEquals(arrayLength(heap, off), 2);
 * ```
 */
export function arrayLength(heap: SharedHeap, off: number): number {
  return Atomics.load(heap.i32, (off >> 2) + ArrayRecord.Length);
}

/**
 * Sets the array's length. Preconditions: the lock is held; the slots
 * are reserved, and those from `length` on are holes.
 *
 * @param heap The heap.
 * @param off The record.
 * @param length The new length.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import {
 *   ArrayRecord,
 *   createArrayRecord,
 *   reserveSlots,
 *   setArrayLength,
 * } from "./_array_record.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const off = createArrayRecord(heap);
 * reserveSlots(heap, off, 5);
 * setArrayLength(heap, off, 5);
 * heap.unlock();
 * assertEquals(heap.i32[(off >> 2) + ArrayRecord.Length], 5);
 * ```
 */
export function setArrayLength(
  heap: SharedHeap,
  off: number,
  length: number,
): void {
  Atomics.store(heap.i32, (off >> 2) + ArrayRecord.Length, length);
}

/**
 * Makes room for `length` slots, at least doubling the slot block when it
 * grows; new slots are holes. Precondition: the lock is held.
 *
 * @param heap The heap.
 * @param off The record.
 * @param length How many slots are needed.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import {
 *   createArrayRecord,
 *   reserveSlots,
 *   setArrayLength,
 *   setSlotBlob,
 *   slotBlob,
 * } from "./_array_record.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const off = createArrayRecord(heap);
 * reserveSlots(heap, off, 1);
 * setArrayLength(heap, off, 1);
 * setSlotBlob(heap, off, 0, 4096);
 * reserveSlots(heap, off, 100); // a new slot block: the slots move with it
 * assertEquals([slotBlob(heap, off, 0), slotBlob(heap, off, 99)], [4096, 0]);
 * heap.unlock();
 * ```
 */
export function reserveSlots(
  heap: SharedHeap,
  off: number,
  length: number,
): void {
  const r = off >> 2;
  const cap = heap.i32[r + ArrayRecord.Cap];
  if (length <= cap) return;
  const newCap = Math.max(length, cap * 2, 4);
  const slots = heap.allocControl(newCap * 4);
  const i32 = heap.i32;
  const old = i32[r + ArrayRecord.Slots];
  const kept = i32[r + ArrayRecord.Length];
  for (let i = 0; i < kept; i++) i32[(slots >> 2) + i] = i32[(old >> 2) + i];
  if (old !== 0) heap.freeControl(old);
  i32[r + ArrayRecord.Slots] = slots;
  i32[r + ArrayRecord.Cap] = newCap;
}

/**
 * The blob in slot `index`. Preconditions: the lock is held; the slot is
 * reserved.
 *
 * @param heap The heap.
 * @param off The record.
 * @param index The slot.
 * @returns Its blob, or 0 for a hole.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { createArrayRecord, reserveSlots, slotBlob } from "./_array_record.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const off = createArrayRecord(heap);
 * reserveSlots(heap, off, 2);
 * assertEquals(slotBlob(heap, off, 1), 0); // a hole
 * heap.unlock();
 * ```
 */
export function slotBlob(heap: SharedHeap, off: number, index: number): number {
  const i32 = heap.i32;
  return i32[(i32[(off >> 2) + ArrayRecord.Slots] >> 2) + index];
}

/**
 * Puts `blob` (or 0, a hole) in slot `index`; the blob there before is the
 * caller's to free. Preconditions: the lock is held; the slot is reserved.
 *
 * @param heap The heap.
 * @param off The record.
 * @param index The slot.
 * @param blob A tensor blob, or 0.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import {
 *   createArrayRecord,
 *   reserveSlots,
 *   setSlotBlob,
 *   slotBlob,
 * } from "./_array_record.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const off = createArrayRecord(heap);
 * reserveSlots(heap, off, 1);
 * setSlotBlob(heap, off, 0, 8192);
 * assertEquals(slotBlob(heap, off, 0), 8192);
 * heap.unlock();
 * ```
 */
export function setSlotBlob(
  heap: SharedHeap,
  off: number,
  index: number,
  blob: number,
): void {
  const i32 = heap.i32;
  i32[(i32[(off >> 2) + ArrayRecord.Slots] >> 2) + index] = blob;
}

/**
 * Adds a hold on the record. Needs no lock.
 *
 * @param heap The heap.
 * @param off The record.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { ArrayRecord, createArrayRecord, retainArray } from "./_array_record.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const off = createArrayRecord(heap);
 * heap.unlock();
 * retainArray(heap, off);
 * assertEquals(heap.i32[(off >> 2) + ArrayRecord.Refs], 1);
 * ```
 */
export function retainArray(heap: SharedHeap, off: number): void {
  Atomics.add(heap.i32, (off >> 2) + ArrayRecord.Refs, 1);
}

/**
 * Drops a hold on the record. Needs no lock.
 *
 * @param heap The heap.
 * @param off The record.
 * @returns True if that was the last: free the array (`freeArrayRecord`).
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { createArrayRecord, releaseArray, retainArray } from "./_array_record.ts";
 * import { assert } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const off = createArrayRecord(heap);
 * heap.unlock();
 * retainArray(heap, off);
 * retainArray(heap, off);
 * assert(!releaseArray(heap, off));
 * assert(releaseArray(heap, off));
 * ```
 */
export function releaseArray(heap: SharedHeap, off: number): boolean {
  return Atomics.sub(heap.i32, (off >> 2) + ArrayRecord.Refs, 1) === 1;
}

/**
 * Frees the record and its slot block. Preconditions: the lock is held;
 * nothing holds the array; its blobs are freed already.
 *
 * @param heap The heap.
 * @param off The record.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { createArrayRecord, freeArrayRecord, reserveSlots } from "./_array_record.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const off = createArrayRecord(heap);
 * reserveSlots(heap, off, 1);
 * freeArrayRecord(heap, off);
 * assertEquals(createArrayRecord(heap), off); // reused
 * heap.unlock();
 * ```
 */
export function freeArrayRecord(heap: SharedHeap, off: number): void {
  const slots = heap.i32[(off >> 2) + ArrayRecord.Slots];
  if (slots !== 0) heap.freeControl(slots);
  heap.freeControl(off);
}
