// The activation builders: each built program validates, runs, and gives
// the value computed by hand.

import { assertAlmostEquals, assertEquals } from "@std/assert";
import {
  assignValue,
  clip,
  dropout,
  elu,
  gelu,
  hardSigmoid,
  hardSwish,
  leakyRelu,
  logSoftmax,
  pow,
  relu6,
  swish,
  thresholdedRelu,
  validateProgram,
  type Variable,
} from "../../../mod.ts";
import { buildProgram, runForTensors } from "../../_helpers/run_program.ts";

const cases: [string, (x: Variable) => Variable, number[], number[]][] = [
  ["gelu()", (x) => gelu(x), [-1, 0, 1], [-0.158655, 0, 0.841345]],
  ["gelu() approximate", (x) => gelu(x, { approximate: true }), [1], [
    0.841192,
  ]],
  ["swish()", (x) => swish(x, { beta: 2 }), [1], [1 / (1 + Math.exp(-2))]],
  ["hardSwish()", (x) => hardSwish(x), [-4, 1, 4], [0, 4 / 6, 4]],
  ["hardSigmoid()", (x) => hardSigmoid(x), [-5, 1, 5], [0, 0.7, 1]],
  ["leakyRelu()", (x) => leakyRelu(x), [-1, 2], [-0.02, 2]],
  ["relu6()", (x) => relu6(x, { threshold: 2 }), [-1, 1, 3], [0, 1, 2]],
  ["elu()", (x) => elu(x, { alpha: 2 }), [-1, 3], [2 * Math.expm1(-1), 3]],
  ["clip()", (x) => clip(x, -1, 2), [-3, 0.5, 9], [-1, 0.5, 2]],
  ["thresholdedRelu()", (x) => thresholdedRelu(x), [0.5, 1, 3], [0, 0, 3]],
  [
    "thresholdedRelu() with threshold and value",
    (x) => thresholdedRelu(x, { threshold: -1, value: 7 }),
    [-2, -1, 0],
    [7, 7, 0],
  ],
  ["pow()", (x) => pow(x, { factor: 3 }), [2, -1], [8, -1]],
  ["logSoftmax()", (x) => logSoftmax(x), [0, Math.LN2], [
    -Math.log(3),
    Math.LN2 - Math.log(3),
  ]],
  ["dropout() at inference", (x) => dropout(x, 0.25, { isTest: true }), [
    4,
    8,
  ], [3, 6]],
  [
    "dropout() upscale_in_train at inference",
    (x) =>
      dropout(x, 0.25, {
        isTest: true,
        dropoutImplementation: "upscale_in_train",
      }),
    [4, 8],
    [4, 8],
  ],
];

for (const [name, build, input, expected] of cases) {
  Deno.test(`${name} builds a valid program with the value computed by hand`, async () => {
    const [program] = buildProgram(() => build(assignValue(input)));
    validateProgram(program.desc);
    const { tensors: [y] } = await runForTensors(() =>
      build(assignValue(input))
    );
    assertEquals(y.shape, [input.length]);
    expected.forEach((e, i) => assertAlmostEquals(Number(y.item(i)), e, 1e-5));
  });
}

Deno.test("dropout() declares Out like X and leaves Mask out unless asked", () => {
  const [program, y] = buildProgram(() => dropout(assignValue([1, 2, 3]), 0.5));
  assertEquals([y.dtype, y.shape], ["float32", [3]]);
  const op = program.desc.blocks[0].ops[1];
  assertEquals(op.outputs.map((o) => o.parameter), ["Out"]);
});

Deno.test("dropout() in training keeps all or nothing at the extremes", async () => {
  const { tensors: [none, all] } = await runForTensors(() => {
    const x = assignValue([1, 2, 3]);
    return [
      dropout(x, 1, { fixSeed: true, seed: 7 }),
      dropout(x, 0, { dropoutImplementation: "upscale_in_train" }),
    ];
  });
  assertEquals(none.toNested(), [0, 0, 0]);
  assertEquals(all.toNested(), [1, 2, 3]);
});
