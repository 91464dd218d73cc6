import { assert, assertEquals, assertRejects } from "@std/assert";
import {
  arrayLength,
  arrayWrite,
  assign,
  assignValue,
  type Block,
  defaultProgram,
  elementwiseAdd,
  elementwiseSub,
  Executor,
  fillConstant,
  forRange,
  go,
  greaterThan,
  ifElse,
  increment,
  lessThan,
  makeChannel,
  mean,
  print,
  recv,
  send,
  sleep,
  type Variable,
  whileLoop,
} from "../../../mod.ts";
import { CONTROL_FLOW_OPS } from "../../../runtime/ops/control_flow.ts";
import { OPS } from "../../../runtime/ops/mod.ts";
import { PreparedProgram } from "../../../runtime/exec/prepare.ts";
import { Panic } from "../../../scheduler/panic.ts";
import { testOpCases } from "../../_helpers/op_cases.ts";
import { int64 } from "../../_helpers/int64.ts";
import {
  buildProgram,
  printedBy,
  runProgram,
} from "../../_helpers/run_program.ts";

const bool = (v: boolean) =>
  fillConstant({ shape: [1], dtype: "bool", value: v });

/** Appends a `conditional_block` running `body` when every Cond holds. */
function conditionalBlock(
  conds: Variable[],
  body: () => void,
  isScalarCondition = true,
): Block {
  const program = defaultProgram();
  const outer = program.currentBlock;
  const block = program.subBlock(body);
  outer.appendOp({
    type: "conditional_block",
    inputs: { Cond: conds },
    attrs: { sub_block: block, is_scalar_condition: isScalarCondition },
  });
  return block;
}

testOpCases("CONTROL_FLOW_OPS", CONTROL_FLOW_OPS, {
  while: [
    {
      what: "runs the block while Condition holds, re-read after each pass",
      build: () => {
        const i = int64(0);
        const n = int64(3);
        const total = int64(0);
        const cond = lessThan(i, n);
        whileLoop(cond, () => {
          elementwiseAdd(total, i, { out: total });
          print(i, { message: "i" });
          increment(i);
          lessThan(i, n, { out: cond });
        });
        print(total, { message: "total" });
        return [i, total];
      },
      lines: ["i 0", "i 1", "i 2", "total 3"],
      tensors: [
        { dtype: "int64", shape: [1], values: [3n] },
        { dtype: "int64", shape: [1], values: [3n] },
      ],
    },
    {
      what: "never runs the block when Condition starts false",
      build: () => {
        const cond = bool(false);
        whileLoop(cond, () => print(cond, { message: "ran" }));
        print(cond, { message: "after" });
      },
      lines: ["after false"],
    },
  ],
  conditional_block: [
    {
      what: "runs the block once when Cond is true, not when false",
      build: () => {
        const x = fillConstant({ shape: [1], value: 5 });
        conditionalBlock([bool(true)], () => print(x, { message: "yes" }));
        conditionalBlock([bool(false)], () => print(x, { message: "no" }));
      },
      lines: ["yes 5"],
    },
    {
      what: "with is_scalar_condition false, runs when every Cond is non-empty",
      build: () => {
        const full = assignValue([0, 0]);
        const empty = fillConstant({ shape: [0] });
        conditionalBlock([full], () => print(full, { message: "full" }), false);
        conditionalBlock(
          [full, empty],
          () => print(full, { message: "empty" }),
          false,
        );
      },
      lines: ["full [0, 0]"],
    },
  ],
});

Deno.test("while gives the block fresh locals on each pass", async () => {
  // Each pass writes its own array at 2 - i: fresh arrays have lengths
  // 3, 2, 1; one shared array would stay at 3.
  const lines = await printedBy(() => {
    const program = defaultProgram();
    forRange(3, (i) => {
      const local = program.currentBlock.createVar({
        name: "local",
        kind: "array",
      });
      arrayWrite(i, elementwiseSub(int64(2), i), local);
      print(arrayLength(local), { message: "len" });
    });
  });
  assertEquals(lines, ["len 3", "len 2", "len 1"]);
});

Deno.test("while does not carry a local tensor from one pass to the next", async () => {
  // Pass 0 writes `local`; pass 1 reads it before writing: a fresh scope
  // has no value, so the read panics.
  const panic: Panic = await assertRejects(
    () =>
      runProgram(() => {
        const program = defaultProgram();
        forRange(2, (i) => {
          const local = program.currentBlock.createVar({
            name: "local",
            dtype: "int64",
            shape: [1],
          });
          ifElse(
            greaterThan(i, int64(0)),
            () => print(local, { message: "local" }),
            () => assign(i, { out: local }),
          );
        });
      }),
    Panic,
  );
  assertEquals(panic.message, 'variable "local" read before it was written');
  assertEquals(panic.where, "block 2 op 0 print");
});

Deno.test("conditional_block gives the block fresh locals on each run", async () => {
  const lines = await printedBy(() => {
    const program = defaultProgram();
    forRange(2, () => {
      conditionalBlock([bool(true)], () => {
        const local = program.currentBlock.createVar({
          name: "local",
          kind: "array",
        });
        arrayWrite(int64(1), int64(0), local);
        print(arrayLength(local), { message: "len" });
      });
    });
  });
  assertEquals(lines, ["len 1", "len 1"]);
});

Deno.test("while writes outer variables by reference from nested loops", async () => {
  const lines = await printedBy(() => {
    const total = int64(0);
    forRange(3, (i) => {
      forRange(2, (j) => {
        elementwiseAdd(total, elementwiseAdd(i, j), { out: total });
      });
    });
    print(total, { message: "total" });
  });
  // Σ over i<3, j<2 of i + j = 2·(0+1+2) + 3·(0+1) = 9
  assertEquals(lines, ["total 9"]);
});

Deno.test("while continues after a pass that parks the green thread", async () => {
  const lines = await printedBy(() => {
    forRange(3, (i) => {
      sleep(1);
      print(i, { message: "woke" });
    });
    print(int64(7), { message: "done" });
  });
  assertEquals(lines, ["woke 0", "woke 1", "woke 2", "done 7"]);
});

Deno.test("while runs many synchronous passes", async () => {
  const lines = await printedBy(() => {
    const total = int64(0);
    forRange(20000, (i) => {
      elementwiseAdd(total, i, { out: total });
    });
    print(total);
  });
  assertEquals(lines, [String(20000 * 19999 / 2)]);
});

Deno.test("while yields to timers between a few slow passes that make large tensors", async () => {
  // Forty passes are far fewer than the calls between two clock reads of a
  // loop of small ops; a pass that makes a large tensor reads the clock.
  const [program] = buildProgram(() => {
    forRange(40, () => {
      print(mean(fillConstant({ shape: [1 << 20], value: 1 })));
    });
  });
  let fired = false;
  const seen: boolean[] = [];
  const timer = setTimeout(() => fired = true, 0);
  try {
    await new Executor({ workers: 1, print: () => seen.push(fired) })
      .run(program);
  } finally {
    clearTimeout(timer);
  }
  assertEquals(seen.length, 40);
  assert(seen.at(-1), "the timer fired only after the loop");
});

Deno.test("while panics on a Condition of more than one element", async () => {
  const panic: Panic = await assertRejects(
    () =>
      runProgram(() => {
        const cond = assignValue([true, true], { dtype: "bool" });
        whileLoop(cond, () => {});
      }),
    Panic,
  );
  assertEquals(panic.where, "block 0 op 1 while");
  assertEquals(
    panic.message.split(" (")[0],
    'while: condition "assign_value.out_0" must hold one element, has shape [2]',
  );
});

Deno.test("conditional_block panics on a Cond read before it was written", async () => {
  const panic: Panic = await assertRejects(
    () =>
      runProgram(() => {
        const cond = defaultProgram().currentBlock.createVar({
          name: "cond",
          dtype: "bool",
          shape: [1],
        });
        conditionalBlock([cond], () => {});
      }),
    Panic,
  );
  assertEquals(panic.message, 'variable "cond" read before it was written');
  assertEquals(panic.where, "block 0 op 0 conditional_block");
});

Deno.test("while gives a goroutine started in a pass that pass's locals, after later passes", async () => {
  // The body starts a goroutine, so its passes may not share one scope:
  // each goroutine reads its own pass's local once the loop has moved on.
  const lines = await printedBy(() => {
    const program = defaultProgram();
    const results = makeChannel({ capacity: 3, dtype: "int64" });
    forRange(3, (i) => {
      const local = program.currentBlock.createVar({
        name: "local",
        dtype: "int64",
        shape: [1],
      });
      assign(i, { out: local });
      go(() => {
        sleep(1);
        send(results, local);
      });
    });
    const total = int64(0);
    forRange(3, () => elementwiseAdd(total, recv(results), { out: total }));
    print(total, { message: "total" });
  });
  assertEquals(lines, ["total 3"]);
});

Deno.test("while gives fresh locals to passes that park", async () => {
  const lines = await printedBy(() => {
    const program = defaultProgram();
    forRange(3, (i) => {
      const local = program.currentBlock.createVar({
        name: "local",
        kind: "array",
      });
      sleep(1);
      arrayWrite(i, elementwiseSub(int64(2), i), local);
      print(arrayLength(local), { message: "len" });
    });
  });
  assertEquals(lines, ["len 3", "len 2", "len 1"]);
});

Deno.test("PreparedBlock.keepsScope holds for a block that starts a goroutine, inline or not", () => {
  const [program] = buildProgram(() => {
    forRange(1, () => print(int64(1)));
    forRange(1, () => go(() => print(int64(2))));
    forRange(1, (i) => ifElse(greaterThan(i, int64(0)), () => go(() => {})));
  });
  const prepared = new PreparedProgram(program.desc, OPS);
  const whiles = prepared.block(0).ops.filter((op) => op.def.type === "while");
  const keeps = whiles.map((op) => {
    const body = op.desc.attrs.find((a) => a.name === "sub_block")!.blockIdx;
    return prepared.block(body).keepsScope;
  });
  assertEquals(keeps, [false, true, true]);
  assertEquals(prepared.block(0).keepsScope, true);
});
