// IterationTaker on one worker: one iteration at a time while it computes,
// more while its iterations block, and a taker that starts late still takes
// what a busy one leaves, each index once. Real green threads on a real
// scheduler; a "computing" iteration is one that stays runnable across
// macrotasks until told to stop.

import { assertEquals } from "@std/assert";
import { Channel } from "../../../scheduler/channel.ts";
import type { GreenThread } from "../../../scheduler/green_thread.ts";
import type { Scheduler } from "../../../scheduler/scheduler.ts";
import type { PoolMember } from "../../../scheduler/shared/pool_member.ts";
import { createQueue } from "../../../runtime/pool/_iteration_queue.ts";
import {
  IterationTaker,
  type StartIteration,
} from "../../../runtime/pool/_iteration_taker.ts";
import { withMember } from "./_member.ts";

// Runs `body` as the main thread of a run on the member's scheduler.
function runMain(
  member: PoolMember,
  body: (main: GreenThread, scheduler: Scheduler) => Promise<void>,
): Promise<void> {
  const scheduler = member.scheduler;
  return scheduler.run((main) => body(main, scheduler));
}

// A queue of `n` iterations whose spawner counted them queued, as
// PoolRun.parallelFor does.
function queueOf(member: PoolMember, n: number, holds: number): number {
  member.lock();
  const queue = createQueue(
    member.heap,
    Array.from({ length: n }, (_, i) => 100 + i),
    holds,
  );
  member.changed(n);
  member.unlock();
  return queue;
}

// Stays runnable (computing, as far as the taker can tell) for `turns`
// macrotasks, or until `until()` holds.
async function compute(turns: number, until = () => false): Promise<void> {
  for (let t = 0; t < turns && !until(); t++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

Deno.test("IterationTaker runs one iteration at a time while it computes, in index order", async () => {
  await withMember((member) =>
    runMain(member, async (main, scheduler) => {
      const queue = queueOf(member, 4, 1);
      const order: number[] = [];
      const keys: number[] = [];
      let running = 0;
      let most = 0;
      const all = Promise.withResolvers<void>();
      const start: StartIteration = (index, key, ended) =>
        scheduler.goFrom(main, async () => {
          order.push(index);
          keys.push(key);
          most = Math.max(most, ++running);
          await compute(3);
          running--;
          ended();
          if (order.length === 4 && running === 0) all.resolve();
        });
      new IterationTaker(member, queue, start);
      await all.promise;
      assertEquals(order, [0, 1, 2, 3]);
      assertEquals(keys, [100, 101, 102, 103]);
      assertEquals(most, 1);
    })
  );
});

Deno.test("IterationTaker takes the next iteration while its iterations block", async () => {
  // Iterations 0..4 wait on a channel that only iteration 5 closes: the run
  // ends only if the taker took them all while the first ones blocked.
  await withMember((member) =>
    runMain(member, async (main, scheduler) => {
      const queue = queueOf(member, 6, 1);
      const gate = new Channel<number>();
      let ended = 0;
      const all = Promise.withResolvers<void>();
      const start: StartIteration = (index, _key, done) =>
        scheduler.goFrom(main, async (thread) => {
          if (index < 5) await gate.recv({ thread });
          else gate.close();
          done();
          if (++ended === 6) all.resolve();
        });
      new IterationTaker(member, queue, start);
      await all.promise;
      assertEquals(ended, 6);
    })
  );
});

Deno.test("IterationTaker: a taker that starts late takes what a computing one leaves, each index once", async () => {
  await withMember((member) =>
    runMain(member, async (main, scheduler) => {
      // Held by two takers; nobody waits on it here.
      const queue = queueOf(member, 5, 2);
      const byTaker: number[][] = [[], []];
      let lateDone = false;
      const all = Promise.withResolvers<void>();
      let ended = 0;
      const startFor = (taker: number): StartIteration => (index, _k, done) =>
        scheduler.goFrom(main, async () => {
          byTaker[taker].push(index);
          // The early taker's iteration computes until the late one is done.
          await compute(taker === 0 ? 10_000 : 2, () => lateDone);
          done();
          if (++ended === 5) all.resolve();
        });
      new IterationTaker(member, queue, startFor(0));
      // The late taker starts once the early one's first iteration runs.
      await compute(2);
      new IterationTaker(member, queue, (index, key, done) =>
        startFor(1)(index, key, () => {
          done();
          if (byTaker[1].length === 4) {
            lateDone = true;
          }
        }));
      await all.promise;
      assertEquals(byTaker, [[0], [1, 2, 3, 4]]);
    })
  );
});
