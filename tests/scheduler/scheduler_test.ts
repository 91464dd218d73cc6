import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertRejects,
} from "@std/assert";
import {
  after,
  blockForever,
  Channel,
  closeChannel,
  currentScheduler,
  currentThread,
  Deadlock,
  go,
  type GreenThread,
  Panic,
  type Random,
  run,
  Scheduler,
  select,
  sleep,
} from "../../scheduler/mod.ts";
import { currentRandom } from "../../scheduler/scheduler.ts";
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
      // Long enough that the run surely ends first, even on a loaded
      // machine where the macrotask below comes late.
      s.go(async () => {
        await sleep(100);
        woke = true;
      });
      await settle();
    }),
  );
  // The abandoned receiver's waiter is gone, and nothing wakes later.
  assertEquals(ch.trySend(1), false);
  await new Promise((r) => setTimeout(r, 150));
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
    while (performance.now() - t0 < 60) {
      const y = s.yieldSlice();
      if (y) {
        yields++;
        await y;
      }
    }
    // About one yield per 4 ms slice: some, and far fewer than the calls
    // (a loaded machine may run the loop less often).
    assert(yields >= 1 && yields <= 20, `${yields} yields in 60 ms`);
  });
});

Deno.test("Scheduler.yieldSlice(true) reads the clock at once after slow work", async () => {
  const s = new Scheduler({ seed: 1 });
  await s.run(async () => {
    const t0 = performance.now();
    while (performance.now() - t0 < 6) { /* a slow pass */ }
    assertEquals(s.yieldSlice(), undefined);
    const y = s.yieldSlice(true);
    assert(y !== undefined, "no yield after 6 ms of heavy work");
    await y;
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

Deno.test("currentRandom() is the calling thread's scheduler's PRNG, whether one scheduler or two have threads", async () => {
  const a = new Scheduler({ seed: 1 });
  const b = new Scheduler({ seed: 2 });
  const seen: Random[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => release = resolve);
  // Threads started without a run: `a` alone has live threads.
  const first = a.go(async () => {
    seen.push(currentRandom());
    await gate;
    seen.push(currentRandom());
  });
  await settle();
  // Now `b` has one too: each thread's own scheduler is looked up.
  const second = b.go(() => void seen.push(currentRandom()));
  await second.done;
  release();
  await first.done;
  assertEquals(seen.length, 3);
  assert(seen[0] === a.random && seen[1] === b.random && seen[2] === a.random);
});

// ---------------------------------------------------------------------------
// Without thread contexts (threadContext: false): threads name themselves

Deno.test("Scheduler.go() passes the new thread to its function", async () => {
  for (const threadContext of [true, false]) {
    const s = new Scheduler({ seed: 1, threadContext });
    const seen: number[] = [];
    await within(
      2000,
      s.run(async (main) => {
        seen.push(main.id);
        await s.go((t) => {
          seen.push(t.id);
        }).done;
      }),
    );
    assertEquals(seen, [1, 2]);
  }
});

Deno.test("Scheduler without thread contexts gives its threads none", async () => {
  const s = new Scheduler({ seed: 1, threadContext: false });
  const seen: unknown[] = [];
  await within(
    2000,
    s.run(async (main) => {
      const ch = new Channel<number>();
      const t = s.go(async (t) => {
        seen.push(currentThread());
        await ch.recv({ thread: t });
        seen.push(currentThread());
        await sleep(1, { thread: t });
        seen.push(currentThread());
      });
      seen.push(currentThread());
      await settle();
      await ch.send(1, { thread: main });
      seen.push(currentThread());
      await t.done;
    }),
  );
  assertEquals(seen, [undefined, undefined, undefined, undefined, undefined]);
});

Deno.test("Scheduler without thread contexts does not leak the spawner's context", async () => {
  // A lean scheduler driven from inside a thread that has a context.
  const outer = new Scheduler({ seed: 1 });
  let seen: unknown = "unset";
  await within(
    2000,
    outer.run(async () => {
      const lean = new Scheduler({ seed: 2, threadContext: false });
      await lean.run(async (t) => {
        await sleep(1, { thread: t });
        seen = currentThread();
      });
    }),
  );
  assertEquals(seen, undefined);
});

Deno.test("Scheduler without thread contexts counts explicitly named threads as blocked", async () => {
  const s = new Scheduler({ seed: 1, threadContext: false });
  await within(
    2000,
    s.run(async (main) => {
      const ch = new Channel<number>();
      const a = s.go((t) => ch.recv({ thread: t }));
      const b = s.go((t) =>
        select([{ recv: ch }, { recv: null }], { thread: t })
      );
      const c = s.go((t) =>
        blockForever("chan send (nil chan)", { thread: t })
      );
      const d = s.go((t) =>
        sleep(10_000, { thread: t, signal: AbortSignal.timeout(5) }).catch(
          () => {},
        )
      );
      const e = s.go(() => ch.recv()); // unnamed: not counted
      await settle();
      assertEquals(
        [a, b, c, d, e].map((t) => [t.state, t.waitReason]),
        [
          ["blocked", "chan receive"],
          ["blocked", "select"],
          ["blocked", "chan send (nil chan)"],
          ["blocked", "sleep"],
          ["runnable", undefined],
        ],
      );
      await ch.send(1, { thread: main });
      await ch.send(2, { thread: main });
      await ch.send(3, { thread: main });
      await d.done;
      assertEquals([a.state, b.state, d.state, e.state], [
        "done",
        "done",
        "done",
        "done",
      ]);
      assertEquals(c.waitReason, "chan send (nil chan)");
    }),
  );
});

Deno.test("Scheduler without thread contexts reports a deadlock with wait reasons", async () => {
  const s = new Scheduler({ seed: 1, threadContext: false });
  const d: Deadlock = await within(
    2000,
    assertRejects(() =>
      s.run(async (main) => {
        const a = new Channel<number>();
        const b = new Channel<number>();
        s.go((t) => b.send(1, { thread: t }), { createdAt: "block 0 op 2 go" });
        s.go((t) =>
          select([{ recv: a }, { recv: b }, { recv: null }], { thread: t }), {
          name: "worker",
        });
        s.go((t) =>
          blockForever("chan receive (nil chan)", { thread: t })
        );
        s.go((t) => select([], { thread: t }));
        s.go(async (t) => {
          await a.send(5, { thread: t });
          await a.send(6, { thread: t });
        });
        await settle();
        main.where = "block 0 op 7 channel_recv";
        await a.recv({ thread: main });
        await b.recv({ thread: main });
      }), Deadlock),
  );
  assertEquals(d.threads.map((t) => t.id), [1, 4, 5, 6]);
  assertEquals(
    d.dump,
    [
      "goroutine 1 [chan receive]:\n\tblock 0 op 7 channel_recv",
      "goroutine 4 [chan receive (nil chan)]:",
      "goroutine 5 [select (no cases)]:",
      "goroutine 6 [chan send]:",
    ].join("\n\n"),
  );
});

Deno.test("Scheduler without thread contexts names the thread in its panics", async () => {
  // A panic made by the scheduler takes the thread from the operation.
  const s = new Scheduler({ seed: 1, threadContext: false });
  let sender: GreenThread | undefined;
  const p: Panic = await within(
    2000,
    assertRejects(() =>
      s.run(async (main) => {
        const ch = new Channel<number>();
        ch.close();
        sender = s.go(async (t) => {
          await sleep(1, { thread: t });
          t.where = "block 1 op 0 channel_send";
          ch.send(1, { thread: t });
        });
        await blockForever("select (no cases)", {
          thread: main,
          signal: AbortSignal.timeout(1000),
        });
      }), Panic),
  );
  assertEquals(p.message, "send on closed channel");
  assertEquals(p.thread, sender);
  assertEquals(p.where, "block 1 op 0 channel_send");
  // A panic made without the thread gets it when it leaves the thread.
  const s2 = new Scheduler({ seed: 1, threadContext: false });
  let thrower: GreenThread | undefined;
  const p2: Panic = await within(
    2000,
    assertRejects(() =>
      s2.run(async (main) => {
        thrower = s2.go(async (t) => {
          await sleep(1, { thread: t });
          t.where = "block 2 op 1 channel_close";
          new Channel<number>(0).close();
          closeChannel(null);
        });
        await sleep(1000, { thread: main });
      }), Panic),
  );
  assertEquals(p2.message, "close of nil channel");
  assertEquals(p2.thread, thrower);
  assertEquals(p2.where, "block 2 op 1 channel_close");
  assertEquals(thrower?.panic, p2);
});

Deno.test("Scheduler without thread contexts wakes a sender parked on a closed channel with a panic naming it", async () => {
  const s = new Scheduler({ seed: 1, threadContext: false });
  let sender: GreenThread | undefined;
  const p: Panic = await within(
    2000,
    assertRejects(() =>
      s.run(async (main) => {
        const ch = new Channel<number>();
        sender = s.go((t) => ch.send(1, { thread: t }));
        await sleep(1, { thread: main });
        assertEquals(sender.waitReason, "chan send");
        ch.close();
        await sleep(1000, { thread: main });
      }), Panic),
  );
  assertEquals(p.message, "send on closed channel");
  assertEquals(p.thread, sender);
});

Deno.test("select() with a thread draws from its scheduler's PRNG", async () => {
  async function picks(threadContext: boolean): Promise<number[]> {
    const s = new Scheduler({ seed: 3, threadContext });
    const got: number[] = [];
    await s.run((t) => {
      const a = new Channel<number>(100);
      const b = new Channel<number>(100);
      for (let i = 0; i < 20; i++) {
        a.send(0);
        b.send(1);
        const r = select([{ recv: a }, { recv: b }], { thread: t });
        got.push((r as { index: number }).index);
      }
    });
    return got;
  }
  assertEquals(await picks(false), await picks(true));
});

Deno.test("after() with a scheduler keeps a run without thread contexts alive", async () => {
  const s = new Scheduler({ seed: 1, threadContext: false });
  let got: unknown;
  await within(
    2000,
    s.run(async (main) => {
      const never = new Channel<number>();
      const timeout = after(5, { scheduler: s });
      got = (await select([{ recv: never }, { recv: timeout }], {
        thread: main,
      })).index;
    }),
  );
  assertEquals(got, 1);
});

// ---------------------------------------------------------------------------
// Ending a run from outside

Deno.test("Scheduler.run() rejects at once, running nothing, with an aborted signal", async () => {
  const controller = new AbortController();
  controller.abort("stop");
  let ran = false;
  const s = new Scheduler({ seed: 1 });
  const reason = await s.run(() => {
    ran = true;
  }, { signal: controller.signal }).catch((e) => e);
  assertEquals([reason, ran], ["stop", false]);
});

Deno.test("an abort ends a run: parked threads are abandoned, timers stop", async () => {
  const controller = new AbortController();
  const s = new Scheduler({ seed: 1 });
  let woke = false;
  const running = s.run(async (main) => {
    const never = new Channel<number>();
    s.go(async (t) => {
      await sleep(10_000, { thread: t }); // a pending timer: no deadlock
      woke = true;
    });
    await never.recv({ thread: main });
  }, { signal: controller.signal });
  setTimeout(() => controller.abort(new Error("enough")), 5);
  const error = await running.catch((e) => e);
  assertInstanceOf(error, Error);
  assertEquals([error.message, woke], ["enough", false]);
  // The test's timer sanitizer fails if the 10 s sleep is still pending.
});

Deno.test("an abort after the run ended changes nothing", async () => {
  const controller = new AbortController();
  const s = new Scheduler({ seed: 1 });
  await s.run(() => {}, { signal: controller.signal });
  controller.abort();
  assertEquals(s.threads().length, 0);
});
