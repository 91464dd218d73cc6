// The `go` op as programs (docs/architecture.md §3): a block on a new green thread,
// free variables by reference (a Go closure) and `Args` by value (a Go
// call's arguments); long chains and many consumers, after Go's
// test/chan/goroutines.go and runtime/chan_test.go's TestMultiConsumer; a
// panic in a goroutine ends the run naming the goroutine's op; a `go`
// without a block is invalid.

import { create } from "@bufbuild/protobuf";
import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
} from "@std/assert";
import {
  arrayLength,
  arrayToTensor,
  arrayWrite,
  assign,
  AttrType,
  closeChannel,
  createArray,
  defaultProgram,
  elementwiseAdd,
  elementwiseMul,
  equal,
  Executor,
  fillConstant,
  forRange,
  go,
  ifElse,
  increment,
  lessThan,
  makeChannel,
  parallelFor,
  print,
  ProgramError,
  recv,
  recvOk,
  send,
  sleep,
  VarType_Type,
  whileLoop,
} from "../../../mod.ts";
import { ProgramDescSchema } from "../../../gen/rill/v1/framework_pb.ts";
import { Deadlock, Panic } from "../../../scheduler/mod.ts";
import { int64 } from "../../_helpers/int64.ts";
import { locationOf } from "../../_helpers/location_of.ts";
import { buildProgram, printedBy } from "../../_helpers/run_program.ts";
import { within } from "../../_helpers/within.ts";
import { TEST_WORKERS } from "../../_helpers/test_workers.ts";
import { assertSameThreads } from "../../_helpers/pool_dump.ts";

Deno.test("go() runs its block on a new green thread", async () => {
  const lines = await printedBy(() => {
    const ch = makeChannel({ dtype: "int64" });
    go(() => send(ch, int64(99)));
    print(recv(ch));
  });
  assertEquals(lines, ["99"]);
});

Deno.test(
  "go() binds Args by value and free variables by reference",
  async () => {
    const lines = await printedBy(() => {
      const arg = int64(1);
      const free = int64(1);
      const sync = makeChannel({ dtype: "int64" });
      const done = makeChannel({ dtype: "int64" });
      go(() => {
        recv(sync);
        print(arg, { message: "arg" });
        print(free, { message: "free" });
        send(done, arg);
      }, { args: [arg] });
      // Written after the spawn, before the channel sync.
      fillConstant({ shape: [1], dtype: "int64", value: 2, out: arg });
      fillConstant({ shape: [1], dtype: "int64", value: 2, out: free });
      send(sync, int64(0));
      print(recv(done), { message: "sent back" });
    });
    assertEquals(lines, ["arg 1", "free 2", "sent back 1"]);
  },
);

Deno.test(
  "go() writes to a free variable reach the spawner; writes to an Arg do not",
  async () => {
    const lines = await printedBy(() => {
      const arg = int64(10);
      const free = int64(10);
      const done = makeChannel({ dtype: "int64" });
      go(() => {
        increment(arg);
        increment(free);
        send(done, arg);
      }, { args: [arg] });
      print(recv(done), { message: "goroutine's arg" });
      print(arg, { message: "spawner's arg" });
      print(free, { message: "free" });
    });
    assertEquals(lines, ["goroutine's arg 11", "spawner's arg 10", "free 11"]);
  },
);

Deno.test("go() in a loop gives each goroutine its own Arg", async () => {
  const lines = await printedBy(() => {
    const ch = makeChannel({ dtype: "int64" });
    forRange(5, (i) => go(() => send(ch, i), { args: [i] }));
    const total = int64(0);
    forRange(5, () => elementwiseAdd(total, recv(ch), { out: total }));
    print(total);
  });
  assertEquals(lines, ["10"]); // 0 + 1 + 2 + 3 + 4
});

Deno.test("go() chains 10,000 goroutines, each adding 1", async () => {
  const lines = await printedBy(() => {
    const n = int64(10_000);
    const leftmost = makeChannel({ dtype: "int64", name: "leftmost" });
    const left = assign(leftmost);
    const i = int64(0);
    const more = lessThan(i, n);
    whileLoop(more, () => {
      const right = makeChannel({ dtype: "int64" });
      go(() => send(left, elementwiseAdd(recv(right), int64(1))), {
        args: [left, right],
      });
      assign(right, { out: left });
      increment(i);
      lessThan(i, n, { out: more });
    });
    go(() => send(left, int64(1)), { args: [left] });
    print(recv(leftmost));
  });
  assertEquals(lines, ["10001"]);
});

Deno.test(
  "go() consumers of one channel see every value once (TestMultiConsumer)",
  async () => {
    const workers = 23;
    const values = 2_000;
    const lines = await printedBy(() => {
      const q = makeChannel({ capacity: workers * 2, dtype: "int64" });
      const counts = makeChannel({ dtype: "int64" });
      const sums = makeChannel({ dtype: "int64" });
      for (let w = 0; w < workers; w++) {
        go(() => {
          const count = int64(0);
          const sum = int64(0);
          const [v, ok] = recvOk(q);
          whileLoop(ok, () => {
            increment(count);
            elementwiseAdd(sum, v, { out: sum });
            recv(q, { out: v, status: ok });
          });
          send(counts, count);
          send(sums, sum);
        });
      }
      forRange(values, (i) => send(q, i));
      closeChannel(q);
      const count = int64(0);
      const sum = int64(0);
      forRange(workers, () => {
        elementwiseAdd(count, recv(counts), { out: count });
        elementwiseAdd(sum, recv(sums), { out: sum });
      });
      print(count, { message: "count" });
      print(sum, { message: "sum" });
    });
    assertEquals(lines, [
      `count ${values}`,
      `sum ${(values * (values - 1)) / 2}`,
    ]);
  },
);

Deno.test("go() goroutine's panic ends the run, naming its op and thread", async () => {
  const [program] = buildProgram(() => {
    const never = makeChannel({ name: "never" });
    const nil = defaultProgram().currentBlock.createVar({
      kind: "channel",
      name: "nil_channel",
    });
    go(() => closeChannel(nil));
    recv(never);
  });
  const panic: Panic = await assertRejects(
    () => new Executor({ workers: TEST_WORKERS, print: () => {} }).run(program),
    Panic,
  );
  assertEquals(panic.message, "close of nil channel");
  assertEquals(panic.where, "block 1 op 0 channel_close");
  assertEquals(panic.thread?.id, 2);
  assertEquals(panic.thread?.createdAt, locationOf(program, 0, "go"));
});

Deno.test("go() with an Arg read before it was written panics at the go", async () => {
  const [program] = buildProgram(() => {
    const x = defaultProgram().currentBlock.createVar({
      name: "unset",
      dtype: "int64",
      shape: [1],
    });
    go(() => print(x), { args: [x] });
  });
  const panic: Panic = await assertRejects(
    () => new Executor({ workers: TEST_WORKERS, print: () => {} }).run(program),
    Panic,
  );
  assertEquals(panic.message, `variable "unset" read before it was written`);
  assertEquals(panic.where, locationOf(program, 0, "go"));
});

Deno.test("go() goroutines blocked forever with main blocked is a deadlock naming creators", async () => {
  const [program] = buildProgram(() => {
    const ch = makeChannel({ dtype: "int64" });
    go(() => {
      recv(ch);
    });
    go(() => {
      recv(ch);
    });
    recv(ch);
  });
  const deadlock: Deadlock = await assertRejects(
    () => new Executor({ workers: TEST_WORKERS }).run(program),
    Deadlock,
  );
  assertSameThreads(deadlock.threads, [
    [1, "chan receive", locationOf(program, 0, "channel_recv"), undefined],
    [
      2,
      "chan receive",
      "block 1 op 0 channel_recv",
      locationOf(program, 0, "go", 0),
    ],
    [
      3,
      "chan receive",
      "block 2 op 0 channel_recv",
      locationOf(program, 0, "go", 1),
    ],
  ]);
});

/** A program whose block 0 has one `go` op with the given attributes. */
function goProgram(
  attrs: { name: string; type: AttrType; blockIdx?: number }[],
) {
  return create(ProgramDescSchema, {
    blocks: [
      {
        idx: 0,
        parentIdx: -1,
        vars: [{ name: "ch", type: { type: VarType_Type.CHANNEL } }],
        ops: [{ type: "go", attrs }],
      },
      { idx: 1, parentIdx: 0 },
      { idx: 2, parentIdx: 1 },
    ],
  });
}

Deno.test("validate() rejects a go without a sub_block attribute", async () => {
  const error: ProgramError = await assertRejects(
    () => new Executor({ workers: TEST_WORKERS }).run(goProgram([])),
    ProgramError,
  );
  assertEquals(error.where, {
    file: undefined,
    block: 0,
    op: 0,
    opType: "go",
    attr: "sub_block",
  });
  assert(error.message.includes("sub_block"), error.message);
});

Deno.test("validate() rejects a go whose sub_block is not its child", async () => {
  for (const blockIdx of [0, 2, 9]) {
    const error: ProgramError = await assertRejects(
      () =>
        new Executor({ workers: TEST_WORKERS }).run(
          goProgram([{ name: "sub_block", type: AttrType.BLOCK, blockIdx }]),
        ),
      ProgramError,
    );
    assertEquals(error.where.opType, "go");
    assert(error.message.includes("sub_block"), error.message);
  }
});

Deno.test("validate() rejects a go whose sub_block has the wrong attribute type", async () => {
  const error: ProgramError = await assertRejects(
    () =>
      new Executor({ workers: TEST_WORKERS }).run(
        goProgram([{ name: "sub_block", type: AttrType.STRING }]),
      ),
    ProgramError,
  );
  assertEquals(error.where.opType, "go");
});

Deno.test("go() in a while body sees that pass's own locals", async () => {
  const lines = await printedBy(() => {
    const ch = makeChannel({ capacity: 5, dtype: "int64" });
    forRange(5, (i) => {
      const mine = assign(i); // declared in the loop body: fresh each pass
      go(() => {
        sleep(1); // runs after the loop has moved on
        send(ch, mine);
      });
    });
    const total = int64(0);
    forRange(5, () => elementwiseAdd(total, recv(ch), { out: total }));
    print(total);
  });
  assertEquals(lines, ["10"]); // 0 + 1 + 2 + 3 + 4, not 5 × 4
});

Deno.test("go() goroutine's panic ends the run while main sleeps", async () => {
  const [program] = buildProgram(() => {
    const nil = defaultProgram().currentBlock.createVar({
      kind: "channel",
      name: "nil_channel",
    });
    go(() => closeChannel(nil));
    sleep(3_600_000);
  });
  // A guard, not a measurement: the run ends in milliseconds, or never.
  const panic: Panic = await assertRejects(
    () => within(20_000, new Executor({ workers: TEST_WORKERS }).run(program)),
    Panic,
  );
  assertEquals([panic.message, panic.thread?.id], ["close of nil channel", 2]);
  assertStringIncludes(panic.dump, "goroutine 1 [sleep]:");
});

Deno.test("go() goroutine that would panic after main ends never does", async () => {
  const lines = await printedBy(() => {
    const nil = defaultProgram().currentBlock.createVar({
      kind: "channel",
      name: "nil_channel",
    });
    go(() => {
      sleep(5);
      closeChannel(nil);
    });
    print(int64(1), { message: "main done" });
  });
  assertEquals(lines, ["main done 1"]);
});

// ---------------------------------------------------------------------------
// parallel_for

Deno.test("parallelFor() writes each iteration's result into one shared array", async () => {
  const lines = await printedBy(() => {
    const ys = createArray({ dtype: "int64" });
    parallelFor(5, (index) => {
      arrayWrite(elementwiseMul(index, index), index, ys);
    });
    print(arrayToTensor(ys));
  });
  assertEquals(lines, ["[0, 1, 4, 9, 16]"]);
});

Deno.test("parallelFor() takes its count from a Num tensor when given one", async () => {
  const lines = await printedBy(() => {
    const n = fillConstant({ shape: [1], dtype: "int32", value: 3 });
    const ys = createArray({ dtype: "int64" });
    parallelFor(n, (index) => arrayWrite(index, index, ys));
    print(arrayLength(ys));
  });
  assertEquals(lines, ["3"]);
});

Deno.test("parallelFor() runs its iterations concurrently", async () => {
  // Iteration 0 waits for a value only iteration 1 sends: run one after
  // the other, they would deadlock.
  const lines = await printedBy(() => {
    const ch = makeChannel({ dtype: "int64" });
    const got = createArray({ dtype: "int64" });
    parallelFor(2, (index) => {
      const first = equal(index, int64(0));
      ifElse(first, () => arrayWrite(recv(ch), index, got), () => {
        send(ch, int64(42));
        arrayWrite(index, index, got);
      });
    });
    print(arrayToTensor(got));
  });
  assertEquals(lines, ["[42, 1]"]);
});

Deno.test("parallelFor() with zero iterations runs nothing", async () => {
  const lines = await printedBy(() => {
    parallelFor(0, () => print(int64(1), { message: "ran" }));
    print(int64(2), { message: "after" });
  });
  assertEquals(lines, ["after 2"]);
});

for (
  const [what, value, dtype] of [
    ["negative", -1, "int64"],
    ["non-integer", 2.5, "float32"],
  ] as const
) {
  Deno.test(`parallelFor() with a ${what} count panics naming the op`, async () => {
    const [program] = buildProgram(() => {
      const n = fillConstant({ shape: [1], dtype, value });
      parallelFor(n, (index) => print(index));
    });
    const panic: Panic = await assertRejects(
      () =>
        new Executor({ workers: TEST_WORKERS, print: () => {} }).run(program),
      Panic,
    );
    assertStringIncludes(
      panic.message,
      `parallel_for: count ${value} is not a non-negative integer`,
    );
    assertEquals(panic.where, locationOf(program, 0, "parallel_for"));
  });
}

Deno.test("parallelFor() iteration's panic ends the run with its location", async () => {
  const [program] = buildProgram(() => {
    const nil = defaultProgram().currentBlock.createVar({
      kind: "channel",
      name: "nil_channel",
    });
    parallelFor(3, () => closeChannel(nil));
  });
  const panic: Panic = await assertRejects(
    () => new Executor({ workers: TEST_WORKERS, print: () => {} }).run(program),
    Panic,
  );
  assertEquals(panic.message, "close of nil channel");
  assertEquals(panic.where, "block 1 op 0 channel_close");
  assertEquals(
    panic.thread?.createdAt,
    locationOf(program, 0, "parallel_for"),
  );
});

Deno.test("parallelFor() whose iterations all block is a deadlock, the op waiting in its group", async () => {
  const [program] = buildProgram(() => {
    const ch = makeChannel({ dtype: "int64" });
    parallelFor(2, () => {
      recv(ch);
    });
  });
  const deadlock: Deadlock = await assertRejects(
    () => new Executor({ workers: TEST_WORKERS, print: () => {} }).run(program),
    Deadlock,
  );
  const pfor = locationOf(program, 0, "parallel_for");
  assertSameThreads(deadlock.threads, [
    [1, "sync.WaitGroup.Wait", pfor, undefined],
    [2, "chan receive", "block 1 op 0 channel_recv", pfor],
    [3, "chan receive", "block 1 op 0 channel_recv", pfor],
  ]);
});

Deno.test("validate() rejects a parallel_for with neither Num nor num", async () => {
  const [program] = buildProgram(() => parallelFor(2, () => {}));
  const op = program.desc.blocks[0].ops[0];
  op.attrs = op.attrs.filter((a) => a.name !== "num");
  const error: ProgramError = await assertRejects(
    () => new Executor({ workers: TEST_WORKERS }).run(program),
    ProgramError,
  );
  assertStringIncludes(error.message, "needs a Num input or a num attribute");
});

Deno.test("validate() rejects a parallel_for whose index_var its block does not declare", async () => {
  const [program] = buildProgram(() => parallelFor(2, () => {}));
  program.desc.blocks[1].vars = [];
  const error: ProgramError = await assertRejects(
    () => new Executor({ workers: TEST_WORKERS }).run(program),
    ProgramError,
  );
  assertStringIncludes(error.message, "is not declared in block 1");
});
