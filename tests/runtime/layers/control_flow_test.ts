import { assertEquals } from "@std/assert";
import {
  assign,
  elementwiseAdd,
  fillConstant,
  forRange,
  greaterThan,
  ifElse,
  increment,
  lessThan,
  print,
  whileLoop,
} from "../../../mod.ts";
import { int64 } from "../../_helpers/int64.ts";
import { buildProgram, printedBy } from "../../_helpers/run_program.ts";

Deno.test("whileLoop() builds a while op over a child block, listing its free variables", () => {
  const [program] = buildProgram(() => {
    const i = int64(0);
    const n = int64(3);
    const total = int64(0);
    const cond = lessThan(i, n);
    whileLoop(cond, () => {
      elementwiseAdd(total, i, { out: total });
      increment(i);
      lessThan(i, n, { out: cond });
    });
  });
  const op = program.desc.blocks[0].ops.at(-1)!;
  assertEquals(op.type, "while");
  const slot = (vars: typeof op.inputs, name: string) =>
    vars.find((v) => v.parameter === name)?.arguments;
  assertEquals(slot(op.inputs, "Condition"), ["less_than.out_0"]);
  assertEquals(slot(op.inputs, "X"), [
    "fill_constant.out_2",
    "fill_constant.out_0",
    "fill_constant.out_1",
  ]);
  assertEquals(slot(op.outputs, "Out"), [
    "fill_constant.out_2",
    "fill_constant.out_0",
    "less_than.out_0",
  ]);
  assertEquals(slot(op.outputs, "StepScopes"), ["while.step_scopes_0"]);
  assertEquals(op.attrs.map((a) => [a.name, a.blockIdx]), [["sub_block", 1]]);
  assertEquals(program.desc.blocks[1].parentIdx, 0);
});

Deno.test("whileLoop() runs its body while the condition holds", async () => {
  const lines = await printedBy(() => {
    const i = int64(0);
    const cond = lessThan(i, int64(3));
    whileLoop(cond, () => {
      print(i, { message: "i" });
      increment(i);
      lessThan(i, int64(3), { out: cond });
    });
  });
  assertEquals(lines, ["i 0", "i 1", "i 2"]);
});

Deno.test("ifElse() runs exactly one branch", async () => {
  const lines = await printedBy(() => {
    const x = fillConstant({ shape: [1], value: 5 });
    const y = fillConstant({ shape: [1], value: 2 });
    ifElse(
      greaterThan(x, y),
      () => print(x, { message: "then" }),
      () => print(y, { message: "else" }),
    );
    ifElse(
      greaterThan(y, x),
      () => print(x, { message: "then" }),
      () => print(y, { message: "else" }),
    );
  });
  assertEquals(lines, ["then 5", "else 2"]);
});

Deno.test("ifElse() without otherwise builds one conditional_block", async () => {
  const [program] = buildProgram(() => {
    const c = fillConstant({ shape: [1], dtype: "bool", value: false });
    ifElse(c, () => print(c));
  });
  assertEquals(program.desc.blocks[0].ops.map((o) => o.type), [
    "fill_constant",
    "conditional_block",
  ]);
  assertEquals(
    await printedBy(() => {
      const c = fillConstant({ shape: [1], dtype: "bool", value: false });
      ifElse(c, () => print(c));
    }),
    [],
  );
});

Deno.test("ifElse() decides the else branch before the then branch runs", async () => {
  // `then` turns the condition false; `otherwise` must not run too.
  const lines = await printedBy(() => {
    const x = fillConstant({ shape: [1], value: 1 });
    const zero = fillConstant({ shape: [1], value: 0 });
    const c = greaterThan(x, zero);
    ifElse(c, () => {
      assign(fillConstant({ shape: [1], value: -1 }), { out: x });
      greaterThan(x, zero, { out: c });
      print(x, { message: "then" });
    }, () => print(x, { message: "else" }));
    print(x, { message: "after" });
  });
  assertEquals(lines, ["then -1", "after -1"]);
});

Deno.test("forRange() counts an int64 from 0 below a number or a variable", async () => {
  const lines = await printedBy(() => {
    forRange(3, (i) => print(i, { message: "a" }));
    forRange(int64(2), (i) => print(i, { message: "b" }));
    forRange(0, (i) => print(i, { message: "never" }));
  });
  assertEquals(lines, ["a 0", "a 1", "a 2", "b 0", "b 1"]);
});

Deno.test("forRange() nests, with if-else inside", async () => {
  const lines = await printedBy(() => {
    forRange(2, (i) => {
      forRange(2, (j) => {
        ifElse(
          lessThan(i, j),
          () => print(j, { message: "i<j" }),
          () => print(j, { message: "i>=j" }),
        );
      });
    });
  });
  assertEquals(lines, ["i>=j 0", "i<j 1", "i>=j 0", "i>=j 1"]);
});
