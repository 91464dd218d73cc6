// Shared tensor array records: length, capacity, slot block and holds at
// their named words, slots kept across growth, and a record that every
// worker's first views reach.

import { assert, assertEquals } from "@std/assert";
import {
  arrayLength,
  ArrayRecord,
  createArrayRecord,
  freeArrayRecord,
  releaseArray,
  reserveSlots,
  retainArray,
  setArrayLength,
  setSlotBlob,
  slotBlob,
} from "../../../runtime/pool/_array_record.ts";
import { SharedHeap } from "../../../scheduler/shared/heap.ts";
import { grownHeap } from "../../scheduler/shared/_grown_heap.ts";

Deno.test("createArrayRecord() makes an empty record: no length, no slots, no holds", () => {
  const heap = SharedHeap.create();
  heap.lock();
  const off = createArrayRecord(heap);
  heap.unlock();
  const r = off >> 2;
  for (const word of Object.values(ArrayRecord)) {
    assertEquals(heap.i32[r + word], 0);
  }
  assertEquals(arrayLength(heap, off), 0);
});

Deno.test("reserveSlots() grows the slot block at least twofold, keeps the slots below Length and makes holes of the rest", () => {
  const heap = SharedHeap.create();
  heap.lock();
  const off = createArrayRecord(heap);
  const r = off >> 2;
  reserveSlots(heap, off, 1);
  assertEquals(heap.i32[r + ArrayRecord.Cap], 4);
  const first = heap.i32[r + ArrayRecord.Slots];
  setArrayLength(heap, off, 3);
  for (let i = 0; i < 3; i++) setSlotBlob(heap, off, i, 1000 + i);
  assertEquals(heap.i32[(first >> 2) + 2], 1002); // the slot's word
  reserveSlots(heap, off, 4); // room already
  assertEquals(heap.i32[r + ArrayRecord.Slots], first);
  reserveSlots(heap, off, 5);
  assertEquals(heap.i32[r + ArrayRecord.Cap], 8);
  assert(heap.i32[r + ArrayRecord.Slots] !== first);
  assertEquals(
    [0, 1, 2, 3, 7].map((i) => slotBlob(heap, off, i)),
    [1000, 1001, 1002, 0, 0],
  );
  reserveSlots(heap, off, 50);
  assertEquals(heap.i32[r + ArrayRecord.Cap], 50);
  heap.unlock();
});

Deno.test("setArrayLength() and arrayLength() use the Length word", () => {
  const heap = SharedHeap.create();
  heap.lock();
  const off = createArrayRecord(heap);
  reserveSlots(heap, off, 6);
  setArrayLength(heap, off, 6);
  heap.unlock();
  assertEquals(heap.i32[(off >> 2) + ArrayRecord.Length], 6);
  heap.i32[(off >> 2) + ArrayRecord.Length] = 2;
  assertEquals(arrayLength(heap, off), 2);
});

Deno.test("retainArray() and releaseArray() count holds in Refs and report the last", () => {
  const heap = SharedHeap.create();
  heap.lock();
  const off = createArrayRecord(heap);
  heap.unlock();
  retainArray(heap, off);
  retainArray(heap, off);
  assertEquals(heap.i32[(off >> 2) + ArrayRecord.Refs], 2);
  assert(!releaseArray(heap, off));
  assert(releaseArray(heap, off));
  assertEquals(heap.i32[(off >> 2) + ArrayRecord.Refs], 0);
});

Deno.test("freeArrayRecord() frees the record and its slot block", () => {
  const heap = SharedHeap.create();
  heap.lock();
  const off = createArrayRecord(heap);
  reserveSlots(heap, off, 40);
  const slots = heap.i32[(off >> 2) + ArrayRecord.Slots];
  freeArrayRecord(heap, off);
  assertEquals(heap.allocControl(40 * 4), slots);
  assertEquals(createArrayRecord(heap), off);
  heap.unlock();
});

Deno.test("an array record and its slots stay within every worker's first views, however the memory grew", () => {
  const { heap, stale } = grownHeap();
  heap.lock();
  const off = createArrayRecord(heap);
  reserveSlots(heap, off, 10_000);
  setArrayLength(heap, off, 10_000);
  setSlotBlob(heap, off, 9_999, 77);
  heap.unlock();
  const end = heap.i32[(off >> 2) + ArrayRecord.Slots] + 10_000 * 4;
  assert(end <= stale.u8.length, "the slot block lies past the stale views");
  stale.lock();
  assertEquals(slotBlob(stale, off, 9_999), 77);
  stale.unlock();
  assertEquals(arrayLength(stale, off), 10_000);
});
