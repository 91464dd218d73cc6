import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertRejects,
} from "@std/assert";
import {
  blockForever,
  Channel,
  currentScheduler,
  Deadlock,
  go,
  Panic,
  run,
  Scheduler,
  select,
  sleep,
} from "../../scheduler/mod.ts";
import { within } from "../_helpers/within.ts";
import { settle } from "./_settle.ts";

// ---------------------------------------------------------------------------
// Starting threads

Deno.test("Scheduler.go() passes a value down a chain of 10,000 threads (goroutines)", async () => {
  await within(
    10000,
    run(async () => {
      const n = 10000;
      const leftmost = new Channel<number>();
      let left = leftmost;
      for (let i = 0; i < n; i++) {
        const right = new Channel<number>();
        const [l, r] = [left, right];
        go(async () => {
          await l.send(1 + await r.recv());
        });
        left = right;
      }
      go(() => left.send(1));
      assertEquals(await leftmost.recv(), n + 1);
    }, { seed: 1 }),
  );
});

Deno.test("Scheduler.go() starts the thread after the caller's current step", async () => {
  await within(
    2000,
    run(async () => {
      const order: string[] = [];
      go(() => {
        order.push("child");
      });
      order.push("parent");
      await settle();
      assertEquals(order, ["parent", "child"]);
    }, { seed: 1 }),
  );
});

Deno.test("Scheduler.go() numbers threads from 2; main is 1", async () => {
  const s = new Scheduler({ seed: 1 });
  await within(
    2000,
    s.run(() => {
      const ids = [s.go(() => {}).id, s.go(() => {}).id];
      assertEquals(ids, [2, 3]);
      assertEquals(s.threads().map((t) => t.id), [1, 2, 3]);
    }),
  );
});

Deno.test("go() outside any run starts the thread on the default scheduler", async () => {
  const ch = new Channel<number>();
  const t = go(() => ch.send(5));
  assert(t.scheduler === currentScheduler());
  assertEquals(await ch.recv(), 5);
  await t.done;
  assertEquals(t.state, "done");
});

// ---------------------------------------------------------------------------
// Ending a run

Deno.test("Scheduler.run() ends when main returns, abandoning the other threads", async () => {
  const ch = new Channel<number>();
  let woke = false;
  const s = new Scheduler({ seed: 1 });
  await within(
    2000,
    s.run(async () => {
      s.go(async () => {
        await ch.recv();
        woke = true;
      });
      s.go(async () => {
        await sleep(5);
        woke = true;
      });
      await settle();
    }),
  );
  // The abandoned receiver's waiter is gone, and nothing wakes later.
  assertEquals(ch.trySend(1), false);
  await new Promise((r) => setTimeout(r, 15));
  assertEquals(woke, false);
});

Deno.test("Scheduler.run() can be called only once", async () => {
  const s = new Scheduler({ seed: 1 });
  await s.run(() => {});
  await assertRejects(() => s.run(() => {}), Error);
});

Deno.test("Scheduler.run() rejects with the first Panic of any thread", async () => {
  const s = new Scheduler({ seed: 1 });
  const p: Panic = await within(
    2000,
    assertRejects(() =>
      s.run(async () => {
        const ch = new Channel<number>();
        s.go(() => {
          const t = s.threads()[1];
          t.where = "block 1 op 2 channel_close";
          ch.close();
          ch.close();
        }, { createdAt: "block 0 op 4 go" });
        await ch.recv();
        await ch.recv();
      }), Panic),
  );
  assertEquals(p.message, "close of closed channel");
  assertEquals(p.thread?.id, 2);
  assertEquals(p.where, "block 1 op 2 channel_close");
  assertEquals(
    p.dump,
    "goroutine 1 [runnable]:\n\ngoroutine 2 [runnable]:\n\tblock 1 op 2 channel_close\n\tcreated at block 0 op 4 go",
  );
});

Deno.test("Scheduler.run() wraps an error thrown by a thread in a Panic", async () => {
  const err = new RangeError("bad index");
  const p: Panic = await within(
    2000,
    assertRejects(() =>
      run(() => {
        go(() => {
          throw err;
        });
        return blockForever("select (no cases)");
      }), Panic),
  );
  assertEquals(p.message, "RangeError: bad index");
  assert(p.cause === err);
  assertEquals(p.thread?.id, 2);
});

// ---------------------------------------------------------------------------
// Deadlock detection

Deno.test("Scheduler.run() rejects with Deadlock and a dump when every thread is blocked", async () => {
  const s = new Scheduler({ seed: 1 });
  const d: Deadlock = await within(
    2000,
    assertRejects(() =>
      s.run(async () => {
        const a = new Channel<number>();
        const b = new Channel<number>();
        s.go(() => b.send(1), { createdAt: "block 0 op 2 go" });
        s.go(() => select([{ recv: a }, { recv: b }, { recv: null }]), {
          name: "worker",
        });
        s.go(() => blockForever("chan receive (nil chan)"));
        s.go(() => select([]));
        await settle();
        s.threads()[0].where = "block 0 op 7 channel_recv";
        await a.recv();
      }), Deadlock),
  );
  assertEquals(d.message, "fatal error: all goroutines are asleep - deadlock!");
  // Thread 2 sent to thread 3's select, so only the others remain.
  assertEquals(d.threads.map((t) => t.id), [1, 4, 5]);
  assertEquals(
    d.dump,
    [
      "goroutine 1 [chan receive]:\n\tblock 0 op 7 channel_recv",
      "goroutine 4 [chan receive (nil chan)]:",
      "goroutine 5 [select (no cases)]:",
    ].join("\n\n"),
  );
});

Deno.test("Scheduler.run() reports a deadlock after the last runnable thread finishes", async () => {
  await within(
    2000,
    assertRejects(() =>
      run(async () => {
        const ch = new Channel<number>();
        go(async () => {
          await settle(); // outside the scheduler: runnable, not blocked
        });
        await ch.recv();
      }), Deadlock),
  );
});

Deno.test("Scheduler.run() reports no deadlock while a sleep is pending", async () => {
  await within(
    2000,
    run(async () => {
      const ch = new Channel<number>();
      go(async () => {
        await sleep(20);
        await ch.send(1);
      });
      assertEquals(await ch.recv(), 1);
    }, { seed: 1 }),
  );
});

Deno.test("Scheduler.run() reports no deadlock while a hold is held, and one after release", async () => {
  const s = new Scheduler({ seed: 1 });
  await within(
    2000,
    s.run(async () => {
      const ch = new Channel<number>(1);
      const release = s.hold();
      setTimeout(() => {
        ch.send(7);
        release();
        release(); // a second release does nothing
      }, 20);
      assertEquals(await ch.recv(), 7);
    }),
  );
  const s2 = new Scheduler({ seed: 1 });
  await within(
    2000,
    assertRejects(() =>
      s2.run(async () => {
        const release = s2.hold();
        setTimeout(release, 10); // releases without waking anyone
        await new Channel<number>().recv();
      }), Deadlock),
  );
});

Deno.test("Scheduler.run() counts an operation with an AbortSignal as pending work", async () => {
  await within(
    2000,
    run(async () => {
      const ch = new Channel<number>();
      const e = await assertRejects(() =>
        ch.recv({ signal: AbortSignal.timeout(20) }) as Promise<number>
      );
      assertInstanceOf(e, DOMException);
      assertEquals(e.name, "TimeoutError");
    }, { seed: 1 }),
  );
});

Deno.test("Schedulers run side by side, each with its own deadlock detection", async () => {
  const ok = run(async () => {
    const ch = new Channel<number>();
    go(async () => {
      await sleep(20);
      await ch.send(1);
    });
    await ch.recv();
  }, { seed: 1 });
  const stuck = run(() => new Channel<number>().recv(), { seed: 2 });
  await within(2000, assertRejects(() => stuck, Deadlock));
  await within(2000, ok);
});

// ---------------------------------------------------------------------------
// Time slices

Deno.test("Scheduler.yieldSlice() lets a timer fire during a busy loop of channel ops", async () => {
  const s = new Scheduler({ seed: 1 });
  await within(
    5000,
    s.run(async () => {
      const ch = new Channel<number>(1);
      let fired = false;
      setTimeout(() => fired = true, 1);
      let ops = 0;
      while (!fired) {
        ch.send(ops);
        ch.recv();
        ops++;
        const y = s.yieldSlice();
        if (y) await y;
      }
      assert(ops > 0);
    }),
  );
});

Deno.test("Scheduler.yieldSlice() returns undefined until the slice is over", async () => {
  const s = new Scheduler({ seed: 1 });
  await s.run(async () => {
    assertEquals(s.yieldSlice(), undefined);
    let yields = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < 30) {
      const y = s.yieldSlice();
      if (y) {
        yields++;
        await y;
      }
    }
    // About one yield per 4 ms slice.
    assert(yields >= 2 && yields <= 15, `${yields} yields in 30 ms`);
  });
});

// ---------------------------------------------------------------------------
// The seeded PRNG

Deno.test("Scheduler.random is seeded by SchedulerOptions.seed", () => {
  const a = new Scheduler({ seed: 9 });
  const b = new Scheduler({ seed: 9 });
  assertEquals(a.seed, 9);
  assertEquals(a.random.nextUint32(), b.random.nextUint32());
  assert(Number.isInteger(new Scheduler().seed));
});
