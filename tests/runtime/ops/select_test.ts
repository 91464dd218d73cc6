// The `select` op as programs (docs/architecture.md §3–4): default only when nothing is
// ready, nil channels never ready, a receive on a closed channel ready, send
// values read once, a uniformly random and seedable choice (Go's
// TestSelectFairness), no stale waiters (select6), no self-pairing
// (TestSelfSelect), and validation of the case strings.

import { create } from "@bufbuild/protobuf";
import {
  assert,
  assertEquals,
  assertNotEquals,
  assertRejects,
  assertStringIncludes,
} from "@std/assert";
import {
  AttrType,
  closeChannel,
  elementwiseAdd,
  equal,
  Executor,
  fillConstant,
  forRange,
  go,
  ifElse,
  increment,
  makeChannel,
  print,
  ProgramError,
  recv,
  select,
  send,
  sleep,
  Tensor,
  VarType_Type,
} from "../../../mod.ts";
import { ProgramDescSchema } from "../../../gen/rill/v1/framework_pb.ts";
import { Deadlock, Panic } from "../../../scheduler/mod.ts";
import { int64 } from "../../_helpers/int64.ts";
import { nilChannel } from "../../_helpers/nil_channel.ts";
import { buildProgram, printedBy } from "../../_helpers/run_program.ts";
import { TEST_WORKERS } from "../../_helpers/test_workers.ts";

/** Prints `message` (with a 0) when it runs. */
function say(message: string): void {
  print(int64(0), { message });
}

Deno.test("select() takes default when no case is ready, the case once one is", async () => {
  const lines = await printedBy(() => {
    const ch = makeChannel({ capacity: 1, dtype: "int64" });
    const choose = () =>
      select((s) => {
        s.recv(ch, (v, ok) => {
          print(v, { message: "received" });
          print(ok, { message: "ok" });
        });
        s.default(() => say("default"));
      });
    choose();
    send(ch, int64(42));
    choose();
    choose();
  });
  assertEquals(lines, [
    "default 0",
    "received 42",
    "ok true",
    "default 0",
  ]);
});

Deno.test("select() send case sends when there is room, else default", async () => {
  const lines = await printedBy(() => {
    const ch = makeChannel({ capacity: 1, dtype: "int64" });
    const seven = int64(7);
    for (let k = 0; k < 2; k++) {
      select((s) => {
        s.send(ch, seven, () => say("sent"));
        s.default(() => say("full"));
      });
    }
    print(recv(ch));
  });
  assertEquals(lines, ["sent 0", "full 0", "7"]);
});

Deno.test("select() on only nil channels takes default", async () => {
  const lines = await printedBy(() => {
    const a = nilChannel("nil_a");
    const b = nilChannel("nil_b");
    select((s) => {
      s.recv(a, () => say("a"));
      s.send(b, int64(1), () => say("b"));
      s.default(() => say("default"));
    });
  });
  assertEquals(lines, ["default 0"]);
});

Deno.test("select() on only nil channels without default blocks forever", async () => {
  const [program] = buildProgram(() => {
    const a = nilChannel("nil_a");
    select((s) => {
      s.recv(a);
      s.send(a, int64(1));
    });
  });
  const deadlock: Deadlock = await assertRejects(
    () => new Executor({ workers: TEST_WORKERS }).run(program),
    Deadlock,
  );
  const at = program.desc.blocks[0].ops.findIndex((op) => op.type === "select");
  assertEquals(
    deadlock.dump,
    `goroutine 1 [select]:\n\tblock 0 op ${at} select`,
  );
});

Deno.test("select() with no cases blocks forever", async () => {
  const [program] = buildProgram(() => select(() => {}));
  const deadlock: Deadlock = await assertRejects(
    () => new Executor({ workers: TEST_WORKERS }).run(program),
    Deadlock,
  );
  assertEquals(
    deadlock.dump,
    "goroutine 1 [select (no cases)]:\n\tblock 0 op 0 select",
  );
});

Deno.test("select() receive on a closed channel is ready", async () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const lines = await printedBy(() => {
      const ch = makeChannel({ dtype: "int64" });
      closeChannel(ch);
      select((s) => {
        s.recv(ch, (v, ok) => {
          print(v, { message: "value" });
          print(ok, { message: "ok" });
        });
        s.default(() => say("default"));
      });
    }, { seed });
    assertEquals(lines, ["value 0", "ok false"], `seed ${seed}`);
  }
});

Deno.test("select() send on a closed channel panics", async () => {
  const [program] = buildProgram(() => {
    const ch = makeChannel({ capacity: 1, dtype: "int64" });
    closeChannel(ch);
    select((s) => {
      s.send(ch, int64(1));
      s.default(() => say("default"));
    });
  });
  const panic: Panic = await assertRejects(
    () => new Executor({ workers: TEST_WORKERS, print: () => {} }).run(program),
    Panic,
  );
  assertEquals(panic.message, "send on closed channel");
  const at = program.desc.blocks[0].ops.findIndex((op) => op.type === "select");
  assertEquals(panic.where, `block 0 op ${at} select`);
});

Deno.test("select() send of another dtype on a typed channel panics naming both", async () => {
  const [program] = buildProgram(() => {
    const ch = makeChannel({ capacity: 1, dtype: "int32" });
    select((s) => s.send(ch, fillConstant({ shape: [1], value: 1 })));
  });
  const panic: Panic = await assertRejects(
    () => new Executor({ workers: TEST_WORKERS }).run(program),
    Panic,
  );
  assert(
    panic.message.includes("int32") && panic.message.includes("float32"),
    panic.message,
  );
});

Deno.test("select() reads a send value once, when it starts", async () => {
  const lines = await printedBy(() => {
    const ch = makeChannel({ dtype: "int64" });
    const x = int64(1);
    go(() => {
      sleep(1); // the select is parked by now; the result does not depend on it
      fillConstant({ shape: [1], dtype: "int64", value: 2, out: x });
      print(recv(ch), { message: "received" });
    });
    select((s) => s.send(ch, x, () => say("sent")));
    sleep(1);
  });
  assertEquals(lines.sort(), ["received 1", "sent 0"]);
});

Deno.test("select() parked on two channels leaves no waiter on the one not taken", async () => {
  const lines = await printedBy(() => {
    const a = makeChannel({ dtype: "int64" });
    const b = makeChannel({ dtype: "int64" });
    go(() => send(a, int64(1)));
    select((s) => {
      s.recv(a, (v) => print(v, { message: "a" }));
      s.recv(b, (v) => print(v, { message: "b" }));
    });
    // A stale waiter on b would take this send and strand the receiver.
    const done = makeChannel({ dtype: "int64" });
    go(() => {
      print(recv(b), { message: "receiver got" });
      send(done, int64(0));
    });
    send(b, int64(7));
    recv(done);
  });
  assertEquals(lines, ["a 1", "receiver got 7"]);
});

Deno.test("select() with the same channel in two cases works (TestSelectDuplicateChannel)", async () => {
  const lines = await printedBy(() => {
    const c = makeChannel({ dtype: "int64" });
    const d = makeChannel({ dtype: "int64" });
    const done = makeChannel({ dtype: "int64" });
    go(() => {
      select((s) => {
        s.recv(c, () => say("first"));
        s.recv(c, () => say("second"));
        s.recv(d, () => say("d"));
      });
      send(done, int64(0));
    });
    sleep(1);
    send(c, int64(8));
    recv(done);
  });
  assertEquals(lines.length, 1);
  assert(["first 0", "second 0"].includes(lines[0]), lines[0]);
});

Deno.test("select() never pairs a send with its own receive (TestSelfSelect)", async () => {
  const lines = await printedBy(() => {
    const c = makeChannel({ dtype: "int64" });
    const done = makeChannel({ capacity: 2, dtype: "int64" });
    const selfReceives = int64(0);
    for (const p of [0, 1]) {
      go(() => {
        const me = int64(p);
        forRange(200, () =>
          select((s) => {
            s.send(c, me);
            s.recv(c, (v) =>
              ifElse(equal(v, me), () => {
                increment(selfReceives);
              }));
          }));
        send(done, me);
      });
    }
    recv(done);
    recv(done);
    print(selfReceives, { message: "self receives" });
  });
  assertEquals(lines, ["self receives 0"]);
});

Deno.test("select() parked on a receive is woken by a close with ok false", async () => {
  const lines = await printedBy(() => {
    const ch = makeChannel({ dtype: "int64" });
    const other = makeChannel({ dtype: "int64" });
    go(() => {
      sleep(1); // the select is parked by now; the result does not depend on it
      closeChannel(ch);
    });
    select((s) => {
      s.recv(ch, (v, ok) => {
        print(v, { message: "value" });
        print(ok, { message: "ok" });
      });
      s.recv(other, () => say("other"));
    });
  });
  assertEquals(lines, ["value 0", "ok false"]);
});

Deno.test("select() parked on two sends leaves no waiter on the one not taken", async () => {
  const lines = await printedBy(() => {
    const a = makeChannel({ dtype: "int64" });
    const b = makeChannel({ dtype: "int64" });
    const done = makeChannel({ dtype: "int64" });
    go(() => {
      sleep(1);
      print(recv(a), { message: "a got" });
      send(done, int64(0));
    });
    select((s) => {
      s.send(a, int64(1));
      s.send(b, int64(2));
    });
    // A stale sender on b would make this receive ready.
    select((s) => {
      s.recv(b, (v) => print(v, { message: "stale" }));
      s.default(() => say("nothing on b"));
    });
    recv(done);
  });
  assertEquals(lines.sort(), ["a got 1", "nothing on b 0"]);
});

Deno.test("select() sends meet select() receives (doubleselect)", async () => {
  const n = 1_000;
  const lines = await printedBy(() => {
    const channels = [0, 1, 2].map(() => makeChannel({ dtype: "int64" }));
    go(() =>
      forRange(n, (i) =>
        select((s) => {
          for (const c of channels) s.send(c, i);
        }))
    );
    const total = int64(0);
    forRange(n, () =>
      select((s) => {
        for (const c of channels) {
          s.recv(c, (v) => elementwiseAdd(total, v, { out: total }));
        }
      }));
    print(total, { message: "sum" });
  });
  assertEquals(lines, [`sum ${(n * (n - 1)) / 2}`]);
});

Deno.test("select() panic in a case body names the op inside the case", async () => {
  const [program] = buildProgram(() => {
    const ch = makeChannel({ capacity: 1, dtype: "int64" });
    send(ch, int64(1));
    const nil = nilChannel("nil_channel");
    select((s) => s.recv(ch, () => closeChannel(nil)));
  });
  const panic: Panic = await assertRejects(
    () => new Executor({ workers: TEST_WORKERS }).run(program),
    Panic,
  );
  const select0 = program.desc.blocks[0].ops.find((op) =>
    op.type === "select"
  )!;
  const body = select0.attrs.find((a) => a.name === "sub_blocks")!.blocksIdx[0];
  assertEquals(panic.message, "close of nil channel");
  assertEquals(panic.where, `block ${body} op 0 channel_close`);
});

/** Picks between two always-ready channels `n` times; prints "a"/"b". */
function twoReadyChannels(n: number): () => void {
  return () => {
    const a = makeChannel({ dtype: "int64" });
    const b = makeChannel({ dtype: "int64" });
    closeChannel(a);
    closeChannel(b);
    forRange(n, () =>
      select((s) => {
        s.recv(a, () => say("a"));
        s.recv(b, () => say("b"));
      }));
  };
}

Deno.test("select() chooses uniformly among ready cases (TestSelectFairness)", async () => {
  for (const seed of [1, 7, 12345]) {
    const lines = await printedBy(twoReadyChannels(2_000), { seed });
    assertEquals(lines.length, 2_000);
    const a = lines.filter((l) => l === "a 0").length;
    assert(a >= 800 && a <= 1_200, `seed ${seed}: case a chosen ${a} times`);
  }
});

Deno.test("select() chooses uniformly among four ready cases", async () => {
  const lines = await printedBy(() => {
    const channels = [0, 1, 2, 3].map(() => makeChannel({ dtype: "int64" }));
    for (const c of channels) closeChannel(c);
    forRange(
      4_000,
      () =>
        select((s) =>
          channels.forEach((c, k) => s.recv(c, () => print(int64(k))))
        ),
    );
  }, { seed: 3 });
  for (const k of ["0", "1", "2", "3"]) {
    const n = lines.filter((l) => l === k).length;
    // Binomial(4000, 1/4): mean 1000, sd 27; the bounds are 7 sd out.
    assert(n >= 800 && n <= 1_200, `case ${k} chosen ${n} times`);
  }
});

Deno.test("select() picks randomly among ready sends (TestPseudoRandomSend)", async () => {
  const lines = await printedBy(() => {
    const c = makeChannel({ capacity: 100, dtype: "int64" });
    const zero = int64(0);
    const one = int64(1);
    forRange(100, () =>
      select((s) => {
        s.send(c, zero);
        s.send(c, one);
      }));
    const ones = int64(0);
    forRange(100, () => elementwiseAdd(ones, recv(c), { out: ones }));
    print(ones, { message: "ones" });
  });
  const ones = Number(lines[0].split(" ")[1]);
  assert(ones > 10 && ones < 90, `${ones} of 100 sends were of 1`);
});

Deno.test("select() makes the same choices for the same seed", async () => {
  const first = await printedBy(twoReadyChannels(500), { seed: 7 });
  const again = await printedBy(twoReadyChannels(500), { seed: 7 });
  const other = await printedBy(twoReadyChannels(500), { seed: 8 });
  assertEquals(again, first);
  assertNotEquals(other, first);
});

/**
 * A program whose block 0 declares `ch` (channel), `x` (int64 tensor), `v`
 * and `ok` (tensors), and whose one op is a select with these cases and
 * sub-blocks; blocks 1..blockCount are children of block 0.
 */
function selectProgram(
  cases: string[],
  subBlocks: number[],
  blockCount = subBlocks.length,
) {
  const tensor = (name: string, dataType: VarType_Type) => ({
    name,
    type: {
      type: VarType_Type.LOD_TENSOR,
      lodTensor: { tensor: { dataType, dims: [1n] } },
    },
  });
  return create(ProgramDescSchema, {
    blocks: [
      {
        idx: 0,
        parentIdx: -1,
        vars: [
          { name: "ch", type: { type: VarType_Type.CHANNEL } },
          tensor("x", VarType_Type.INT64),
          tensor("v", VarType_Type.INT64),
          tensor("ok", VarType_Type.BOOL),
        ],
        ops: [{
          type: "select",
          attrs: [
            { name: "cases", type: AttrType.STRINGS, strings: cases },
            { name: "sub_blocks", type: AttrType.BLOCKS, blocksIdx: subBlocks },
          ],
        }],
      },
      ...Array.from({ length: blockCount }, (_, i) => ({
        idx: i + 1,
        parentIdx: 0,
      })),
    ],
  });
}

Deno.test("selectProgram() builds a valid select when its cases are right", async () => {
  const lines: string[] = [];
  const { scope } = await new Executor({
    workers: TEST_WORKERS,
    print: (l) => lines.push(l),
  }).run(
    selectProgram(["recv,ch,v,ok", "send,ch,x,", "default,,,"], [1, 2, 3]),
    { feeds: { x: Tensor.fromArray([1n], "int64", [1]) } },
  );
  // ch is nil, so only the default is ready; its empty block prints nothing.
  assertEquals([lines, scope.get("v")], [[], undefined]);
});

// What is wrong, the case strings, the sub-blocks, and a name the error
// must mention.
const INVALID_SELECTS: [string, string[], number[], string][] = [
  ["two defaults", ["default,,,", "default,,,"], [1, 2], "default"],
  ["an unknown kind", ["peek,ch,,"], [1], `"peek,ch,,"`],
  ["too few fields", ["recv,ch"], [1], `"recv,ch"`],
  ["too many fields", ["recv,ch,v,ok,"], [1], `"recv,ch,v,ok,"`],
  ["a send with no value", ["send,ch,,"], [1], `"send,ch,,"`],
  ["a receive with no channel", ["recv,,v,ok"], [1], `"recv,,v,ok"`],
  ["a default naming a channel", ["default,ch,,"], [1], `"default,ch,,"`],
  ["a channel naming a tensor", ["recv,x,v,ok"], [1], `"x"`],
  ["a value naming a channel", ["send,ch,ch,"], [1], `"ch"`],
  ["an undeclared channel", ["recv,nope,,"], [1], `"nope"`],
  [
    "fewer sub_blocks than cases",
    ["recv,ch,,", "default,,,"],
    [1],
    "sub_blocks",
  ],
  ["more sub_blocks than cases", ["recv,ch,,"], [1, 2], "sub_blocks"],
];

for (const [what, cases, subBlocks, named] of INVALID_SELECTS) {
  Deno.test(`validate() rejects a select with ${what}`, async () => {
    const program = selectProgram(cases, subBlocks, 2);
    const error: ProgramError = await assertRejects(
      () => new Executor({ workers: TEST_WORKERS }).run(program),
      ProgramError,
    );
    assertEquals(error.where, {
      file: undefined,
      block: 0,
      op: 0,
      opType: "select",
    });
    assertStringIncludes(error.message, named);
  });
}

Deno.test("validate() rejects a builder select with two defaults before running", async () => {
  const lines: string[] = [];
  const [program] = buildProgram(() => {
    say("must not print");
    select((s) => {
      s.default();
      s.default();
    });
  });
  const error: ProgramError = await assertRejects(
    () =>
      new Executor({ workers: TEST_WORKERS, print: (l) => lines.push(l) }).run(
        program,
      ),
    ProgramError,
  );
  assertEquals(error.where.opType, "select");
  assertEquals(lines, []);
});

Deno.test("validate() rejects a select whose sub_block is not its child", async () => {
  const program = selectProgram(["default,,,"], [2], 2);
  program.blocks[2].parentIdx = 1; // a grandchild of block 0
  const error: ProgramError = await assertRejects(
    () => new Executor({ workers: TEST_WORKERS }).run(program),
    ProgramError,
  );
  assertEquals(error.where.opType, "select");
  assertStringIncludes(error.message, "sub_blocks");
});
