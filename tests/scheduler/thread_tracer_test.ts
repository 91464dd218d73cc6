// The scheduler's tracer hook (scheduler/thread_tracer.ts): each park is
// told with the wait reason a dump shows, each wake-up once, each end with
// its panic; a run without a tracer is told nothing.

import { assertEquals, assertRejects } from "@std/assert";
import {
  makeChannel,
  Panic,
  Scheduler,
  select,
  sleep,
  type ThreadTracer,
  WaitGroup,
} from "../../scheduler/mod.ts";

function recorder(): { tracer: ThreadTracer; seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    tracer: {
      blocked: (t, reason) => seen.push(`${t.id} ${reason}`),
      woken: (t) => seen.push(`${t.id} woken`),
      finished: (t, panic) =>
        seen.push(`${t.id} done${panic ? `: ${panic.message}` : ""}`),
    },
  };
}

Deno.test("ThreadTracer hears each park with its reason, each wake-up and each end", async () => {
  const { tracer, seen } = recorder();
  const s = new Scheduler({ seed: 1, tracer });
  await s.run(async () => {
    await sleep(1);
    const ch = makeChannel<number>();
    s.go(() => ch.send(1));
    await select([{ recv: ch }]);
    const wg = new WaitGroup();
    wg.add(1);
    s.go(() => wg.done());
    await wg.wait();
  });
  assertEquals(seen, [
    "1 sleep",
    "1 woken",
    "1 select",
    "1 woken",
    "2 done",
    "1 sync.WaitGroup.Wait",
    "1 woken",
    "3 done",
    "1 done",
  ]);
});

Deno.test("ThreadTracer hears a thread's panic as it ends", async () => {
  const { tracer, seen } = recorder();
  const s = new Scheduler({ seed: 1, tracer });
  await assertRejects(
    () =>
      s.run(() => {
        throw new Panic("boom");
      }),
    Panic,
  );
  assertEquals(seen, ["1 done: boom"]);
});
