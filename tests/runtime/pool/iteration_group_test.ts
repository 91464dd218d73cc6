// Iteration groups: a parallel_for's count of iterations on other workers,
// and the wake-up of its waiting thread by the last of them.

import { assert, assertEquals } from "@std/assert";
import {
  createGroup,
  groupDone,
  iterationDone,
  IterationGroup,
  parkOnGroup,
} from "../../../runtime/pool/_iteration_group.ts";
import { Scheduler } from "../../../scheduler/scheduler.ts";
import { SharedHeap } from "../../../scheduler/shared/heap.ts";
import {
  PoolMember,
  SharedWait,
} from "../../../scheduler/shared/pool_member.ts";
import { createWakeRings } from "../../../scheduler/shared/wake_ring.ts";
import { withMember } from "./_member.ts";

Deno.test("createGroup() and parkOnGroup() write the IterationGroup words", () => {
  const heap = SharedHeap.create();
  heap.lock();
  const group = createGroup(heap, 4);
  const g = group >> 2;
  assertEquals(heap.i32[g + IterationGroup.Left], 4);
  assertEquals(heap.i32[g + IterationGroup.Parked], 0);
  parkOnGroup(heap, group, 3, 21);
  heap.unlock();
  assertEquals(heap.i32[g + IterationGroup.Worker], 3);
  assertEquals(heap.i32[g + IterationGroup.Token], 21);
  assertEquals(heap.i32[g + IterationGroup.Parked], 1);
});

Deno.test("iterationDone() counts down Left and wakes nobody before the parallel_for parks", async () => {
  await withMember((member) => {
    member.lock();
    const group = createGroup(member.heap, 2);
    iterationDone(member, group);
    assertEquals(member.heap.i32[(group >> 2) + IterationGroup.Left], 1);
    assert(!groupDone(member.heap, group));
    iterationDone(member, group);
    assert(groupDone(member.heap, group));
    member.unlock();
  });
});

Deno.test("iterationDone() on another worker wakes the parked parallel_for with the last iteration", async () => {
  const heap = SharedHeap.create();
  createWakeRings(heap, 2);
  const scheduler = new Scheduler({ threadContext: false });
  const waiter = new PoolMember(heap, 0, scheduler);
  const other = new PoolMember(
    new SharedHeap(heap.memory),
    1,
    new Scheduler({ threadContext: false }),
  );
  let settled = 0;
  class Wait extends SharedWait<void> {
    settle(): void {
      settled++;
      this.resolve();
    }
  }
  waiter.start({ onQuiet: () => {}, onMessage: () => {} });
  try {
    waiter.lock();
    const group = createGroup(heap, 2);
    parkOnGroup(
      heap,
      group,
      0,
      waiter.park(new Wait(undefined), "sync.WaitGroup.Wait"),
    );
    waiter.unlock();
    other.lock();
    iterationDone(other, group);
    other.unlock();
    await new Promise((resolve) => setTimeout(resolve, 5));
    assertEquals(settled, 0);
    other.lock();
    iterationDone(other, group);
    other.unlock();
    for (let i = 0; i < 100 && settled === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assertEquals(settled, 1);
  } finally {
    waiter.close();
    other.close();
  }
});
