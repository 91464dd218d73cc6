// The `select` builder: what it appends, and Fluid's own CSP tests written
// as programs from the behaviour they check: Fibonacci over select with a
// quit channel, select with a default case; and the same Fibonacci program
// after a trip through .pb bytes.

import { assertEquals } from "@std/assert";
import {
  assign,
  AttrType,
  elementwiseAdd,
  Executor,
  fillConstant,
  forRange,
  go,
  makeChannel,
  print,
  Program,
  recv,
  select,
  send,
  type Variable,
  whileLoop,
} from "../../../mod.ts";
import { attrOf } from "../../_helpers/attr_of.ts";
import { int64 } from "../../_helpers/int64.ts";
import { lastOp } from "../../_helpers/last_op.ts";
import { runForTensors, runProgram } from "../../_helpers/run_program.ts";
import { slotsOf } from "../../_helpers/slots_of.ts";
import { TEST_WORKERS } from "../../_helpers/test_workers.ts";

// ---- What the builders append -------------------------------------------

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

// ---- Fluid's CSP tests, as programs -------------------------------------

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
    const sent = makeChannel({ dtype: "int64" });
    go(() => {
      send(ch, int64(42)); // buffered: completes at once
      send(sent, int64(0));
    });
    recv(sent);
    check();
  });
  assertEquals(lines, ["default -1", "received 42"]);
});

Deno.test("a built program runs the same after a trip through .pb bytes", async () => {
  const program = new Program();
  program.guard(fibonacci(10));
  const again = Program.fromBinary(program.toBinary());
  const lines: string[] = [];
  await new Executor({ workers: TEST_WORKERS, print: (l) => lines.push(l) })
    .run(again);
  assertEquals(lines.at(-2), "34");
  assertEquals(lines.length, 11);
});
