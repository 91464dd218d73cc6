import { assertEquals, assertRejects } from "@std/assert";
import {
  Channel,
  type GreenThread,
  Panic,
  Scheduler,
} from "../../scheduler/mod.ts";
import {
  blockThread,
  createThread,
  ENDS_ITSELF,
  exitThread,
  finishThread,
  goFromKey,
  linkThread,
  liveThreads,
  type Parked,
  parkedOn,
  reserveChildKey,
  schedulerRun,
  threadRun,
  unblockThread,
} from "../../scheduler/_thread_control.ts";
import { settle } from "./_settle.ts";

Deno.test("blockThread() counts a thread once however often it parks, and unblockThread() only for the last park", async () => {
  const s = new Scheduler({ seed: 1 });
  await s.run((main) => {
    const run = threadRun(main);
    const first = { unlink() {} };
    const last = { unlink() {} };
    blockThread(main, "chan receive", first);
    blockThread(main, "select", last);
    assertEquals([run.blocked, main.waitReason], [1, "select"]);
    assertEquals(parkedOn(main), last);
    unblockThread(main, first);
    assertEquals(run.blocked, 1);
    unblockThread(main, last);
    assertEquals([run.blocked, main.state, parkedOn(main)], [
      0,
      "runnable",
      undefined,
    ]);
  });
});

Deno.test("blockThread() leaves a done thread done and uncounted", async () => {
  const s = new Scheduler({ seed: 1 });
  await s.run(async () => {
    const t = s.go(() => {});
    await t.done;
    blockThread(t, "sleep", { unlink() {} });
    assertEquals([t.state, threadRun(t).blocked], ["done", 0]);
  });
});

Deno.test("unblockThread() returns false and changes nothing once the run has ended", async () => {
  const s = new Scheduler({ seed: 1 });
  let t: GreenThread | undefined;
  let parked: Parked | undefined;
  await s.run(async () => {
    t = s.go(() => new Channel<number>().recv());
    await settle();
    parked = parkedOn(t);
  });
  assertEquals(unblockThread(t!, parked!), false);
  assertEquals(t!.state, "blocked");
});

Deno.test("linkThread() and finishThread() keep the run's live list in spawn order", () => {
  const run = schedulerRun(new Scheduler({ seed: 1 }));
  const [a, b, c] = [2, 3, 4].map((id) =>
    createThread(run, id, undefined, undefined)
  );
  for (const t of [a, b, c]) linkThread(t);
  assertEquals(liveThreads(run), [a, b, c]);
  assertEquals(finishThread(b, undefined), false);
  assertEquals(liveThreads(run), [a, c]);
  finishThread(a, undefined);
  finishThread(c, undefined);
  assertEquals([liveThreads(run), run.live, c.state], [[], 0, "done"]);
});

Deno.test("exitThread() ends a thread that returned ENDS_ITSELF, and a panic fails the run", async () => {
  const s = new Scheduler({ seed: 1 });
  await assertRejects(
    () =>
      s.run(async () => {
        const t = s.go((t) => {
          setTimeout(() => exitThread(t, undefined), 1);
          return ENDS_ITSELF;
        });
        await t.done;
        assertEquals(t.state, "done");
        s.go((t) => {
          setTimeout(() => exitThread(t, new Panic("late")), 1);
          return ENDS_ITSELF;
        });
        await new Promise(() => {}); // ends with the panic
      }),
    Panic,
    "late",
  );
});

Deno.test("goFromKey() on a key from reserveChildKey() draws what goFrom() would have, and takes the parent's next child's stream", async () => {
  const draws = async (away: boolean) => {
    const s = new Scheduler({ seed: 5, threadContext: false });
    const got: number[] = [];
    await s.run((main) => {
      for (let i = 0; i < 3; i++) {
        const child = away
          ? goFromKey(s, reserveChildKey(main), () => {}, undefined)
          : s.goFrom(main, () => {});
        got.push(child.random.nextUint32());
      }
    });
    return got;
  };
  const here = await draws(false);
  assertEquals(await draws(true), here);
  assertEquals(new Set(here).size, 3);
});
