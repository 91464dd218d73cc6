import { assertEquals, assertRejects } from "@std/assert";
import {
  assignValue,
  defaultProgram,
  elementwiseDiv,
  Executor,
  fillConstant,
  print,
  Program,
  TensorArray,
} from "../../../mod.ts";
import { formatValue } from "../../../runtime/ops/print.ts";
import { PRINT_OPS } from "../../../runtime/ops/print.ts";
import { testOpCases } from "../../_helpers/op_cases.ts";
import { printedBy } from "../../_helpers/run_program.ts";

testOpCases("PRINT_OPS", PRINT_OPS, {
  print: [{
    what: "writes `<message> <value>`, or the value alone",
    build: () => {
      const x = fillConstant({ shape: [1], value: 2 });
      print(x, { message: "x is" });
      print(x);
    },
    lines: ["x is 2", "2"],
  }, {
    what: "shows at most `summarize` elements, the first ones, as Paddle does",
    build: () => {
      const x = assignValue([0.5, 1, 1.5, 2, 2.5, 3], { shape: [2, 3] });
      print(x, { message: "first 4", summarize: 4 });
      print(x, { message: "none", summarize: 0 });
      print(x, { message: "all 6", summarize: 6 });
      print(x, { message: "all", summarize: -1 });
    },
    lines: [
      "first 4 [0.5, 1, 1.5, 2, ...]",
      "none [...]",
      "all 6 [[0.5, 1, 1.5], [2, 2.5, 3]]",
      "all [[0.5, 1, 1.5], [2, 2.5, 3]]",
    ],
  }],
});

/** The line `print` writes for the tensor `build` makes. */
async function printedLine(
  build: () => ReturnType<typeof fillConstant>,
): Promise<string> {
  const lines = await printedBy(() => print(build()));
  assertEquals(lines.length, 1);
  return lines[0];
}

const FORMAT_CASES: [string, () => ReturnType<typeof fillConstant>, string][] =
  [
    [
      "float32 in the shortest form that reads back (0.1)",
      () => fillConstant({ shape: [1], value: 0.1 }),
      "0.1",
    ],
    [
      "a whole float as 2, not 2.0",
      () => fillConstant({ shape: [1], value: 2 }),
      "2",
    ],
    [
      "float32 1/3 with float32's digits",
      () => fillConstant({ shape: [1], value: 1 / 3 }),
      "0.33333334",
    ],
    [
      "float32 2^24 + 1 as the float32 it rounds to",
      () => fillConstant({ shape: [1], value: 16777217 }),
      "16777216",
    ],
    [
      "float64 in float64's digits",
      () => fillConstant({ shape: [2], dtype: "float64", value: 0.1 }),
      "[0.1, 0.1]",
    ],
    [
      "a float32 beyond 1e21 in exponent form",
      () => fillConstant({ shape: [1], value: 1e21 }),
      "1e+21",
    ],
    [
      "float16 in float16's digits",
      () => assignValue([0.1, 65504, 1 / 3], { dtype: "float16" }),
      "[0.1, 65500, 0.3333]",
    ],
    [
      "NaN, Infinity and -Infinity",
      () => elementwiseDiv(assignValue([0, 1, -1]), assignValue([0])),
      "[NaN, Infinity, -Infinity]",
    ],
    [
      "bools as true and false",
      () => assignValue([true, false], { dtype: "bool" }),
      "[true, false]",
    ],
    [
      "int64 in decimal, exactly",
      () =>
        assignValue([2n ** 63n - 1n, -(2n ** 63n)], {
          dtype: "int64",
        }),
      "[9223372036854775807, -9223372036854775808]",
    ],
    [
      "int32 in decimal",
      () => assignValue([-2147483648, 7], { dtype: "int32" }),
      "[-2147483648, 7]",
    ],
    [
      "a rank-2 tensor nested",
      () => assignValue([1, 2, 3, 4], { shape: [2, 2] }),
      "[[1, 2], [3, 4]]",
    ],
    [
      "a rank-3 tensor nested",
      () => assignValue([1, 2, 3, 4, 5, 6, 7, 8], { shape: [2, 2, 2] }),
      "[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]",
    ],
    ["an empty [0] tensor as []", () => fillConstant({ shape: [0] }), "[]"],
    [
      "an empty [2, 0] tensor as []",
      () => fillConstant({ shape: [2, 0] }),
      "[]",
    ],
    [
      "one element of shape [1] as a scalar",
      () => fillConstant({ shape: [1], dtype: "int64", value: 7 }),
      "7",
    ],
    [
      "one element of rank 0 as a scalar",
      () => fillConstant({ shape: [], dtype: "bool", value: true }),
      "true",
    ],
    [
      "one element of rank 2 nested",
      () => fillConstant({ shape: [1, 1], value: 3 }),
      "[[3]]",
    ],
  ];

for (const [what, build, line] of FORMAT_CASES) {
  Deno.test(`print writes ${what}`, async () => {
    assertEquals(await printedLine(build), line);
  });
}

Deno.test('print writes a RAW string list as ["a", "b"]', async () => {
  const program = new Program();
  program.guard(() => {
    const r = program.globalBlock.createVar({ name: "r", kind: "raw" });
    print(r, { message: "raw" });
  });
  const lines: string[] = [];
  const executor = new Executor({ print: (l) => lines.push(l) });
  const { scope } = await executor.run(program);
  scope.set("r", ["a", 'b"c']);
  await executor.run(program, { scope });
  assertEquals(lines, ["raw []", 'raw ["a", "b\\"c"]']);
});

Deno.test("print writes a tensor array as a list, and the nil channel", async () => {
  const lines = await printedBy(() => {
    const block = defaultProgram().currentBlock;
    const a = block.createVar({ name: "a", kind: "array" });
    const ch = block.createVar({ name: "ch", kind: "channel" });
    print(a, { message: "array" });
    print(ch, { message: "channel" });
  });
  assertEquals(lines, ["array []", "channel nil chan"]);
});

Deno.test("formatValue() shows holes of a tensor array as <empty>", () => {
  const a = new TensorArray();
  a.resize(2);
  assertEquals(formatValue(a), "[<empty>, <empty>]");
});

Deno.test("print with summarize writes a 16M-element tensor as a short line", async () => {
  const lines = await printedBy(() =>
    print(fillConstant({ shape: [4096, 4096], value: 0.25 }), {
      message: "big",
      summarize: 3,
    })
  );
  assertEquals(lines, ["big [0.25, 0.25, 0.25, ...]"]);
});

Deno.test("print refuses a summarize below -1 when the program is checked", async () => {
  const program = new Program();
  program.guard(() => print(fillConstant({ shape: [1] }), { summarize: -2 }));
  await assertRejects(
    () => new Executor({ print: () => {} }).run(program),
    Error,
    'attribute "summarize": -2 is below -1 (all)',
  );
});
