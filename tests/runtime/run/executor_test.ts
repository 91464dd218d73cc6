import {
  assertEquals,
  assertInstanceOf,
  assertRejects,
  assertStrictEquals,
} from "@std/assert";
import {
  decodeNpy,
  defaultProgram,
  elementwiseAdd,
  Executor,
  fetchTargets,
  fillConstant,
  forRange,
  increment,
  loadModel,
  matmul,
  mul,
  print,
  type Program,
  ProgramError,
  Scope,
  Tensor,
  whileLoop,
} from "../../../mod.ts";
import { Panic } from "../../../scheduler/panic.ts";
import { doubler } from "../../_helpers/doubler.ts";
import {
  buildProgram,
  runProgram,
  tensorOf,
} from "../../_helpers/run_program.ts";

/** A program with undeclared shapes that adds `x` and `y`. */
function adder(): Program {
  return buildProgram(() => {
    const b = defaultProgram().globalBlock;
    const x = b.createVar({ name: "x" });
    const y = b.createVar({ name: "y" });
    elementwiseAdd(x, y, { out: b.createVar({ name: "z" }) });
  })[0];
}

Deno.test("Executor.run() binds feeds and returns fetched tensors", async () => {
  const lines: string[] = [];
  const { fetched, scope } = await new Executor({
    print: (l) => lines.push(l),
  }).run(doubler(), {
    feeds: { x: Tensor.fromArray([[1, 2], [3, 4]], "float32") },
    fetch: ["y", "x"],
  });
  assertEquals(lines, ["y [[2, 4], [6, 8]]"]);
  assertEquals(tensorOf(fetched.y).toNested(), [[2, 4], [6, 8]]);
  assertEquals(tensorOf(fetched.x).shape, [2, 2]);
  assertInstanceOf(scope, Scope);
  assertStrictEquals(scope.get("y"), fetched.y);
});

Deno.test("Executor.run() feeds and fetches int64 exactly", async () => {
  const big = 2n ** 62n + 7n;
  const { fetched } = await new Executor({ print: () => {} }).run(
    buildProgram(() => {
      const b = defaultProgram().globalBlock;
      increment(b.createVar({ name: "n", dtype: "int64", shape: [1] }));
    })[0],
    { feeds: { n: Tensor.fromArray([big], "int64") }, fetch: ["n"] },
  );
  assertEquals(tensorOf(fetched.n).item(0), big + 1n);
});

Deno.test("Executor.run() runs a ProgramDesc as well as a Program", async () => {
  const [program] = buildProgram(() => print(fillConstant({ shape: [1] })));
  assertEquals((await runProgram(program.desc)).lines, ["0"]);
});

Deno.test("Executor.run() runs again in the scope of an earlier run", async () => {
  const [program] = buildProgram(() => {
    const b = defaultProgram().globalBlock;
    const n = b.createVar({ name: "n", dtype: "int64", shape: [1] });
    increment(n);
    print(n, { message: "n" });
  });
  const lines: string[] = [];
  const executor = new Executor({ print: (l) => lines.push(l) });
  const { scope } = await executor.run(program, {
    feeds: { n: Tensor.fromArray([0n], "int64") },
  });
  const again = await executor.run(program, { scope, fetch: ["n"] });
  assertStrictEquals(again.scope, scope);
  assertEquals(lines, ["n 1", "n 2"]);
});

Deno.test("Executor.run() runs the same program many times alike", async () => {
  const program = doubler();
  const executor = new Executor({ print: () => {} });
  for (let i = 0; i < 3; i++) {
    const { fetched } = await executor.run(program, {
      feeds: { x: Tensor.fromArray([i], "float32") },
      fetch: ["y"],
    });
    assertEquals(tensorOf(fetched.y).toNested(), [2 * i]);
  }
});

Deno.test("Executor.run() panics at the end of the run on a fetched variable never written", async () => {
  const lines: string[] = [];
  const e = await assertRejects(
    () =>
      new Executor({ print: (l) => lines.push(l) }).run(
        buildProgram(() => {
          defaultProgram().globalBlock.createVar({ name: "never" });
          print(fillConstant({ shape: [1], value: 1 }));
        })[0],
        { fetch: ["never"] },
      ),
    Panic,
  );
  assertEquals(e.message, 'fetch: variable "never" was never written');
  assertEquals(lines, ["1"]);
});

Deno.test("Executor.run() rejects a feed of an undeclared variable", async () => {
  const e = await assertRejects(
    () =>
      new Executor().run(doubler(), {
        feeds: { z: Tensor.scalar(1, "float32") },
      }),
    ProgramError,
  );
  assertEquals(e.message, 'feed: variable "z" is not declared in block 0');
});

Deno.test("Executor.run() rejects a fetch of an undeclared variable", async () => {
  const e = await assertRejects(
    () => new Executor().run(doubler(), { fetch: ["nope"] }),
    ProgramError,
  );
  assertEquals(e.message, 'fetch: variable "nope" is not declared in block 0');
});

Deno.test("Executor.run() rejects a scope made for another program", async () => {
  const executor = new Executor({ print: () => {} });
  const { scope } = await executor.run(adder(), {
    feeds: {
      x: Tensor.scalar(1, "float32"),
      y: Tensor.scalar(1, "float32"),
    },
  });
  const e = await assertRejects(
    () => executor.run(doubler(), { scope }),
    ProgramError,
  );
  assertEquals(e.message, "run: the scope was made for another program");
});

Deno.test("Executor.run() names the file in validation errors", async () => {
  const [program] = buildProgram(() => {});
  program.desc.blocks[0].ops.push(
    ...buildProgram(() => print(fillConstant({ shape: [1] })))[0].desc
      .blocks[0].ops,
  );
  const e = await assertRejects(
    () => new Executor().run(program, { file: "prog.pb" }),
    ProgramError,
  );
  assertEquals(e.where, {
    file: "prog.pb",
    block: 0,
    op: 0,
    opType: "fill_constant",
    slot: "Out",
    variable: "fill_constant.out_0",
  });
});

Deno.test("Executor.run() panics on a shape mismatch found while running, naming the op and shapes", async () => {
  const e = await assertRejects(
    () =>
      new Executor().run(adder(), {
        feeds: {
          x: Tensor.fromArray([[1, 2, 3], [4, 5, 6]], "float32"),
          y: Tensor.fromArray([1, 2, 3, 4], "float32"),
        },
      }),
    Panic,
  );
  assertEquals(e.where, "block 0 op 0 elementwise_add");
  assertEquals(
    e.message,
    'elementwise_add: broadcast: shapes [2, 3] and [4] do not match (X "x" float32[2, 3], Y "y" float32[4])',
  );
});

Deno.test("Executor.run() panics on mul and matmul of mismatched runtime shapes", async () => {
  // Fed, so that the shapes are known only when the program runs; written
  // by ops, they would be known to validation.
  const feeds = {
    x: Tensor.fromArray([[1, 2, 3], [4, 5, 6]], "float32"),
    y: Tensor.fromArray([[1, 2], [3, 4]], "float32"),
  };
  for (const [type, build] of [["mul", mul], ["matmul", matmul]] as const) {
    const [program] = buildProgram(() => {
      const b = defaultProgram().globalBlock;
      build(b.createVar({ name: "x" }), b.createVar({ name: "y" }));
    });
    const e = await assertRejects(
      () => new Executor().run(program, { feeds }),
      Panic,
    );
    assertEquals(e.where, `block 0 op 0 ${type}`);
    assertEquals(
      e.message.slice(e.message.indexOf(" (X")),
      ' (X "x" float32[2, 3], Y "y" float32[2, 2])',
    );
  }
});

Deno.test("Executor.run() panics on a dtype mismatch found while running", async () => {
  const e = await assertRejects(
    () =>
      new Executor().run(adder(), {
        feeds: {
          x: Tensor.fromArray([true], "bool"),
          y: Tensor.fromArray([false], "bool"),
        },
      }),
    Panic,
  );
  assertEquals(e.where, "block 0 op 0 elementwise_add");
  assertEquals(
    e.message.slice(e.message.indexOf(" (X")),
    ' (X "x" bool[1], Y "y" bool[1])',
  );
});

Deno.test("Executor.run() panics on a variable read before it was written", async () => {
  const e = await assertRejects(() => new Executor().run(doubler()), Panic);
  assertEquals(e.message, 'variable "x" read before it was written');
  assertEquals(e.where, "block 0 op 0 scale");
});

Deno.test("Executor.run() locates a panic inside a sub-block at the inner op", async () => {
  const [program] = buildProgram(() => {
    const b = defaultProgram().globalBlock;
    const x = b.createVar({ name: "x" });
    forRange(2, () => {
      print(x);
    });
  });
  const e = await assertRejects(() => new Executor().run(program), Panic);
  assertEquals(e.where, "block 1 op 0 print");
});

Deno.test("Executor.run() prints nothing after a panic", async () => {
  const lines: string[] = [];
  const [program] = buildProgram(() => {
    const b = defaultProgram().globalBlock;
    print(fillConstant({ shape: [1], value: 1 }), { message: "before" });
    print(b.createVar({ name: "unset" }));
    print(fillConstant({ shape: [1], value: 2 }), { message: "after" });
  });
  await assertRejects(
    () => new Executor({ print: (l) => lines.push(l) }).run(program),
    Panic,
  );
  assertEquals(lines, ["before 1"]);
});

Deno.test("Executor.run() with a signal ends a program that loops forever", async () => {
  const [program] = buildProgram(() => {
    const i = fillConstant({ shape: [1], dtype: "int64", value: 0 });
    const yes = fillConstant({ shape: [1], dtype: "bool", value: 1 });
    whileLoop(yes, () => increment(i));
  });
  await assertRejects(
    () => new Executor().run(program, { signal: AbortSignal.timeout(20) }),
    DOMException,
    "timeout",
  );
});

Deno.test("Executor.run() on a loaded model returns its fetch targets without being asked", async () => {
  const model = await loadModel("examples/mlp_model");
  const img = decodeNpy(await Deno.readFile("examples/data/mlp_img.npy"));
  const executor = new Executor();
  const unasked = await executor.run(model, { feeds: { img } });
  assertEquals(Object.keys(unasked.fetched), fetchTargets(model.desc));
  assertEquals(Object.keys(unasked.fetched), ["fc_1.tmp_2"]);
  const asked = await executor.run(model, {
    feeds: { img },
    fetch: ["fc_1.tmp_2"],
  });
  assertEquals(
    tensorOf(unasked.fetched["fc_1.tmp_2"]).toNested(),
    tensorOf(asked.fetched["fc_1.tmp_2"]).toNested(),
  );
  // An explicit list is what comes back, even an empty one.
  const none = await executor.run(model, { feeds: { img }, fetch: [] });
  assertEquals(none.fetched, {});
});
