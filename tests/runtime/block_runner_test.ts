// The block runner on hand-made prepared blocks: ops that complete at once,
// ops that suspend (plain promises, and resumable ops whose value goes to
// `resume`), a panic before and after a suspension located at its op, and a
// thread's block that ends its thread itself.

import { assert, assertEquals, assertRejects } from "@std/assert";
import { create } from "@bufbuild/protobuf";
import {
  BlockDescSchema,
  OpDescSchema,
} from "../../gen/rill/v1/framework_pb.ts";
import { cpuDevice } from "../../kernels/cpu/device.ts";
import { Panic } from "../../scheduler/panic.ts";
import { Scheduler } from "../../scheduler/scheduler.ts";
import { runBlock, runThreadBlock } from "../../runtime/block_runner.ts";
import { OPS } from "../../runtime/ops/mod.ts";
import type {
  PreparedBlock,
  PreparedOp,
} from "../../runtime/prepared_block.ts";
import type { ThreadContext } from "../../runtime/thread_context.ts";
import { threadContext } from "../../runtime/thread_context.ts";
import { BlockLayout, Scope } from "../../runtime/scope.ts";

type Step = Pick<PreparedOp, "run" | "resume">;

/** A block of ops made from run (and resume) functions. */
function blockOf(steps: readonly Step[]): PreparedBlock {
  const desc = create(OpDescSchema, { type: "print" });
  const ops = steps.map((step, i): PreparedOp => ({
    run: step.run,
    resume: step.resume,
    location: `block 0 op ${i} (step)`,
    def: OPS.get("print")!,
    desc,
    inputs: [],
  }));
  const layout = new BlockLayout(create(BlockDescSchema, { idx: 0 }));
  return { idx: 0, layout, ops };
}

/** Runs `fn` as the main thread of a fresh scheduler. */
function inThread(
  fn: (ctx: ThreadContext, scheduler: Scheduler) => unknown,
): Promise<void> {
  const scheduler = new Scheduler({ seed: 1, threadContext: false });
  const run = { scheduler, device: cpuDevice, seed: 1, print: () => {} };
  return scheduler.run((thread) => fn(threadContext(run, thread), scheduler));
}

const later = <T>(value: T) =>
  new Promise<T>((resolve) => setTimeout(() => resolve(value), 1));

Deno.test("runBlock() runs synchronous ops without a promise", async () => {
  const seen: number[] = [];
  const block = blockOf([
    { run: () => void seen.push(0), resume: undefined },
    { run: () => void seen.push(1), resume: undefined },
  ]);
  await inThread((ctx) => {
    assertEquals(runBlock(block, new Scope(block.layout), ctx), undefined);
  });
  assertEquals(seen, [0, 1]);
});

Deno.test("runBlock() hands a resumable op's value to its resume, then runs on", async () => {
  const seen: unknown[] = [];
  const block = blockOf([
    { run: () => later(41), resume: (_s, v) => void seen.push(["resume", v]) },
    { run: () => later(undefined), resume: undefined },
    { run: () => void seen.push("last"), resume: undefined },
  ]);
  await inThread(async (ctx) => {
    const pending = runBlock(block, new Scope(block.layout), ctx);
    assert(pending instanceof Promise);
    await pending;
  });
  assertEquals(seen, [["resume", 41], "last"]);
});

Deno.test("runBlock() locates a panic in resume at its op", async () => {
  const block = blockOf([
    { run: () => undefined, resume: undefined },
    {
      run: () => later(1),
      resume: () => {
        throw new Error("cannot store");
      },
    },
  ]);
  const e = await assertRejects(
    () => inThread((ctx) => runBlock(block, new Scope(block.layout), ctx)),
    Panic,
  );
  assertEquals([e.message, e.where], [
    "print: cannot store",
    "block 0 op 1 (step)",
  ]);
});

Deno.test("runThreadBlock() runs done at once when no op suspends", async () => {
  let done = 0;
  const block = blockOf([{ run: () => undefined, resume: undefined }]);
  await inThread((ctx) => {
    const result = runThreadBlock(
      block,
      new Scope(block.layout),
      ctx,
      () => done++,
    );
    assertEquals([result, done], [undefined, 1]);
  });
});

Deno.test("runThreadBlock() ends a suspended thread itself, after done", async () => {
  const events: string[] = [];
  const block = blockOf([
    { run: () => later("x"), resume: (_s, v) => void events.push(`got ${v}`) },
  ]);
  await inThread(async (main, scheduler) => {
    const finished = new Promise<void>((resolve) => {
      scheduler.goFrom(main.thread, (thread) => {
        const ctx = { ...main, thread };
        const result = runThreadBlock(
          block,
          new Scope(block.layout),
          ctx,
          () => {
            events.push("done");
            resolve();
          },
        );
        events.push(typeof result);
        return result;
      });
    });
    await finished;
    // The thread ended when its block did: only main is left.
    await later(0);
    assertEquals(scheduler.threads().map((t) => t.id), [main.thread.id]);
  });
  assertEquals(events, ["symbol", "got x", "done"]);
});

Deno.test("runThreadBlock() fails the run with a panic raised after a suspension", async () => {
  const block = blockOf([
    { run: () => later(undefined), resume: undefined },
    {
      run: () => {
        throw new Error("boom");
      },
      resume: undefined,
    },
  ]);
  const e = await assertRejects(
    () =>
      inThread(async (main, scheduler) => {
        scheduler.goFrom(
          main.thread,
          (thread) =>
            runThreadBlock(block, new Scope(block.layout), {
              ...main,
              thread,
            }),
        );
        await new Promise(() => {}); // the panic ends the run
      }),
    Panic,
  );
  assertEquals([e.message, e.where], ["print: boom", "block 0 op 1 (step)"]);
  assertEquals(e.thread?.id, 2);
});
