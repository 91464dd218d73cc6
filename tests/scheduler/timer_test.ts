import { assert, assertEquals, assertRejects } from "@std/assert";
import {
  after,
  Channel,
  go,
  PARKED,
  run,
  select,
  sleep,
} from "../../scheduler/mod.ts";
import { within } from "../_helpers/within.ts";
import { settle } from "./_settle.ts";

Deno.test("sleep() parks the thread for the duration", async () => {
  await within(
    2000,
    run(async () => {
      const t0 = performance.now();
      const t = go(() => sleep(10));
      await settle();
      assertEquals(t.waitReason, "sleep");
      await t.done;
      assert(performance.now() - t0 >= 9);
    }, { seed: 1 }),
  );
});

Deno.test("sleep() of zero or less returns at once", async () => {
  // At once: settled before any timer, even one due now, could run.
  let timerRan = false;
  const timer = setTimeout(() => timerRan = true, 0);
  await sleep(0);
  await sleep(-5);
  assertEquals(timerRan, false);
  clearTimeout(timer);
});

Deno.test("sleep() with an AbortSignal rejects early", async () => {
  await within(
    2000,
    run(async () => {
      const ac = new AbortController();
      setTimeout(() => ac.abort("wake"), 5);
      const reason = await assertRejects(() =>
        sleep(10000, { signal: ac.signal })
      );
      // Rejected with the signal's reason: the abort ended it, not the
      // 10 s timer (which would have resolved it).
      assertEquals(reason, "wake");
    }, { seed: 1 }),
  );
});

Deno.test("sleep() with a resumer returns PARKED and resumes it after the duration, or fails it on abort", async () => {
  await within(
    2000,
    run(async (main) => {
      const ac = new AbortController();
      const outcomes: unknown[] = [];
      const woken = Promise.withResolvers<void>();
      const resumer = (name: string) => ({
        resume: (v: unknown) => outcomes.push([name, "resumed", v]),
        fail: (e: unknown) => {
          outcomes.push([name, "failed", e]);
          woken.resolve();
        },
      });
      const t0 = performance.now();
      assertEquals(
        sleep(5, { thread: main, resumer: resumer("short") }),
        PARKED,
      );
      assertEquals(main.waitReason, "sleep");
      const long = { signal: ac.signal, resumer: resumer("long") };
      assertEquals(sleep(10000, long), PARKED);
      await sleep(20);
      assert(performance.now() - t0 >= 4);
      ac.abort("wake");
      await woken.promise;
      assertEquals(outcomes, [
        ["short", "resumed", undefined],
        ["long", "failed", "wake"],
      ]);
    }, { seed: 1 }),
  );
});

Deno.test("after() delivers true once, on a channel of capacity 1", async () => {
  await within(
    2000,
    run(async () => {
      const ch = after(5);
      assertEquals(ch.cap, 1);
      assertEquals(ch.tryRecv(), { state: "empty" });
      assertEquals(await ch.recv(), true);
      await sleep(10);
      assertEquals(ch.tryRecv(), { state: "empty" });
      assertEquals(ch.closed, false);
    }, { seed: 1 }),
  );
});

Deno.test("after() serves as a timeout in select", async () => {
  await within(
    2000,
    run(async () => {
      const never = new Channel<number>();
      const r = await select([{ recv: never }, { recv: after(5) }]);
      assertEquals(r.index, 1);
    }, { seed: 1 }),
  );
});

Deno.test("after() with an AbortSignal never delivers once aborted", async () => {
  const ac = new AbortController();
  const ch = after(5, { signal: ac.signal });
  ac.abort();
  await new Promise((r) => setTimeout(r, 15));
  assertEquals(ch.tryRecv(), { state: "empty" });
});

Deno.test("sleep() and after() timers are cleared when the run ends", async () => {
  // The test's op sanitizer fails if a timer is left behind.
  let woke = false;
  await run(() => {
    after(10000);
    go(async () => {
      await sleep(10000);
      woke = true;
    });
  }, { seed: 1 });
  assertEquals(woke, false);
});
