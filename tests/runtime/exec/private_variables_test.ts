import { assertEquals } from "@std/assert";
import {
  assign,
  elementwiseAdd,
  go,
  increment,
  lessThan,
  makeChannel,
  print,
  Program,
  recv,
  send,
  whileLoop,
} from "../../../mod.ts";
import type { Variable } from "../../../mod.ts";
import { privateVariables } from "../../../runtime/exec/private_variables.ts";
import { OPS } from "../../../runtime/ops/mod.ts";
import { runForTensors, runProgram } from "../../_helpers/run_program.ts";
import { int64 } from "../../_helpers/int64.ts";

function privateOf(program: Program, vars: readonly Variable[]): boolean[] {
  const names = privateVariables(program.desc, OPS);
  return vars.map((v) => names.has(v.name));
}

Deno.test("privateVariables() takes a loop's counter, total and condition", () => {
  const program = new Program();
  const vars = program.guard(() => {
    const i = int64(0);
    const n = int64(10);
    const total = int64(0);
    const cond = lessThan(i, n);
    whileLoop(cond, () => {
      elementwiseAdd(total, i, { out: total });
      increment(i);
      lessThan(i, n, { out: cond });
    });
    print(total);
    return [i, n, total, cond];
  });
  assertEquals(privateOf(program, vars), [true, true, true, true]);
});

Deno.test("privateVariables() leaves out a variable whose value an op keeps", () => {
  const program = new Program();
  const vars = program.guard(() => {
    const sent = int64(1);
    send(makeChannel({ dtype: "int64", capacity: 1 }), sent);
    const copied = int64(2);
    const copy = assign(copied);
    return [sent, copied, copy];
  });
  assertEquals(privateOf(program, vars), [false, false, true]);
});

Deno.test("privateVariables() leaves out what a print passes on to its Out", () => {
  const program = new Program();
  const [shown, passed] = program.guard(() => {
    const shown = int64(1);
    print(shown);
    return [shown, int64(2)];
  });
  assertEquals(privateOf(program, [shown]), [true]);
  const op = program.desc.blocks[0].ops.find((o) => o.type === "print")!;
  op.outputs.push(
    { parameter: "Out", arguments: [passed.name] } as typeof op.outputs[0],
  );
  assertEquals(privateOf(program, [shown]), [false]);
});

Deno.test("privateVariables() leaves out a variable a goroutine names", () => {
  const program = new Program();
  const vars = program.guard(() => {
    const shared = int64(0);
    const local = int64(0);
    increment(local);
    go(() => increment(shared));
    return [shared, local];
  });
  assertEquals(privateOf(program, vars), [false, true]);
});

Deno.test("a counter sent each pass is received as that pass's value", async () => {
  const { lines } = await runProgram(() => {
    const i = int64(0);
    const n = int64(3);
    const ch = makeChannel({ dtype: "int64", capacity: 3 });
    const cond = lessThan(i, n);
    whileLoop(cond, () => {
      increment(i);
      send(ch, i);
      lessThan(i, n, { out: cond });
    });
    for (let k = 0; k < 3; k++) print(recv(ch), { message: "got" });
  });
  assertEquals(lines, ["got 1", "got 2", "got 3"]);
});

Deno.test("a copy taken before a loop keeps its value while the loop counts", async () => {
  const { tensors } = await runForTensors(() => {
    const i = int64(0);
    const n = int64(5);
    const total = int64(0);
    elementwiseAdd(total, i, { out: total });
    // assign keeps its input: total is not private, and the loop's sums
    // are new tensors.
    const before = assign(total);
    const cond = lessThan(i, n);
    whileLoop(cond, () => {
      elementwiseAdd(total, i, { out: total });
      increment(i);
      lessThan(i, n, { out: cond });
    });
    return [before, i, total];
  });
  assertEquals(tensors.map((t) => t.item(0)), [0n, 5n, 10n]);
});
