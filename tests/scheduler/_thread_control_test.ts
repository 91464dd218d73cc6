import { assertEquals, assertRejects } from "@std/assert";
import { Panic, Scheduler } from "../../scheduler/mod.ts";
import {
  createThread,
  ENDS_ITSELF,
  exitThread,
  finishThread,
  goFromKey,
  linkThread,
  liveThreads,
  reserveChildKey,
  schedulerRun,
} from "../../scheduler/_thread_control.ts";

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
