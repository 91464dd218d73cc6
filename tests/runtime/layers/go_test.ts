// The `go` builder: what it appends, and Fluid's own CSP tests written as
// programs from the behaviour they check: a goroutine sending 99, a daisy
// chain of 100 goroutines, ping-pong; and two runs at once.

import { assertEquals } from "@std/assert";
import {
  assign,
  AttrType,
  closeChannel,
  elementwiseAdd,
  Executor,
  fillConstant,
  forRange,
  go,
  increment,
  lessThan,
  makeChannel,
  print,
  Program,
  recv,
  send,
  sleep,
  whileLoop,
} from "../../../mod.ts";
import { attrOf } from "../../_helpers/attr_of.ts";
import { int64 } from "../../_helpers/int64.ts";
import { lastOp } from "../../_helpers/last_op.ts";
import { runForTensors, runProgram } from "../../_helpers/run_program.ts";
import { slotsOf } from "../../_helpers/slots_of.ts";
import { TEST_WORKERS } from "../../_helpers/test_workers.ts";

// ---- What the builders append -------------------------------------------

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
      new Executor({
        seed: k + 1,
        workers: TEST_WORKERS,
        print: (l) => outputs[k].push(l),
      }).run(pingPong(1_000 * k))
    ),
  );
  assertEquals(outputs, [["100"], ["1100"], ["2100"]]);
});
