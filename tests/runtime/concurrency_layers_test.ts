// The concurrency builders (`makeChannel`, `send`, `recv`, `recvOk`,
// `closeChannel`, `go`, `select`, `sleep`, `after`): what each appends to
// the program, and Fluid's own CSP tests written as programs from the
// behaviour they check: a goroutine sending 99, Fibonacci over select with a
// quit channel, a daisy chain of 100 goroutines, ping-pong, and select with
// a default case.

import { assertEquals } from "@std/assert";
import {
  after,
  assign,
  AttrType,
  type BlockDesc,
  closeChannel,
  elementwiseAdd,
  Executor,
  fillConstant,
  forRange,
  go,
  increment,
  lessThan,
  makeChannel,
  type OpDesc,
  print,
  Program,
  recv,
  recvOk,
  select,
  send,
  sleep,
  type Variable,
  VarType_Type,
  whileLoop,
} from "../../mod.ts";
import { int64 } from "../_helpers/int64.ts";
import { runForTensors, runProgram } from "../_helpers/run_program.ts";
import { slotsOf } from "../_helpers/slots_of.ts";

function attrOf(op: OpDesc, name: string) {
  const a = op.attrs.find((a) => a.name === name);
  if (a === undefined) throw new Error(`${op.type} has no attribute ${name}`);
  return a;
}

function lastOp(block: BlockDesc): OpDesc {
  return block.ops[block.ops.length - 1];
}

// ---- What the builders append -------------------------------------------

Deno.test("makeChannel() declares a channel and appends channel_create", () => {
  const p = new Program();
  const [typed, any] = p.guard(() => [
    makeChannel({ capacity: 10, dtype: "int64", name: "jobs" }),
    makeChannel(),
  ]);
  const block = p.desc.blocks[0];
  assertEquals([typed.name, typed.kind, typed.dtype], [
    "jobs",
    "channel",
    "int64",
  ]);
  const decl = block.vars.find((v) => v.name === "jobs")!;
  assertEquals(decl.type?.type, VarType_Type.CHANNEL);
  assertEquals(decl.type?.channel?.dataType, VarType_Type.INT64);
  assertEquals(decl.type?.channel?.capacity, 10n);
  const [create0, create1] = block.ops;
  assertEquals(create0.type, "channel_create");
  assertEquals(slotsOf(create0.outputs), { Out: ["jobs"] });
  assertEquals(attrOf(create0, "capacity").i, 10);
  assertEquals(attrOf(create0, "data_type").i, VarType_Type.INT64);
  assertEquals(any.kind, "channel");
  assertEquals(create1.attrs.map((a) => a.name), []); // defaults: 0, any tensor
});

Deno.test("send(), recv(), recvOk() and closeChannel() fill the channel slots", () => {
  const p = new Program();
  const names = p.guard(() => {
    const ch = makeChannel({ capacity: 1, name: "ch" });
    const x = fillConstant({ shape: [1], value: 1 });
    send(ch, x);
    const v = recv(ch);
    const [w, ok] = recvOk(ch);
    closeChannel(ch);
    return { x: x.name, v: v.name, w: w.name, ok: ok.name, okType: ok.dtype };
  });
  const [, , sendOp, recvOp, recvOkOp, closeOp] = p.desc.blocks[0].ops;
  assertEquals(sendOp.type, "channel_send");
  assertEquals(slotsOf(sendOp.inputs), { Channel: ["ch"], X: [names.x] });
  assertEquals(recvOp.type, "channel_recv");
  assertEquals(slotsOf(recvOp.inputs), { Channel: ["ch"] });
  assertEquals(slotsOf(recvOp.outputs), { Out: [names.v] });
  assertEquals(slotsOf(recvOkOp.outputs), {
    Out: [names.w],
    Status: [names.ok],
  });
  assertEquals(names.okType, "bool");
  assertEquals(closeOp.type, "channel_close");
  assertEquals(slotsOf(closeOp.inputs), { Channel: ["ch"] });
});

Deno.test("go() appends a go op with its block, free variables and Args", () => {
  const p = new Program();
  const names = p.guard(() => {
    const ch = makeChannel({ name: "ch" });
    const a = fillConstant({ shape: [1], value: 1 });
    const b = fillConstant({ shape: [1], value: 2 });
    go(() => {
      send(ch, elementwiseAdd(a, b));
      go(() => closeChannel(ch));
    }, { args: [a] });
    return { a: a.name, b: b.name };
  });
  const op = lastOp(p.desc.blocks[0]);
  assertEquals(op.type, "go");
  const sub = attrOf(op, "sub_block");
  assertEquals(sub.type, AttrType.BLOCK);
  assertEquals(p.desc.blocks[sub.blockIdx].parentIdx, 0);
  const inputs = slotsOf(op.inputs);
  assertEquals(inputs.Args, [names.a]);
  assertEquals(new Set(inputs.X), new Set(["ch", names.a, names.b]));
  const inner = lastOp(p.desc.blocks[sub.blockIdx]);
  assertEquals(inner.type, "go");
  const innerBlock = p.desc.blocks[attrOf(inner, "sub_block").blockIdx];
  assertEquals(innerBlock.parentIdx, sub.blockIdx);
  assertEquals(slotsOf(inner.inputs), { X: ["ch"] });
});

Deno.test("select() encodes one case string and one sub-block per case", () => {
  const p = new Program();
  const names = p.guard(() => {
    const ch = makeChannel({ capacity: 1, name: "ch" });
    const quit = makeChannel({ name: "quit" });
    const x = fillConstant({ shape: [1], value: 1 });
    const y = fillConstant({ shape: [1], value: 2 });
    let received: [string, string] = ["", ""];
    select((s) => {
      s.send(ch, x, () => print(y));
      s.recv(quit, (v, ok) => {
        received = [v.name, ok.name];
        print(v);
      });
      s.default();
    });
    return { x: x.name, y: y.name, received };
  });
  const op = lastOp(p.desc.blocks[0]);
  assertEquals(op.type, "select");
  const [v, ok] = names.received;
  assertEquals(attrOf(op, "cases").strings, [
    `send,ch,${names.x},`,
    `recv,quit,${v},${ok}`,
    "default,,,",
  ]);
  const blocks = attrOf(op, "sub_blocks");
  assertEquals(blocks.type, AttrType.BLOCKS);
  assertEquals(blocks.blocksIdx.length, 3);
  for (const b of blocks.blocksIdx) assertEquals(p.desc.blocks[b].parentIdx, 0);
  assertEquals(p.desc.blocks[blocks.blocksIdx[2]].ops, []);
  assertEquals(
    new Set(slotsOf(op.inputs).X),
    new Set(["ch", "quit", names.x, names.y, v]),
  );
});

Deno.test("sleep() and after() carry their milliseconds", () => {
  const p = new Program();
  const t = p.guard(() => {
    sleep(2.5);
    return after(40);
  });
  const [sleepOp, afterOp] = p.desc.blocks[0].ops;
  assertEquals([sleepOp.type, attrOf(sleepOp, "ms").f], ["sleep", 2.5]);
  assertEquals([afterOp.type, attrOf(afterOp, "ms").f], ["channel_after", 40]);
  assertEquals(slotsOf(afterOp.outputs), { Out: [t.name] });
  assertEquals(t.kind, "channel");
});

// ---- Fluid's CSP tests, as programs -------------------------------------

Deno.test("Fluid: a goroutine sends 99 and main receives 99", async () => {
  const { lines, tensors: [got] } = await runForTensors(() => {
    const ch = makeChannel({ dtype: "int64" });
    go(() => send(ch, int64(99)));
    const v = recv(ch);
    print(v);
    return [v];
  });
  assertEquals(lines, ["99"]);
  assertEquals([got.dtype, got.item(0)], ["int64", 99n]);
});

/** Fibonacci over select with a quit channel; the goroutine takes `n`. */
function fibonacci(n: number): () => Variable[] {
  return () => {
    const c = makeChannel({ dtype: "int64" });
    const quit = makeChannel({ dtype: "int64" });
    const last = int64(-1);
    go(() => {
      forRange(n, () => {
        recv(c, { out: last });
        print(last);
      });
      send(quit, int64(0));
    });
    const x = int64(0);
    const y = int64(1);
    const running = fillConstant({ shape: [1], dtype: "bool", value: true });
    whileLoop(running, () => {
      select((s) => {
        s.send(c, x, () => {
          const next = elementwiseAdd(x, y);
          assign(y, { out: x });
          assign(next, { out: y });
        });
        s.recv(quit, (v) => {
          print(v, { message: "quit" });
          fillConstant({
            shape: [1],
            dtype: "bool",
            value: false,
            out: running,
          });
        });
      });
    });
    return [last];
  };
}

Deno.test("Fluid: Fibonacci over select with a quit channel; the 10th value is 34", async () => {
  for (const seed of [1, 2, 3]) {
    const { lines, tensors: [tenth] } = await runForTensors(fibonacci(10), {
      seed,
    });
    assertEquals(lines, [
      "0",
      "1",
      "1",
      "2",
      "3",
      "5",
      "8",
      "13",
      "21",
      "34",
      "quit 0",
    ]);
    assertEquals(tenth.item(0), 34n);
  }
});

Deno.test("Fluid: a daisy chain of 100 goroutines each adding 1 turns 1 into 101", async () => {
  const { lines, program } = await runProgram(() => {
    const n = int64(100);
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
    go(() => send(left, int64(1)), { args: [left] }); // feeds the far end
    print(recv(leftmost));
  });
  assertEquals(lines, ["101"]);
  // The chain is built by a loop: one go op spawns all 100 links.
  const goOps = program.desc.blocks.flatMap((b) =>
    b.ops.filter((op) => op.type === "go")
  );
  assertEquals(goOps.length, 2);
});

Deno.test("Fluid: ping-pong between two goroutines for 1,000 rounds", async () => {
  const rounds = 1_000;
  const { lines } = await runProgram(() => {
    const ping = makeChannel({ dtype: "int64" });
    const pong = makeChannel({ dtype: "int64" });
    const done = makeChannel({ dtype: "int64" });
    go(() => { // the pinger: sends the ball, gets it back one higher
      const ball = int64(0);
      forRange(rounds, () => {
        send(ping, ball);
        recv(pong, { out: ball });
      });
      send(done, ball);
    });
    go(() => { // the ponger
      forRange(rounds, () => send(pong, elementwiseAdd(recv(ping), int64(1))));
    });
    print(recv(done), { message: "ball" });
  });
  assertEquals(lines, [`ball ${rounds}`]);
});

Deno.test("Fluid: select with default takes default, then the case once ready", async () => {
  const { lines } = await runProgram(() => {
    const ch = makeChannel({ capacity: 1, dtype: "int64" });
    const none = int64(-1);
    const check = () =>
      select((s) => {
        s.recv(ch, (v) => print(v, { message: "received" }));
        s.default(() => print(none, { message: "default" }));
      });
    check();
    go(() => send(ch, int64(42)));
    sleep(1); // lets the goroutine send; the buffer holds the value either way
    check();
  });
  assertEquals(lines, ["default -1", "received 42"]);
});

Deno.test("a built program runs the same after a trip through .pb bytes", async () => {
  const program = new Program();
  program.guard(fibonacci(10));
  const again = Program.fromBinary(program.toBinary());
  const lines: string[] = [];
  await new Executor({ print: (l) => lines.push(l) }).run(again);
  assertEquals(lines.at(-2), "34");
  assertEquals(lines.length, 11);
});

Deno.test("recvOk() and closeChannel() range over a channel until it closes", async () => {
  const { lines } = await runProgram(() => {
    const ch = makeChannel({ capacity: 4, dtype: "int64" });
    go(() => {
      forRange(5, (i) => send(ch, i));
      closeChannel(ch);
    });
    const total = int64(0);
    const [v, ok] = recvOk(ch);
    whileLoop(ok, () => {
      elementwiseAdd(total, v, { out: total });
      recv(ch, { out: v, status: ok });
    });
    print(total, { message: "total" });
    print(ok, { message: "ok" });
  });
  assertEquals(lines, ["total 10", "ok false"]);
});

Deno.test("two runs at once keep their green threads apart", async () => {
  const pingPong = (start: number) => {
    const program = new Program();
    program.guard(() => {
      const ping = makeChannel({ dtype: "int64" });
      const pong = makeChannel({ dtype: "int64" });
      const done = makeChannel({ dtype: "int64" });
      go(() => {
        const ball = int64(start);
        forRange(100, () => {
          send(ping, ball);
          sleep(0.1); // parks, so the runs interleave
          recv(pong, { out: ball });
        });
        send(done, ball);
      });
      go(() =>
        forRange(100, () => {
          const v = recv(ping);
          sleep(0.1);
          send(pong, elementwiseAdd(v, int64(1)));
        })
      );
      print(recv(done));
    });
    return program;
  };
  const outputs: string[][] = [[], [], []];
  await Promise.all(
    [0, 1, 2].map((k) =>
      new Executor({ seed: k + 1, print: (l) => outputs[k].push(l) })
        .run(pingPong(1_000 * k))
    ),
  );
  assertEquals(outputs, [["100"], ["1100"], ["2100"]]);
});
