// The block runner on hand-made prepared blocks: ops that complete at once,
// ops that suspend (plain promises, and resumable ops whose value goes to
// `resume`), a panic before and after a suspension located at its op, and a
// thread's block that ends its thread itself; sub-blocks that suspend
// (runSubBlock) and hand back to the op that ran them, and operations
// parked on the thread's resumer, blocks deep.

import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertRejects,
  assertStringIncludes,
} from "@std/assert";
import { create } from "@bufbuild/protobuf";
import {
  BlockDescSchema,
  OpDescSchema,
} from "../../../gen/rill/v1/framework_pb.ts";
import { cpuDevice } from "../../../kernels/cpu/device.ts";
import { Panic } from "../../../scheduler/panic.ts";
import { Scheduler } from "../../../scheduler/scheduler.ts";
import {
  runBlock,
  runSubBlock,
  runThreadBlock,
} from "../../../runtime/exec/block_runner.ts";
import { Channel, PARKED } from "../../../scheduler/mod.ts";
import { InternalError } from "../../../runtime/core/errors.ts";
import { OPS } from "../../../runtime/ops/mod.ts";
import type {
  PreparedBlock,
  PreparedOp,
} from "../../../runtime/core/prepared_block.ts";
import type { ThreadContext } from "../../../runtime/core/thread_context.ts";
import { threadContext } from "../../../runtime/exec/thread_context.ts";
import { BlockLayout, Scope } from "../../../runtime/core/scope.ts";

type Step = Pick<PreparedOp, "run" | "resume">;

/** Block `idx` of ops made from run (and resume) functions. */
function blockOf(steps: readonly Step[], idx = 0): PreparedBlock {
  const desc = create(OpDescSchema, { type: "print" });
  const ops = steps.map((step, i): PreparedOp => ({
    run: step.run,
    resume: step.resume,
    location: `block ${idx} op ${i} (step)`,
    def: OPS.get("print")!,
    desc,
    inputs: [],
  }));
  const layout = new BlockLayout(create(BlockDescSchema, { idx }));
  return { idx, layout, ops, keepsScope: false };
}

/** Runs `fn` as the main thread of a fresh scheduler. */
function inThread(
  fn: (ctx: ThreadContext, scheduler: Scheduler) => unknown,
): Promise<void> {
  const scheduler = new Scheduler({ seed: 1, threadContext: false });
  const run = { scheduler, device: cpuDevice, seed: 1, print: () => {} };
  return scheduler.run((thread) => fn(threadContext(run, thread), scheduler));
}

/** Runs `block` as the whole work of a spawned thread: the panic that ends the run. */
function threadBlockPanic(block: PreparedBlock): Promise<Panic> {
  return assertRejects(
    () =>
      inThread(async (main, scheduler) => {
        scheduler.goFrom(
          main.thread,
          (thread) =>
            runThreadBlock(
              block,
              new Scope(block.layout),
              threadContext(main.run, thread),
            ),
        );
        await new Promise(() => {}); // the panic ends the run
      }),
    Panic,
  );
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
        const ctx = threadContext(main.run, thread);
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
  const e = await threadBlockPanic(block);
  assertEquals([e.message, e.where], ["print: boom", "block 0 op 1 (step)"]);
  assertEquals(e.thread?.id, 2);
});

/** A receive op: logs the value, at once or once resumed. */
function recvOp(ch: Channel<string>, log: unknown[], name: string): Step {
  return {
    run: (_s, ctx) => {
      const got = ch.recv(ctx.resumeAs);
      if (got instanceof Promise) return got;
      log.push(`${name} got ${got}`);
    },
    resume: (_s, v) => void log.push(`${name} got ${v}`),
  };
}

/** An op that runs `sub` as a sub-block and logs what it sees. */
function subBlockOp(sub: PreparedBlock, log: unknown[], name: string): Step {
  return {
    run: (scope, ctx) => {
      const parked = runSubBlock(sub, new Scope(sub.layout, scope), ctx);
      log.push(
        `${name} ran its sub-block: ${parked === PARKED ? "PARKED" : parked}`,
      );
      return parked;
    },
    resume: (_s, v) => void log.push(`${name} resumed with ${v}`),
  };
}

Deno.test("runSubBlock() returns PARKED; the op that ran it resumes once it ends", async () => {
  const log: unknown[] = [];
  const inner = blockOf([
    { run: () => later("x"), resume: (_s, v) => void log.push(`inner ${v}`) },
    { run: () => void log.push("inner end"), resume: undefined },
  ], 1);
  const outer = blockOf([
    subBlockOp(inner, log, "outer"),
    { run: () => void log.push("outer end"), resume: undefined },
  ]);
  await inThread(async (ctx) => {
    const pending = runBlock(outer, new Scope(outer.layout), ctx);
    assert(pending instanceof Promise && pending !== PARKED);
    await pending;
  });
  assertEquals(log, [
    "outer ran its sub-block: PARKED",
    "inner x",
    "inner end",
    "outer resumed with undefined",
    "outer end",
  ]);
});

Deno.test("runSubBlock() runs through a sub-block that does not suspend", async () => {
  const log: unknown[] = [];
  const inner = blockOf([{
    run: () => void log.push("inner"),
    resume: undefined,
  }], 1);
  const outer = blockOf([subBlockOp(inner, log, "outer")]);
  await inThread((ctx) => {
    assertEquals(runBlock(outer, new Scope(outer.layout), ctx), undefined);
  });
  assertEquals(log, ["inner", "outer ran its sub-block: undefined"]);
});

Deno.test("an op whose resume waits again is resumed again: a loop of suspending passes", async () => {
  let passes = 0;
  const pass = blockOf([{ run: () => later(undefined), resume: undefined }], 1);
  const loop = (scope: Scope, ctx: ThreadContext) =>
    ++passes > 3
      ? undefined
      : runSubBlock(pass, new Scope(pass.layout, scope), ctx);
  const block = blockOf([{
    run: loop,
    resume: (scope, _v, ctx) => loop(scope, ctx),
  }]);
  await inThread((ctx) => runBlock(block, new Scope(block.layout), ctx));
  assertEquals(passes, 4);
});

Deno.test("an operation parked on the thread's resumer three blocks deep resumes the innermost", async () => {
  const log: unknown[] = [];
  const ch = new Channel<string>();
  const innermost = blockOf([
    {
      run: (_s, ctx) => {
        const got = ch.recv(ctx.resumeAs);
        log.push(got === PARKED ? "recv PARKED" : got);
        return got as Promise<string>;
      },
      resume: (_s, v) => void log.push(`received ${v}`),
    },
  ], 2);
  const middle = blockOf([subBlockOp(innermost, log, "middle")], 1);
  const outer = blockOf([
    subBlockOp(middle, log, "outer"),
    { run: () => void log.push("outer end"), resume: undefined },
  ]);
  await inThread(async (ctx, scheduler) => {
    const done = runBlock(outer, new Scope(outer.layout), ctx);
    scheduler.go(() => ch.send("hi"));
    await done;
  });
  assertEquals(log, [
    "recv PARKED",
    "middle ran its sub-block: PARKED",
    "outer ran its sub-block: PARKED",
    "received hi",
    "middle resumed with undefined",
    "outer resumed with undefined",
    "outer end",
  ]);
});

Deno.test("a panic in a sub-block after a suspension is located at its op and ends the thread", async () => {
  const inner = blockOf([
    { run: () => later(undefined), resume: undefined },
    {
      run: () => {
        throw new Error("deep");
      },
      resume: undefined,
    },
  ], 1);
  const log: unknown[] = [];
  const outer = blockOf([
    subBlockOp(inner, log, "outer"),
    { run: () => void log.push("never"), resume: undefined },
  ]);
  const e = await threadBlockPanic(outer);
  assertEquals([e.message, e.where], ["print: deep", "block 1 op 1 (step)"]);
  assertEquals(e.thread?.id, 2);
  assertEquals(log, ["outer ran its sub-block: PARKED"]);
});

Deno.test("a send on a channel closed meanwhile fails the parked block at its op", async () => {
  const ch = new Channel<number>();
  const inner = blockOf([
    { run: (_s, ctx) => ch.send(1, ctx.resumeAs), resume: undefined },
  ], 1);
  const outer = blockOf([subBlockOp(inner, [], "outer")]);
  const e = await assertRejects(
    () =>
      inThread(async (ctx, scheduler) => {
        const done = runBlock(outer, new Scope(outer.layout), ctx);
        scheduler.go(() => ch.close());
        await done;
      }),
    Panic,
  );
  assertEquals([e.message, e.where], [
    "send on closed channel",
    "block 1 op 0 (step)",
  ]);
});

Deno.test("runBlock() inside an op's own promise, while the thread's block waits on it", async () => {
  const log: unknown[] = [];
  const ch = new Channel<string>();
  const nested = blockOf([recvOp(ch, log, "nested")], 1);
  const outer = blockOf([
    {
      // An op written as an async function that runs a block itself.
      run: async (scope, ctx) => {
        await later(undefined);
        await runBlock(nested, new Scope(nested.layout, scope), ctx);
        log.push("async op done");
      },
      resume: undefined,
    },
    recvOp(ch, log, "outer"),
  ]);
  await inThread(async (ctx, scheduler) => {
    const done = runBlock(outer, new Scope(outer.layout), ctx);
    scheduler.go(async () => {
      await ch.send("one");
      await ch.send("two");
    });
    await done;
  });
  assertEquals(log, ["nested got one", "async op done", "outer got two"]);
});

Deno.test("an op that drops its sub-block's PARKED fails with an internal error, not a hang", async () => {
  const inner = blockOf(
    [{ run: () => later(undefined), resume: undefined }],
    1,
  );
  // The op returns another promise, or nothing, instead of PARKED.
  for (const instead of [() => later(undefined), () => undefined]) {
    const outer = blockOf([
      { run: () => later(undefined), resume: undefined },
      {
        run: (scope, ctx) => {
          runSubBlock(inner, new Scope(inner.layout, scope), ctx);
          return instead();
        },
        resume: undefined,
      },
    ]);
    let error: unknown;
    await inThread(async (ctx) => {
      await (runBlock(outer, new Scope(outer.layout), ctx) as Promise<void>)
        .catch((e) => error = e);
      await later(undefined); // the lost sub-block ends, going nowhere
    });
    assertInstanceOf(error, InternalError);
    assertStringIncludes(
      (error as InternalError).message,
      "block 0 op 1 (step) did not return its sub-block's PARKED",
    );
  }
});
