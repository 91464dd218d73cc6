import { assert, assertEquals, assertNotEquals } from "@std/assert";
import { Random } from "../../../scheduler/random.ts";
import { Global, SharedHeap } from "../../../scheduler/shared/heap.ts";
import { within } from "../../_helpers/within.ts";
import { assertBeyondViews, grownHeap } from "./_grown_heap.ts";

// ---------------------------------------------------------------------------
// Allocation

Deno.test("SharedHeap.allocControl() zeroes and reuses a freed block of its class", () => {
  const heap = SharedHeap.create();
  heap.lock();
  const a = heap.allocControl(40);
  heap.u8.fill(0xab, a, a + 40);
  heap.freeControl(a);
  const b = heap.allocControl(40);
  assertEquals(b, a);
  assertEquals(Array.from(heap.u8.subarray(b, b + 40)), new Array(40).fill(0));
  // Another size class does not take it.
  heap.freeControl(b);
  const c = heap.allocControl(400);
  assertNotEquals(c, a);
  assertEquals(heap.allocControl(36), a); // 36 and 40 share a class
  heap.unlock();
});

Deno.test("SharedHeap.allocControl() returns 8-aligned blocks that never overlap", () => {
  const heap = SharedHeap.create();
  const random = new Random(7);
  const live = new Map<number, number>(); // offset -> size
  heap.lock();
  const alloc = () => {
    const size = 1 + random.nextInt(random.nextInt(4) === 0 ? 2000 : 100);
    const off = heap.allocControl(size);
    assertEquals(off % 8, 0);
    assert(!live.has(off), `block ${off} handed out twice`);
    // Stamp the block: an overlapping block would overwrite a stamp.
    heap.u8.fill(off % 251, off, off + size);
    live.set(off, size);
  };
  for (let i = 0; i < 3000; i++) alloc();
  for (let round = 0; round < 5; round++) {
    for (const off of [...live.keys()]) {
      if (random.nextInt(2) === 0) {
        heap.freeControl(off);
        live.delete(off);
      }
    }
    for (let i = 0; i < 1500; i++) alloc();
  }
  heap.unlock();
  const blocks = [...live].sort((x, y) => x[0] - y[0]);
  for (let i = 1; i < blocks.length; i++) {
    const [prev, size] = blocks[i - 1];
    // Each block has an 8-byte header in front of it.
    assert(prev + size <= blocks[i][0] - 8, `${prev} overlaps ${blocks[i][0]}`);
  }
  for (const [off, size] of blocks) {
    const stamp = off % 251;
    assert(heap.u8.subarray(off, off + size).every((b) => b === stamp));
  }
});

Deno.test("SharedHeap.allocData() grows the memory and cover() lets another view see it", () => {
  const heap = SharedHeap.create();
  const other = new SharedHeap(heap.memory);
  const before = heap.memory.buffer.byteLength;
  const bytes = 200 * 1024 * 1024; // more than the data arena's first 128 MiB
  heap.lock();
  const off = heap.allocData(bytes);
  const end = off + bytes;
  assert(heap.memory.buffer.byteLength >= end);
  assert(before < end);
  heap.u8[end - 1] = 42;
  heap.i32[(end >> 2) - 2] = 1234;
  heap.unlock();
  assert(other.u8.length < end, "the other view is stale before cover()");
  other.cover(end);
  assertEquals(other.u8[end - 1], 42);
  assertEquals(other.i32[(end >> 2) - 2], 1234);
  // Reuse comes from the free list, without growing again.
  heap.lock();
  heap.freeData(off);
  const size = heap.memory.buffer.byteLength;
  assertEquals(heap.allocData(bytes), off);
  assertEquals(heap.memory.buffer.byteLength, size);
  heap.unlock();
});

Deno.test("SharedHeap.allocData() and freeData() cover a block another worker's growth put beyond this worker's views", () => {
  const heap = SharedHeap.create();
  // Three more workers' views of the memory, made before it grows.
  const [popper, topper, freer] = [0, 1, 2].map(() =>
    new SharedHeap(heap.memory)
  );
  heap.lock();
  heap.allocData(200 * 1024 * 1024); // grows the memory
  const small = heap.allocData(24); // past the others' views
  heap.freeData(small);
  heap.unlock();
  assert(popper.u8.length < small, "the views are stale");
  // From the free list: the next-free word and the header lie beyond.
  popper.lock();
  assertEquals(popper.allocData(24), small);
  popper.i32[small >> 2] = 99; // the caller's write must land
  popper.unlock();
  assertEquals(heap.i32[small >> 2], 99);
  // From the top of the data arena.
  topper.lock();
  const fresh = topper.allocData(24);
  topper.i32[fresh >> 2] = 77;
  topper.unlock();
  assert(fresh > small);
  assertEquals(heap.i32[fresh >> 2], 77);
  // Freed by a worker that never saw the block: it goes to its class's list.
  freer.lock();
  freer.freeData(fresh);
  freer.unlock();
  heap.lock();
  assertEquals(heap.allocData(24), fresh);
  heap.unlock();
});

Deno.test("SharedHeap.i32To(), u8To() and f64To() reach a block beyond this worker's views", () => {
  const { heap, stale } = grownHeap();
  heap.lock();
  const blob = heap.allocData(16);
  heap.unlock();
  heap.i32[blob >> 2] = 7;
  heap.u8[blob + 4] = 8;
  heap.f64[(blob >> 3) + 1] = 0.25;
  assertBeyondViews(stale, blob);
  assertEquals(stale.i32To(blob + 4)[blob >> 2], 7);
  // i32To refreshed all three views.
  assertEquals([stale.u8[blob + 4], stale.f64[(blob >> 3) + 1]], [8, 0.25]);
  const other = grownHeap();
  other.heap.lock();
  const b = other.heap.allocData(16);
  other.heap.unlock();
  assertBeyondViews(other.stale, b);
  other.stale.u8To(b + 5)[b + 4] = 9; // a write lands
  other.stale.f64To(b + 16)[(b >> 3) + 1] = 0.5;
  assertEquals([other.heap.u8[b + 4], other.heap.f64[(b >> 3) + 1]], [9, 0.5]);
  // Within the views, the views themselves, unchanged.
  const i32 = stale.i32;
  assert(stale.i32To(64) === i32);
});

Deno.test("SharedHeap.lastDataFresh tells a never-used data block, which reads as zeros, from a reused one", () => {
  const heap = SharedHeap.create();
  heap.lock();
  const off = heap.allocData(4096);
  assert(heap.lastDataFresh);
  assert(heap.u8.subarray(off, off + 4096).every((b) => b === 0));
  heap.u8.fill(7, off, off + 4096);
  heap.freeData(off);
  assertEquals(heap.allocData(4096), off);
  assert(!heap.lastDataFresh, "a block from the free list is not fresh");
  heap.allocData(4096);
  assert(heap.lastDataFresh);
  heap.unlock();
});

// ---------------------------------------------------------------------------
// The lock

Deno.test("SharedHeap.lock() excludes other workers", async () => {
  const heap = SharedHeap.create();
  heap.lock();
  const words = heap.allocControl(8) >> 2;
  heap.unlock();
  const start = words;
  const counter = words + 1;
  const count = 100_000;
  const url = new URL("./_lock_counter_worker.ts", import.meta.url);
  const workers = [0, 1].map(() => new Worker(url, { type: "module" }));
  try {
    const said = (w: Worker, what: string) =>
      new Promise<void>((resolve, reject) => {
        w.addEventListener("message", (e) => {
          if (e.data === what) resolve();
        });
        w.onerror = (e) => {
          e.preventDefault();
          reject(new Error(e.message));
        };
      });
    const ready = workers.map((w) => said(w, "ready"));
    const done = workers.map((w) => said(w, "done"));
    for (const w of workers) {
      w.postMessage({ memory: heap.memory, start, counter, count });
    }
    await within(5000, Promise.all(ready));
    Atomics.store(heap.i32, start, 1);
    Atomics.notify(heap.i32, start);
    await within(8000, Promise.all(done));
    assertEquals(heap.i32[counter], 2 * count);
    assertEquals(Atomics.load(heap.i32, Global.Lock), 0);
  } finally {
    for (const w of workers) w.terminate();
  }
});
