import { assert, assertEquals, assertRejects } from "@std/assert";
import {
  Channel,
  Deadlock,
  Panic,
  Scheduler,
  sleep,
  WaitGroup,
} from "../../scheduler/mod.ts";

Deno.test("WaitGroup.wait() resumes when the last thread is done", async () => {
  const s = new Scheduler({ seed: 1 });
  const order: string[] = [];
  await s.run(async () => {
    const wg = new WaitGroup();
    wg.add(2);
    for (const ms of [5, 1]) {
      s.go(async () => {
        await sleep(ms);
        order.push(`slept ${ms}`);
        wg.done();
      });
    }
    await wg.wait();
    order.push("waited");
  });
  // The sleeps may end in either order on a loaded machine; wait() returns
  // only after both.
  assertEquals(order.slice(0, 2).sort(), ["slept 1", "slept 5"]);
  assertEquals(order[2], "waited");
});

Deno.test("WaitGroup.wait() counts its thread as blocked, with Go's wait reason", async () => {
  const s = new Scheduler({ seed: 1 });
  await s.run(async (main) => {
    const wg = new WaitGroup();
    wg.add(1);
    const ch = new Channel<number>();
    s.go(async () => {
      await ch.recv();
      wg.done();
    });
    const waiting = wg.wait();
    assertEquals(main.state, "blocked");
    assertEquals(main.waitReason, "sync.WaitGroup.Wait");
    ch.send(1);
    await waiting;
    assertEquals(main.state, "runnable");
  });
});

Deno.test("WaitGroup.wait() on threads that all block is a deadlock, not a hang", async () => {
  const s = new Scheduler({ seed: 1 });
  const err = await assertRejects(
    () =>
      s.run(async () => {
        const wg = new WaitGroup();
        wg.add(1);
        const never = new Channel<number>();
        s.go(async () => {
          await never.recv();
          wg.done();
        });
        await wg.wait();
      }),
    Deadlock,
  );
  assert(err.dump.includes("goroutine 1 [sync.WaitGroup.Wait]:"));
  assert(err.dump.includes("goroutine 2 [chan receive]:"));
});

Deno.test("WaitGroup.add() panics when the counter would go negative", () => {
  const wg = new WaitGroup();
  wg.add(1);
  wg.add(-1);
  const p = (() => {
    try {
      wg.done();
    } catch (e) {
      return e;
    }
  })();
  if (!(p instanceof Panic)) throw new Error("no panic");
  assertEquals(p.message, "sync: negative WaitGroup counter");
  assertEquals(wg.count, 0);
});

Deno.test("WaitGroup.wait() returns at once on a zero counter", () => {
  assertEquals(new WaitGroup().wait(), undefined);
});
