// Operations that park with a resumer: they return PARKED, hand their
// outcome over exactly once from a microtask of their own (never inside the
// waker), fail it with a panic or an abort, in the order promises would
// have resumed, and never once their run has ended.

import { assert, assertEquals, assertInstanceOf } from "@std/assert";
import {
  Channel,
  Panic,
  PARKED,
  type Resumer,
  Scheduler,
  select,
} from "../../scheduler/mod.ts";

/** A resumer that records what it is handed, tagged with `name`. */
function recorder(name: string, log: string[]): Resumer {
  return {
    resume: (value) => void log.push(`${name} ${JSON.stringify(value)}`),
    fail: (error) =>
      void log.push(
        `${name} failed: ${error instanceof Error ? error.message : error}`,
      ),
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("recv with a resumer returns PARKED and resumes after the waker returns", async () => {
  const log: string[] = [];
  const ch = new Channel<number>();
  assertEquals(ch.recv({ resumer: recorder("r", log) }), PARKED);
  assertEquals(ch.send(7), undefined); // handed over directly
  log.push("sender returned");
  await tick();
  assertEquals(log, ["sender returned", "r 7"]);
});

Deno.test("send and recvOk with a resumer resume with what a promise would carry", async () => {
  const log: string[] = [];
  const ch = new Channel<number>(0, { zero: 0 });
  assertEquals(ch.send(1, { resumer: recorder("s", log) }), PARKED);
  assertEquals(ch.recv(), 1);
  assertEquals(ch.recvOk({ resumer: recorder("ok", log) }), PARKED);
  ch.close();
  await tick();
  assertEquals(log, ["s undefined", 'ok {"value":0,"ok":false}']);
});

Deno.test("a resumer is failed with the panic of a send on a channel closed meanwhile", async () => {
  const log: string[] = [];
  const ch = new Channel<number>();
  assertEquals(ch.send(1, { resumer: recorder("s", log) }), PARKED);
  ch.close();
  await tick();
  assertEquals(log, ["s failed: send on closed channel"]);
});

Deno.test("an aborted operation fails its resumer with the signal's reason", async () => {
  const log: string[] = [];
  const controller = new AbortController();
  const ch = new Channel<number>();
  const resumer = recorder("r", log);
  assertEquals(ch.recv({ resumer, signal: controller.signal }), PARKED);
  controller.abort(new Error("stop"));
  await tick();
  assertEquals(log, ["r failed: stop"]);
  ch.send(1, { resumer: recorder("late sender", log) });
  await tick();
  assertEquals(log.length, 1); // the aborted receiver took nothing
});

Deno.test("resumers and awaiting threads wake in the order their operations completed", async () => {
  const log: string[] = [];
  const ch = new Channel<string>();
  const awaited = ch.recv() as Promise<string>;
  awaited.then((v) => log.push(`promise "${v}"`));
  ch.recv({ resumer: recorder("first", log) });
  ch.recv({ resumer: recorder("second", log) });
  ch.send("a");
  ch.send("b");
  ch.send("c");
  await tick();
  assertEquals(log, ['promise "a"', 'first "b"', 'second "c"']);
});

Deno.test("select with a resumer resumes with the case that fired", async () => {
  const log: string[] = [];
  const a = new Channel<number>();
  const b = new Channel<number>();
  const parked = select([{ recv: a }, { recv: b }], {
    resumer: recorder("sel", log),
  });
  assertEquals(parked, PARKED);
  b.send(5);
  assertEquals(a.trySend(1), false); // the select's other case is gone
  await tick();
  assertEquals(log, ['sel {"index":1,"value":5,"ok":true}']);
});

Deno.test("a thread parked with a resumer counts as blocked: deadlock is seen", async () => {
  const s = new Scheduler({ seed: 1, threadContext: false });
  const ch = new Channel<number>();
  const log: string[] = [];
  let parked: unknown;
  const error = await s.run((main) => {
    parked = ch.recv({ thread: main, resumer: recorder("main", log) });
    return new Promise(() => {}); // main waits on its receive
  }).then(() => undefined, (e) => e);
  assertEquals(parked, PARKED);
  assert(error instanceof Error && error.name === "Deadlock");
  assertEquals(log, []);
});

Deno.test("an operation parked after its run ended returns PARKED and never resumes", async () => {
  const s = new Scheduler({ seed: 1, threadContext: false });
  let thread: unknown;
  await s.run((main) => {
    thread = main;
  });
  const log: string[] = [];
  const ch = new Channel<number>();
  const resumer = recorder("late", log);
  const options = { thread: thread as never, resumer };
  assertEquals(ch.recv(options), PARKED);
  assertEquals(select([{ recv: ch }], options), PARKED);
  assertEquals(ch.trySend(1), false); // nothing was queued
  await tick();
  assertEquals(log, []);
});

Deno.test("a resumer's fail gets a Panic naming the thread", async () => {
  const s = new Scheduler({ seed: 1, threadContext: false });
  const ch = new Channel<number>();
  let failure: unknown;
  await s.run(async (main) => {
    const done = Promise.withResolvers<void>();
    ch.send(1, {
      thread: main,
      resumer: {
        resume: () => done.resolve(),
        fail: (e) => {
          failure = e;
          done.resolve();
        },
      },
    });
    ch.close();
    await done.promise;
  });
  assertInstanceOf(failure, Panic);
  assertEquals((failure as Panic).thread?.id, 1);
});
