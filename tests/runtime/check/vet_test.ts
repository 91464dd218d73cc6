import { create } from "@bufbuild/protobuf";
import { assertEquals } from "@std/assert";
import {
  AttrType,
  ProgramDescSchema,
} from "../../../gen/rill/v1/framework_pb.ts";
import {
  after,
  arrayWrite,
  assign,
  closeChannel,
  createArray,
  defaultProgram,
  fillConstant,
  forRange,
  go,
  ifElse,
  increment,
  lessThan,
  makeChannel,
  parallelFor,
  print,
  Program,
  readProgramFile,
  recv,
  recvOk,
  select,
  send,
  type Variable,
  whileLoop,
} from "../../../mod.ts";
import {
  type VetOptions,
  vetProgram,
  type VetRule,
} from "../../../runtime/check/vet.ts";
import { examplePath, EXAMPLES } from "../../../examples/build.ts";
import { nilChannel } from "../../_helpers/nil_channel.ts";
import { op } from "../../_helpers/desc_init.ts";

/** The findings of a built program, as their one-line messages. */
function vet(build: () => void, options?: VetOptions): string[] {
  const p = new Program();
  p.guard(build);
  return vetProgram(p.desc, options).map((f) => f.message);
}

/** The findings of one rule in a built program. */
function vetRule(rule: VetRule, build: () => void): string[] {
  const p = new Program();
  p.guard(build);
  return vetProgram(p.desc).filter((f) => f.rule === rule).map((f) =>
    f.message
  );
}

/** A block-0 int64 [1] variable named `name`, set to `value`. */
function int(name: string, value = 0): Variable {
  const block = defaultProgram().currentBlock;
  const v = block.createVar({ name, dtype: "int64", shape: [1] });
  return fillConstant({ shape: [1], dtype: "int64", value, out: v });
}

// ---- The examples -----------------------------------------------------------

Deno.test("vetProgram() finds nothing in any example", async () => {
  for (const name of EXAMPLES) {
    const desc = await readProgramFile(examplePath(name));
    assertEquals(vetProgram(desc), [], name);
  }
});

// ---- race -------------------------------------------------------------------

Deno.test("vetProgram() reports a go block and its spawner both rebinding a variable", () => {
  assertEquals(
    vet(() => {
      const x = int("x");
      go(() => increment(x));
      increment(x);
      print(x);
    }),
    [
      'block 1 op 0 (increment): variable "x": data race: the goroutine of ' +
      "block 1 (block 0 op 1 (go)) rebinds it, and so may block 0 op 2 " +
      "(increment), after the spawn",
    ],
  );
});

Deno.test("vetProgram() reports two go blocks rebinding one variable once", () => {
  assertEquals(
    vet(() => {
      const x = int("x");
      go(() => increment(x));
      go(() => increment(x));
    }),
    [
      'block 1 op 0 (increment): variable "x": data race: the goroutine of ' +
      "block 1 (block 0 op 1 (go)) rebinds it, and so may block 2 op 0 " +
      "(increment), on another green thread",
    ],
  );
});

Deno.test("vetProgram() reports a go spawned in a loop rebinding an outer variable", () => {
  const found = vet(() => {
    const x = int("x");
    forRange(3, () => go(() => increment(x)));
  });
  assertEquals(found.length, 1);
  assertEquals(
    found[0].startsWith('block 2 op 0 (increment): variable "x"'),
    true,
  );
  assertEquals(found[0].endsWith("on another green thread"), true);
});

Deno.test("vetProgram() reports a parallel_for whose iterations rebind an outer variable", () => {
  assertEquals(
    vet(() => {
      const total = int("total");
      parallelFor(4, () => increment(total));
      print(total);
    }),
    [
      'block 1 op 0 (increment): variable "total": data race: every ' +
      "iteration of the parallel_for at block 0 op 1 (parallel_for) rebinds it",
    ],
  );
});

Deno.test("vetProgram() finds no race where threads store into a tensor array, write their own variables, or run one at a time", () => {
  assertEquals(
    vet(() => {
      const ys = createArray({ dtype: "int64" });
      parallelFor(4, (i) => arrayWrite(i, i, ys)); // stores, no rebinding
      const x = int("x");
      increment(x); // before the spawn: ordered by the go
      go(() => {
        const own = int("own");
        increment(own);
        print(own);
      });
      const once = int("once");
      parallelFor(1, () => increment(once)); // one iteration
      print(once);
      print(x);
    }),
    [],
  );
});

Deno.test("vetProgram() does not take an if's list of its block's writes for a second writer", () => {
  // The conditional_block's Out lists x because the go inside writes it.
  assertEquals(
    vet(() => {
      const x = int("x");
      const yes = fillConstant({ shape: [1], dtype: "bool", value: true });
      ifElse(yes, () => go(() => increment(x)));
      print(x);
    }),
    [],
  );
});

// ---- late_capture -----------------------------------------------------------

Deno.test("vetProgram() reports a go reading a variable its loop rebinds after the spawn", () => {
  assertEquals(
    vet(() => {
      const ch = makeChannel({ capacity: 3 });
      forRange(3, (i) => go(() => send(ch, i)));
      print(recv(ch));
    }),
    [
      'block 1 op 0 (go): variable "fill_constant.out_1": the goroutine of ' +
      "block 2 reads it by reference, and block 1 op 1 (increment) rebinds " +
      "it after the spawn: pass it in the go's Args to copy it",
    ],
  );
});

Deno.test("vetProgram() accepts a go given the variable in its Args", () => {
  assertEquals(
    vet(() => {
      const ch = makeChannel({ capacity: 3 });
      forRange(3, (i) => go(() => send(ch, i), { args: [i] }));
      print(recv(ch));
    }),
    [],
  );
});

// ---- one_way_channel --------------------------------------------------------

Deno.test("vetProgram() reports a channel that is only sent on", () => {
  assertEquals(
    vet(() => {
      const ch = makeChannel({ name: "ch", capacity: 1 });
      send(ch, int("x"));
    }),
    [
      'block 0 op 0 (channel_create): variable "ch": the channel is sent on ' +
      "(block 0 op 2 (channel_send)) but never received from",
    ],
  );
});

Deno.test("vetProgram() reports a channel that is only received from", () => {
  assertEquals(
    vet(() => {
      const ch = makeChannel({ name: "ch" });
      go(() => print(recv(ch)));
    }),
    [
      'block 0 op 0 (channel_create): variable "ch": the channel is received ' +
      "from (block 1 op 0 (channel_recv)) but never sent on or closed",
    ],
  );
});

Deno.test("vetProgram() follows channels through assign and Args, and accepts close for a send and a timer's channel", () => {
  assertEquals(
    vet(() => {
      const done = makeChannel({ name: "done" });
      go(() => closeChannel(done), { args: [done] });
      print(recvOk(done)[1]); // closed, received: Go's done channel
      const ch = makeChannel({ name: "ch", capacity: 1 });
      send(ch, int("x"));
      print(recv(assign(ch))); // received through another variable
      const timeout = after(5);
      select((s) => {
        s.recv(timeout);
      });
    }),
    [],
  );
});

// ---- nil_select -------------------------------------------------------------

Deno.test("vetProgram() reports a select whose cases are all nil channels", () => {
  assertEquals(
    vet(() => {
      const a = nilChannel("a");
      const b = nilChannel("b");
      select((s) => {
        s.recv(a);
        s.send(b, int("x"));
      });
    }),
    [
      'block 0 op 1 (select): variable "a": every case\'s channel is nil ' +
      "(never made by channel_create) and there is no default: the select " +
      "blocks for ever",
    ],
  );
});

Deno.test("vetProgram() accepts a select over nil channels that has a default or one live case", () => {
  const found = vetRule("nil_select", () => {
    const a = nilChannel("a");
    const live = makeChannel({ capacity: 1 });
    select((s) => {
      s.recv(a);
      s.default();
    });
    send(live, int("x"));
    select((s) => {
      s.recv(a);
      s.recv(live);
    });
  });
  assertEquals(found, []);
});

// ---- unused -----------------------------------------------------------------

Deno.test("vetProgram() reports a variable written and never read", () => {
  assertEquals(
    vet(() => {
      int("x");
    }),
    ['block 0 op 0 (fill_constant): variable "x": written, never read'],
  );
});

Deno.test("vetProgram() counts fetches, parameters, a receive's Status and a case's ok as reads or exempt", () => {
  const p = new Program();
  p.guard(() => {
    const w = p.globalBlock.createVar({
      name: "w",
      dtype: "float32",
      shape: [1],
      persistable: true,
    });
    fillConstant({ shape: [1], value: 1, out: w });
    int("y");
    const ch = makeChannel({ capacity: 1 });
    send(ch, int("x"));
    print(recvOk(ch)[0]); // Status unread
    send(ch, int("z"));
    select((s) => s.recv(ch, (v) => print(v))); // ok unread
  });
  assertEquals(vetProgram(p.desc, { fetch: ["y"] }), []);
  assertEquals(vetProgram(p.desc).map((f) => [f.rule, f.variable]), [
    ["unused", "y"],
  ]);
});

// ---- unreferenced_block -----------------------------------------------------

Deno.test("vetProgram() reports a block no op names", () => {
  const desc = create(ProgramDescSchema, {
    blocks: [
      {
        idx: 0,
        parentIdx: -1,
        ops: [
          op("conditional_block", {}, {}, [
            { name: "sub_block", type: AttrType.BLOCK, blockIdx: 2 },
          ]),
        ],
      },
      { idx: 1, parentIdx: 0, ops: [op("print")] },
      { idx: 2, parentIdx: 0 },
    ],
  });
  assertEquals(vetProgram(desc).map((f) => [f.rule, f.block, f.message]), [[
    "unreferenced_block",
    1,
    "block 1: no op runs this block (no op's block attribute names it)",
  ]]);
});

Deno.test("vetProgram() lists findings by block and op", () => {
  const found = vet(() => {
    const x = int("x");
    go(() => increment(x)); // a race in block 1, found first
    increment(x);
    print(x);
    int("y"); // unused in block 0
  });
  assertEquals(found.map((m) => m.slice(0, 12)), [
    "block 0 op 4",
    "block 1 op 0",
  ]);
});

// ---- stuck_loop -------------------------------------------------------------

Deno.test("vetProgram() reports a while whose body never writes its Condition", () => {
  assertEquals(
    vetRule("stuck_loop", () => {
      const i = int("i");
      const n = int("n", 3);
      const cond = lessThan(i, n);
      whileLoop(cond, () => {
        increment(i);
        print(i);
      });
    }),
    [
      'block 0 op 3 (while): variable "less_than.out_0": the Condition: no op ' +
      "of block 1 (the loop's body) writes it, so the loop never ends once it " +
      "starts",
    ],
  );
});

Deno.test("vetProgram() accepts a Condition written in the body, in a block nested in it, or as a receive's Status", () => {
  assertEquals(
    vetRule("stuck_loop", () => {
      const i = int("i");
      const n = int("n", 3);
      const cond = lessThan(i, n);
      whileLoop(cond, () => {
        increment(i);
        ifElse(cond, () => lessThan(i, n, { out: cond }));
      });
      const ch = makeChannel({ capacity: 1, dtype: "int64" });
      send(ch, i);
      closeChannel(ch);
      const more = fillConstant({ shape: [1], dtype: "bool", value: true });
      const v = recv(ch, { status: more });
      whileLoop(more, () => {
        print(v);
        recv(ch, { out: v, status: more });
      });
    }),
    [],
  );
});
