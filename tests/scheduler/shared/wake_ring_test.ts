import { assert, assertEquals } from "@std/assert";
import { Spinner } from "../../../scheduler/shared/_spinner.ts";
import { SharedHeap } from "../../../scheduler/shared/heap.ts";
import {
  createWakeRings,
  WakeRing,
} from "../../../scheduler/shared/wake_ring.ts";
import { within } from "../../_helpers/within.ts";

function rings(workers: number): SharedHeap {
  const heap = SharedHeap.create();
  createWakeRings(heap, workers);
  return heap;
}

function push(heap: SharedHeap, worker: number, tokens: number[]): void {
  heap.lock();
  for (const t of tokens) WakeRing.push(heap, worker, t);
  heap.unlock();
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

Deno.test("WakeRing.drain() returns the pushed tokens in order, then none", () => {
  const heap = rings(2);
  const ring = new WakeRing(heap, 1);
  assert(!ring.pending());
  push(heap, 1, [5, 3, -1, 9]);
  assert(ring.pending());
  assertEquals(ring.drain(), [5, 3, -1, 9]);
  assert(!ring.pending());
  assertEquals(ring.drain(), []);
  push(heap, 1, [7]);
  assertEquals(ring.drain(), [7]);
});

Deno.test("WakeRing.push() keeps each worker's tokens on its own ring", () => {
  const heap = rings(3);
  push(heap, 0, [1, 2]);
  push(heap, 2, [3]);
  push(heap, 0, [4]);
  assertEquals(new WakeRing(heap, 1).drain(), []);
  assertEquals(new WakeRing(heap, 2).drain(), [3]);
  assertEquals(new WakeRing(heap, 0).drain(), [1, 2, 4]);
});

Deno.test("WakeRing.push() grows the ring past 256 slots without losing or reordering tokens", () => {
  const heap = rings(2);
  const ring = new WakeRing(heap, 0);
  const other = new WakeRing(heap, 1);
  push(heap, 1, [-7]);
  push(heap, 0, range(0, 100));
  assertEquals(ring.drain(), range(0, 100));
  // 1000 tokens: the ring doubles twice (256 -> 512 -> 1024).
  push(heap, 0, range(1000, 1300));
  push(heap, 0, range(1300, 2000));
  assertEquals(ring.drain(), range(1000, 2000));
  // The grown ring keeps working, and the other ring is untouched.
  push(heap, 0, range(0, 3000));
  assertEquals(ring.drain(), range(0, 3000));
  assertEquals(other.drain(), [-7]);
});

Deno.test("WakeRing.ring() resolves a pending wait() when the owner is asleep", async () => {
  const heap = rings(2);
  const ring = new WakeRing(heap, 1);
  const seen = ring.doorbell();
  const waiting = ring.wait(seen);
  if (waiting === undefined) throw new Error("the doorbell moved by itself");
  ring.sleep(true);
  push(heap, 1, [11]);
  WakeRing.ring(heap, 1);
  await within(2000, waiting);
  assert(ring.doorbell() !== seen);
  assertEquals(ring.drain(), [11]);
  ring.sleep(false);
});

Deno.test("WakeRing.wait() returns undefined once the doorbell has changed", () => {
  const heap = rings(1);
  const ring = new WakeRing(heap, 0);
  const seen = ring.doorbell();
  WakeRing.ring(heap, 0);
  assertEquals(ring.wait(seen), undefined);
  assert(ring.spin(seen, new Spinner(heap.i32, 0)));
  // Nobody else is active (Global.Active is 0): it does not poll.
  assert(!ring.spin(ring.doorbell(), new Spinner(heap.i32, 0)));
});

Deno.test("WakeRing.block() returns at once when the doorbell has changed, and false when its time runs out", () => {
  const heap = rings(1);
  const ring = new WakeRing(heap, 0);
  const seen = ring.doorbell();
  assert(!ring.block(seen, 1)); // nobody rings
  WakeRing.ring(heap, 0);
  assert(ring.block(seen, 60_000));
});

Deno.test("WakeRing.ring() ends a Worker's block()", async () => {
  const heap = rings(2);
  const worker = new Worker(
    new URL("./_doorbell_worker.ts", import.meta.url),
    { type: "module" },
  );
  try {
    const answers: unknown[] = [];
    let arrived = () => {};
    worker.onmessage = (e) => {
      answers.push(e.data);
      arrived();
    };
    const next = () =>
      answers.length > 0
        ? Promise.resolve(answers.shift())
        : new Promise<unknown>((resolve) => {
          arrived = () => resolve(answers.shift());
        });
    worker.postMessage({ memory: heap.memory, worker: 1 });
    // The Worker's start-up (its modules checked and loaded) takes seconds
    // on a loaded machine: a generous limit, only against a hang.
    assertEquals(await within(30_000, next()), "asleep");
    push(heap, 1, [42]);
    WakeRing.ring(heap, 1);
    assertEquals(await within(5000, next()), { rang: true, tokens: [42] });
  } finally {
    worker.terminate();
  }
});

Deno.test("WakeRing.block() marks the ring awake again, so that the next ring notifies only a wait() marked asleep", async () => {
  const heap = rings(1);
  const ring = new WakeRing(heap, 0);
  let seen = ring.doorbell();
  assert(!ring.block(seen, 1));
  seen = ring.doorbell();
  const waiting = ring.wait(seen);
  if (waiting === undefined) throw new Error("the doorbell moved by itself");
  ring.sleep(true);
  WakeRing.ring(heap, 0);
  await within(2000, waiting);
  ring.sleep(false);
});
