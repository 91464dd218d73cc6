// Waiter records (_records.ts): where they lie, and how they are reused
// and freed.

import { assert, assertEquals } from "@std/assert";
import {
  dropWaiter,
  newWaiter,
  RECV,
  SEND,
  W_BLOCK,
  W_KIND,
  W_STATE,
  WAITER_BYTES,
  WAITING,
} from "../../../scheduler/shared/_records.ts";
import { soloRun } from "./_pool_run.ts";

Deno.test("newWaiter() puts each waiter on cache lines of its own", async () => {
  await soloRun(({ member }) => {
    member.lock();
    const waiters = Array.from({ length: 8 }, () => newWaiter(member, RECV));
    member.unlock();
    for (const w of waiters) assertEquals(w % 64, 0);
    // No two share a line: the lines a waiter spans hold nothing else.
    const lines = waiters.flatMap((w) => [w >> 6, (w + WAITER_BYTES - 1) >> 6]);
    assertEquals(new Set(lines).size, lines.length);
    for (const w of waiters) {
      const block = member.heap.i32[(w >> 2) + W_BLOCK];
      assert(block <= w && w - block < 64, "the waiter lies in its block");
    }
    member.lock();
    for (const w of waiters) dropWaiter(member, w);
    member.unlock();
  });
});

Deno.test("dropWaiter() keeps spares for reuse and frees the rest by their block", async () => {
  await soloRun(({ member }) => {
    member.lock();
    const waiters = Array.from({ length: 100 }, () => newWaiter(member, SEND));
    for (const w of waiters) dropWaiter(member, w);
    member.unlock();
    // 64 spares kept; the other 36 freed at the next lock, whose blocks
    // the allocator hands out again (a wrong offset would corrupt its
    // free lists, and these allocations would overlap the spares).
    assertEquals(member.spares.length, 64);
    member.lock();
    const again = Array.from({ length: 100 }, () => newWaiter(member, RECV));
    member.unlock();
    assertEquals(new Set(again).size, 100);
    for (const w of again) {
      assertEquals(member.heap.i32[(w >> 2) + W_KIND], RECV);
      assertEquals(member.heap.i32[(w >> 2) + W_STATE], WAITING);
    }
    const spans = again.map((w) => [w, w + WAITER_BYTES]).sort((a, b) =>
      a[0] - b[0]
    );
    for (let i = 1; i < spans.length; i++) {
      assert(spans[i - 1][1] <= spans[i][0], "waiters do not overlap");
    }
  });
});
