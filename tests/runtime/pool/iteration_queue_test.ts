// The iteration queue's record: every index handed out once whichever view
// of the heap takes it, keys kept in index order, and the record freed with
// its last hold.

import { assert, assertEquals } from "@std/assert";
import { SharedHeap } from "../../../scheduler/shared/heap.ts";
import {
  allEnded,
  createQueue,
  dropHold,
  handedOut,
  iterationEnded,
  iterationKey,
  queued,
  takeIteration,
} from "../../../runtime/pool/_iteration_queue.ts";
import { withMember } from "./_member.ts";

Deno.test("takeIteration() hands out each index exactly once across two workers' views", () => {
  const heap = SharedHeap.create();
  const other = new SharedHeap(heap.memory); // another worker's views
  heap.lock();
  const queue = createQueue(heap, Array.from({ length: 9 }, (_, i) => i), 3);
  heap.unlock();
  const taken: number[] = [];
  // Uneven takers: `other` takes twice for each of `heap`'s takes.
  for (let round = 0; round < 5; round++) {
    taken.push(takeIteration(heap, queue));
    taken.push(takeIteration(other, queue), takeIteration(other, queue));
  }
  const handed = taken.filter((i) => i >= 0).sort((a, b) => a - b);
  assertEquals(handed, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
  assertEquals(taken.filter((i) => i < 0).length, 15 - 9);
  assertEquals(handedOut(other, queue), 9);
  assert(!queued(heap, queue));
});

Deno.test("iterationKey() gives each index the key reserved for it", () => {
  const heap = SharedHeap.create();
  heap.lock();
  const keys = [17, -3, 2 ** 31 - 1, 5];
  const queue = createQueue(heap, keys, 1);
  heap.unlock();
  assertEquals(keys.map((_, i) => iterationKey(heap, queue, i)), keys);
});

Deno.test("iterationEnded() counts down to allEnded()", async () => {
  await withMember((member) => {
    member.lock();
    const queue = createQueue(member.heap, [1, 2, 3], 1);
    for (let i = 0; i < 3; i++) {
      assert(!allEnded(member.heap, queue));
      iterationEnded(member, queue);
    }
    assert(allEnded(member.heap, queue));
    member.unlock();
  });
});

Deno.test("dropHold() frees the record with the last hold, not before", () => {
  const heap = SharedHeap.create();
  heap.lock();
  const queue = createQueue(heap, [1, 2], 3);
  assertEquals(
    [dropHold(heap, queue), dropHold(heap, queue), dropHold(heap, queue)],
    [false, false, true],
  );
  // Freed: the next record of its size class takes its place.
  assertEquals(createQueue(heap, [1, 2], 1), queue);
  heap.unlock();
});
