import { assertEquals, assertRejects } from "@std/assert";
import {
  blockForever,
  Channel,
  currentThread,
  go,
  type GreenThread,
  Panic,
  run,
  Scheduler,
  select,
  sleep,
} from "../../scheduler/mod.ts";
import { type Parked, parkedOn } from "../../scheduler/_thread_control.ts";
import { within } from "../_helpers/within.ts";
import { settle } from "./_settle.ts";

Deno.test("currentThread() is undefined outside green threads", () => {
  assertEquals(currentThread(), undefined);
});

Deno.test("currentThread() follows a thread across its awaits", async () => {
  await within(
    2000,
    run(async () => {
      const ids: number[] = [];
      const ch = new Channel<number>();
      const t = go(async () => {
        ids.push(currentThread()!.id);
        await ch.recv();
        ids.push(currentThread()!.id);
        await sleep(1);
        ids.push(currentThread()!.id);
      });
      assertEquals(currentThread()?.id, 1);
      await settle();
      await ch.send(0);
      assertEquals(currentThread()?.id, 1);
      await t.done;
      assertEquals(ids, [2, 2, 2]);
    }, { seed: 1 }),
  );
});

Deno.test("GreenThread.state and waitReason follow the thread's life", async () => {
  await within(
    2000,
    run(async () => {
      const ch = new Channel<number>();
      const t = go(() => ch.recv());
      assertEquals([t.state, t.waitReason], ["runnable", undefined]);
      await settle();
      assertEquals([t.state, t.waitReason], ["blocked", "chan receive"]);
      assertEquals(ch.send(1), undefined); // handed over at once: t is runnable
      assertEquals([t.state, t.waitReason], ["runnable", undefined]);
      await t.done;
      assertEquals([t.state, t.waitReason], ["done", undefined]);
    }, { seed: 1 }),
  );
});

Deno.test("GreenThread.waitReason names every kind of wait as Go does", async () => {
  const s = new Scheduler({ seed: 1 });
  await within(
    2000,
    s.run(async () => {
      const ch = new Channel<number>();
      const threads = [
        s.go(() => ch.recv()),
        s.go(() => new Channel<number>().send(1)),
        s.go(() => blockForever("chan receive (nil chan)")),
        s.go(() => blockForever("chan send (nil chan)")),
        s.go(() => select([{ recv: ch }, { recv: null }])),
        s.go(() => select([])),
        s.go(() => sleep(1000)),
      ];
      await settle();
      assertEquals(threads.map((t) => t.waitReason), [
        "chan receive",
        "chan send",
        "chan receive (nil chan)",
        "chan send (nil chan)",
        "select",
        "select (no cases)",
        "sleep",
      ]);
    }),
  );
});

Deno.test("GreenThread keeps its name, creation site and location", async () => {
  const s = new Scheduler({ seed: 1 });
  await s.run(() => {
    const t = s.go(() => {}, { name: "reader", createdAt: "block 0 op 1 go" });
    assertEquals([t.name, t.createdAt, t.where], [
      "reader",
      "block 0 op 1 go",
      undefined,
    ]);
    t.where = "block 1 op 0 read";
    assertEquals(t.where, "block 1 op 0 read");
    assertEquals(t.scheduler, s);
  });
});

Deno.test("GreenThread.done rejects with the thread's Panic", async () => {
  // On the default scheduler, where no run reports the panic.
  const t = go(() => {
    new Channel<number>().close();
    closeTwice();
  });
  const p = await assertRejects(() => t.done, Panic);
  assertEquals(p.message, "close of closed channel");
  assertEquals(t.panic, p);
  assertEquals(t.state, "done");
});

function closeTwice(): void {
  const ch = new Channel<number>();
  ch.close();
  ch.close();
}

Deno.test("GreenThread waits on the operation it parked last, counted once", async () => {
  await within(
    2000,
    run(async () => {
      const a = new Channel<number>();
      const b = new Channel<number>();
      const t = go(async () => {
        a.recv(); // parked but never awaited
        await b.recv();
      });
      await settle();
      assertEquals(t.waitReason, "chan receive");
      a.send(1); // completes the earlier operation: t still waits on b
      assertEquals(t.state, "blocked");
      b.send(2);
      assertEquals(t.state, "runnable");
      await t.done;
    }, { seed: 1 }),
  );
});

// The scheduler's side, private to the type (see green_thread.ts).

Deno.test("GreenThread's private block() counts a thread once however often it parks, and unblock() only for the last park", async () => {
  const s = new Scheduler({ seed: 1 });
  await s.run((main) => {
    const run = main["runState"];
    const first = { unlink() {} };
    const last = { unlink() {} };
    main["block"]("chan receive", first);
    main["block"]("select", last);
    assertEquals([run.blocked, main.waitReason], [1, "select"]);
    assertEquals(parkedOn(main), last);
    main["unblock"](first);
    assertEquals(run.blocked, 1);
    main["unblock"](last);
    assertEquals([run.blocked, main.state, parkedOn(main)], [
      0,
      "runnable",
      undefined,
    ]);
  });
});

Deno.test("GreenThread's private block() leaves a done thread done and uncounted", async () => {
  const s = new Scheduler({ seed: 1 });
  await s.run(async () => {
    const t = s.go(() => {});
    await t.done;
    t["block"]("sleep", { unlink() {} });
    assertEquals([t.state, t["runState"].blocked], ["done", 0]);
  });
});

Deno.test("GreenThread's private unblock() returns false and changes nothing once the run has ended", async () => {
  const s = new Scheduler({ seed: 1 });
  let t: GreenThread | undefined;
  let parked: Parked | undefined;
  await s.run(async () => {
    t = s.go(() => new Channel<number>().recv());
    await settle();
    parked = parkedOn(t);
  });
  assertEquals(t!["unblock"](parked!), false);
  assertEquals(t!.state, "blocked");
});
