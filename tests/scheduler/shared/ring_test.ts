import { assert, assertEquals } from "@std/assert";
import {
  BUFFERED_BYTES,
  C_CAP,
  C_CLOSED,
  C_HEAD,
  C_RECVQ,
  C_RING,
  C_RING_CAP,
  C_SENDQ,
  C_TAIL,
} from "../../../scheduler/shared/_records.ts";
import {
  canPushHint,
  canTakeHint,
  createRing,
  FAST_BLOCKED,
  FAST_DONE,
  FAST_NO,
  freeze,
  frozenCount,
  growFrozen,
  pushFast,
  pushFrozen,
  takeFast,
  takeFrozen,
  thaw,
} from "../../../scheduler/shared/_ring.ts";
import { V_INLINE, VALUE_BYTES } from "../../../scheduler/shared/_values.ts";
import { SharedHeap } from "../../../scheduler/shared/heap.ts";
import { assertBeyondViews, grownHeap } from "./_grown_heap.ts";

// A channel record with a ring, and a value area to move numbers through,
// on a heap of its own (the ring's functions need no PoolMember).
interface Ring {
  heap: SharedHeap;
  c: number;
  area: number;
}

function makeRing(capacity: number, position = 0): Ring {
  const heap = SharedHeap.create();
  heap.lock();
  const c = ((heap.allocControl(BUFFERED_BYTES + 56) + 63) & ~63) >> 2;
  const area = heap.allocControl(VALUE_BYTES) >> 2;
  heap.i32[c + C_CAP] = capacity;
  createRing(heap, c, capacity);
  // Start both sides at `position`, as if that many values had passed.
  heap.i32[c + C_TAIL] = position << 2;
  heap.i32[c + C_HEAD] = position << 2;
  heap.unlock();
  return { heap, c, area };
}

function push(r: Ring, v: number): number {
  r.heap.f64[(r.area + V_INLINE) >> 1] = v;
  return pushFast(r.heap, r.c, r.area);
}

function take(r: Ring): number | undefined {
  if (takeFast(r.heap, r.c, r.area) !== FAST_DONE) return undefined;
  return r.heap.f64[(r.area + V_INLINE) >> 1];
}

// Runs `f` with the ring frozen, as the slow path does (heap's lock held).
function frozen<T>(r: Ring, f: () => T): T {
  r.heap.lock();
  freeze(r.heap, r.c);
  try {
    return f();
  } finally {
    thaw(r.heap, r.c);
    r.heap.unlock();
  }
}

const LAST_POSITION = 2 ** 29 - 1;

Deno.test("pushFast() and takeFast() keep FIFO order while positions wrap past 2^29", () => {
  for (const capacity of [1, 3, 4, 64]) {
    const r = makeRing(capacity, LAST_POSITION - 5);
    let next = 0;
    let expected = 0;
    for (let round = 0; round < 40; round++) {
      while (push(r, next) === FAST_DONE) next++;
      assertEquals(push(r, -1), FAST_BLOCKED, "full at the capacity");
      assertEquals(frozen(r, () => frozenCount(r.heap, r.c)), capacity);
      for (let k = 0; k <= round % capacity; k++) {
        assertEquals(take(r), expected++);
      }
    }
    for (let v = take(r); v !== undefined; v = take(r)) {
      assertEquals(v, expected++);
    }
    assertEquals(expected, next);
    assertEquals(takeFast(r.heap, r.c, r.area), FAST_BLOCKED);
    // Both sides went past the last position and started again from 0.
    assert((r.heap.i32[r.c + C_TAIL] >> 2) < LAST_POSITION - 5);
  }
});

Deno.test("takeFast() is not fooled by a slot's value from an earlier lap", () => {
  const r = makeRing(2);
  for (let lap = 0; lap < 5; lap++) {
    assertEquals(push(r, lap), FAST_DONE);
    assertEquals(take(r), lap);
    assertEquals(take(r), undefined); // the slot still holds lap's value
    assert(!canTakeHint(r.heap, r.c));
  }
});

// Appends `v`, growing the ring on the slow path when it is full and
// smaller than the capacity, as SharedChannel does.
function pushGrowing(r: Ring, v: number): void {
  const fast = push(r, v);
  if (fast === FAST_DONE) return;
  assertEquals(fast, FAST_NO);
  frozen(r, () => {
    const count = frozenCount(r.heap, r.c);
    assertEquals(count, r.heap.i32[r.c + C_RING_CAP]);
    growFrozen(r.heap, r.c);
    assertEquals(frozenCount(r.heap, r.c), count);
    r.heap.f64[(r.area + V_INLINE) >> 1] = v;
    pushFrozen(r.heap, r.c, r.area);
  });
}

Deno.test("growFrozen() keeps the values in order across the wrap of positions", () => {
  const capacity = 5000;
  const r = makeRing(capacity, LAST_POSITION - 700);
  assertEquals(r.heap.i32[r.c + C_RING_CAP], 64);
  let next = 0;
  let expected = 0;
  // Take some between, so that the ring fills and grows with its head
  // mid-ring.
  for (let i = 0; i < 300; i++) pushGrowing(r, next++);
  for (let i = 0; i < 200; i++) assertEquals(take(r), expected++);
  while (next - expected < capacity) pushGrowing(r, next++);
  assertEquals(r.heap.i32[r.c + C_RING_CAP], 8192);
  assertEquals(push(r, -1), FAST_BLOCKED);
  for (let v = take(r); v !== undefined; v = take(r)) {
    assertEquals(v, expected++);
  }
  assertEquals(expected, next);
});

Deno.test("thaw() sends senders to the slow path while receivers wait or the channel is closed, and receivers while senders wait", () => {
  const r = makeRing(4);
  const i32 = r.heap.i32;
  assertEquals(push(r, 1), FAST_DONE);
  // A parked sender (any nonzero queue head will do for the ring).
  frozen(r, () => i32[r.c + C_SENDQ] = 8);
  assertEquals(takeFast(r.heap, r.c, r.area), FAST_NO);
  assert(canTakeHint(r.heap, r.c), "a hint sends it to the slow path too");
  assertEquals(push(r, 2), FAST_DONE);
  frozen(r, () => {
    i32[r.c + C_SENDQ] = 0;
    i32[r.c + C_RECVQ] = 8;
  });
  assertEquals(take(r), 1);
  assertEquals(push(r, 3), FAST_NO);
  assert(canPushHint(r.heap, r.c));
  frozen(r, () => {
    i32[r.c + C_RECVQ] = 0;
    i32[r.c + C_CLOSED] = 1;
  });
  assertEquals(push(r, 3), FAST_NO, "closed: senders panic on the slow path");
  assertEquals(take(r), 2, "receivers drain a closed ring");
  assertEquals(takeFast(r.heap, r.c, r.area), FAST_BLOCKED);
});

Deno.test("takeFrozen() and pushFrozen() share the ring with the fast path", () => {
  const r = makeRing(3, LAST_POSITION);
  assertEquals(push(r, 1), FAST_DONE);
  frozen(r, () => {
    r.heap.f64[(r.area + V_INLINE) >> 1] = 2;
    pushFrozen(r.heap, r.c, r.area);
    takeFrozen(r.heap, r.c, r.area);
    assertEquals(r.heap.f64[(r.area + V_INLINE) >> 1], 1);
  });
  assertEquals(push(r, 3), FAST_DONE);
  assertEquals([take(r), take(r), take(r)], [2, 3, undefined]);
});

Deno.test("takeFast() counts again the values sent since it last looked, and only when it knows of none", () => {
  const r = makeRing(8);
  for (const v of [1, 2, 3]) assertEquals(push(r, v), FAST_DONE);
  assertEquals(take(r), 1); // counts 3, knows of 2 more
  for (const v of [4, 5]) assertEquals(push(r, v), FAST_DONE);
  assertEquals([take(r), take(r), take(r), take(r)], [2, 3, 4, 5]);
  assertEquals(takeFast(r.heap, r.c, r.area), FAST_BLOCKED);
  // A frozen take leaves the thawed count exact.
  for (const v of [6, 7]) assertEquals(push(r, v), FAST_DONE);
  frozen(r, () => takeFrozen(r.heap, r.c, r.area));
  assertEquals(take(r), 7);
  assertEquals(take(r), undefined);
});

Deno.test("pushFast() and takeFast() leave a side another worker holds to the slow path, untouched", () => {
  const r = makeRing(4);
  assertEquals(push(r, 1), FAST_DONE);
  const tail = r.heap.i32[r.c + C_TAIL];
  r.heap.i32[r.c + C_TAIL] = tail | 1; // LOCKED, as by another worker
  assertEquals(push(r, 2), FAST_NO);
  assertEquals(r.heap.i32[r.c + C_TAIL], tail | 1);
  r.heap.i32[r.c + C_TAIL] = tail;
  const head = r.heap.i32[r.c + C_HEAD];
  r.heap.i32[r.c + C_HEAD] = head | 1;
  assertEquals(takeFast(r.heap, r.c, r.area), FAST_NO);
  assertEquals(r.heap.i32[r.c + C_HEAD], head | 1);
  r.heap.i32[r.c + C_HEAD] = head;
  assertEquals([take(r), take(r)], [1, undefined]);
});

Deno.test("pushFast() and takeFast() move the blob word and every inline word of a value", () => {
  const r = makeRing(2);
  const words = [12345, 0, -1, 2, 3, 4, 5, -6]; // V_SPARE (1) is not moved
  for (let k = 0; k < 8; k++) r.heap.i32[r.area + k] = words[k];
  assertEquals(pushFast(r.heap, r.c, r.area), FAST_DONE);
  for (let k = 0; k < 8; k++) r.heap.i32[r.area + k] = 0;
  assertEquals(takeFast(r.heap, r.c, r.area), FAST_DONE);
  assertEquals([...r.heap.i32.subarray(r.area, r.area + 8)], words);
});

Deno.test("pushFast() and takeFast() reach a ring in memory that this worker's views do not cover", () => {
  const { heap, stale } = grownHeap();
  heap.lock();
  const c = ((heap.allocControl(BUFFERED_BYTES + 56) + 63) & ~63) >> 2;
  const area = heap.allocControl(VALUE_BYTES) >> 2;
  heap.i32[c + C_CAP] = 4;
  createRing(heap, c, 4); // in the data arena, past the stale views
  heap.unlock();
  assertBeyondViews(stale, heap.i32[c + C_RING]);
  stale.f64[(area + V_INLINE) >> 1] = 2.5;
  assertEquals(pushFast(stale, c, area), FAST_DONE);
  assertEquals(takeFast(heap, c, area), FAST_DONE);
  assertEquals(heap.f64[(area + V_INLINE) >> 1], 2.5);
});
