// A thread's context: the park options it hands out (one that chains on a
// promise, one that parks on the context as resumer), and what resuming a
// context with no parked block does.

import { assert, assertEquals, assertThrows } from "@std/assert";
import { cpuDevice } from "../../../kernels/cpu/device.ts";
import { InternalError } from "../../../runtime/core/errors.ts";
import type {
  RunServices,
  ThreadContext,
} from "../../../runtime/core/thread_context.ts";
import type { ParkingContext } from "../../../runtime/exec/block_runner.ts";
import { threadContext } from "../../../runtime/exec/thread_context.ts";
import { Channel, PARKED, Scheduler } from "../../../scheduler/mod.ts";

/** Runs `fn` with the context of a fresh run's main thread. */
function inContext(fn: (ctx: ThreadContext) => unknown): Promise<void> {
  const scheduler = new Scheduler({ seed: 1, threadContext: false });
  const run: RunServices = {
    scheduler,
    device: cpuDevice,
    seed: 1,
    print: () => {},
  };
  return scheduler.run((thread) => fn(threadContext(run, thread)));
}

Deno.test("parkAs names the thread and has no resumer: an operation given it returns a promise", async () => {
  await inContext(async (ctx) => {
    assertEquals(ctx.parkAs, { thread: ctx.thread });
    assert(ctx.parkAs === ctx.parkAs); // made once
    const ch = new Channel<number>();
    const pending = ch.recv(ctx.parkAs);
    assert(pending instanceof Promise && pending !== PARKED);
    ch.send(1);
    assertEquals(await pending, 1);
  });
});

Deno.test("resumeAs is the context itself, as its own resumer: an operation given it returns PARKED", async () => {
  await inContext((ctx) => {
    assert(ctx.resumeAs === ctx && (ctx.resumer as unknown) === ctx);
    assertEquals(ctx.resumeAs.thread, ctx.thread);
    const ch = new Channel<number>();
    assertEquals(ch.recv(ctx.resumeAs), PARKED);
    // Nothing of a block waits there: resuming it is the runtime's bug.
    assertThrows(() => ctx.resumer.resume(1), InternalError, "no parked block");
    assertThrows(() => ctx.resumer.fail(new Error("x")), InternalError);
  });
});

Deno.test("threadContext() makes a context with the run's services and no parked block", async () => {
  await inContext((ctx) => {
    assertEquals([ctx.run.seed, ctx.thread.id], [1, 1]);
    assertEquals((ctx as ParkingContext).parkedFrame, undefined);
  });
});
