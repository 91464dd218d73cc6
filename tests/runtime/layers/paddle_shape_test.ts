// The Paddle shape builders: each built program validates, runs, and gives
// the value and shape computed by hand; outputs are declared as infer says.

import { assertEquals, assertThrows } from "@std/assert";
import {
  assignValue,
  expandV2,
  fillConstantBatchSizeLike,
  flattenContiguousRange,
  pixelShuffle,
  reshape2,
  squeeze2,
  stack,
  transpose2,
  unsqueeze2,
  unstack,
  validateProgram,
  type Variable,
} from "../../../mod.ts";
import { defaultProgram } from "../../../runtime/build/program.ts";
import { buildProgram, runForTensors } from "../../_helpers/run_program.ts";

const six = () => assignValue([1, 2, 3, 4, 5, 6], { shape: [2, 3] });

const cases: [string, () => Variable, number[], unknown][] = [
  ["reshape2()", () => reshape2(six(), [0, 3, -1]), [2, 3, 1], [
    [[1], [2], [3]],
    [[4], [5], [6]],
  ]],
  ["transpose2()", () => transpose2(six(), [1, 0]), [3, 2], [[1, 4], [2, 5], [
    3,
    6,
  ]]],
  [
    "squeeze2() without axes",
    () => squeeze2(assignValue([1, 2], { shape: [1, 2, 1] })),
    [2],
    [1, 2],
  ],
  ["unsqueeze2()", () => unsqueeze2(assignValue([1, 2]), [1, -1]), [
    2,
    1,
    1,
  ], [[[1]], [[2]]]],
  [
    "flattenContiguousRange() with the defaults",
    () =>
      flattenContiguousRange(assignValue([1, 2, 3, 4], { shape: [1, 2, 2] })),
    [1, 2, 2],
    [[[1, 2], [3, 4]]],
  ],
  [
    "flattenContiguousRange() over dims 1..2",
    () =>
      flattenContiguousRange(assignValue([1, 2, 3, 4], { shape: [1, 2, 2] }), {
        stopAxis: 2,
      }),
    [1, 4],
    [[1, 2, 3, 4]],
  ],
  ["stack()", () => stack([assignValue([1, 2]), assignValue([3, 4])]), [
    2,
    2,
  ], [[1, 2], [3, 4]]],
  [
    "expandV2()",
    () =>
      expandV2(assignValue([1, 2], { shape: [2, 1] }), [
        2,
        2,
        3,
      ]),
    [2, 2, 3],
    [[[1, 1, 1], [2, 2, 2]], [[1, 1, 1], [2, 2, 2]]],
  ],
  [
    "pixelShuffle() NHWC",
    () =>
      pixelShuffle(assignValue([1, 2, 3, 4], { shape: [1, 1, 1, 4] }), 2, {
        dataFormat: "NHWC",
      }),
    [1, 2, 2, 1],
    [[[[1], [2]], [[3], [4]]]],
  ],
  [
    "fillConstantBatchSizeLike()",
    () =>
      fillConstantBatchSizeLike(six(), [4, -1], {
        value: 0.5,
        inputDimIdx: 1,
        outputDimIdx: 1,
      }),
    [4, 3],
    Array(4).fill([0.5, 0.5, 0.5]),
  ],
];

for (const [name, build, shape, expected] of cases) {
  Deno.test(`${name} builds a valid program with the value computed by hand`, async () => {
    const [program, y] = buildProgram(build);
    validateProgram(program.desc);
    assertEquals(y.shape, shape);
    const { tensors: [t] } = await runForTensors(build);
    assertEquals(t.shape, shape);
    assertEquals(t.toNested(), expected);
  });
}

Deno.test("fillConstantBatchSizeLike() declares its dtype and keeps an int64 exact", async () => {
  const build = () =>
    fillConstantBatchSizeLike(assignValue([1]), [-1], {
      value: 2 ** 40 + 1,
      dtype: "int64",
    });
  const [program, y] = buildProgram(build);
  validateProgram(program.desc);
  assertEquals(y.dtype, "int64");
  const { tensors: [t] } = await runForTensors(build);
  assertEquals(t.toNested(), [2n ** 40n + 1n]);
});

Deno.test("reshape2() writes XShape only into a variable given as xShape", () => {
  const [program] = buildProgram(() => {
    const x = six();
    reshape2(x, [6]);
    const block = defaultProgram().currentBlock;
    const xShape = block.createVar({ name: "xs", dtype: "float32" });
    reshape2(x, [6], { xShape });
  });
  validateProgram(program.desc);
  const slots = program.desc.blocks[0].ops.slice(1).map((op) =>
    op.outputs.map((o) => o.parameter)
  );
  assertEquals(slots, [["Out"], ["Out", "XShape"]]);
});

Deno.test("unstack() makes one variable per part, typed as infer says", async () => {
  const build = () => unstack(six(), { axis: -1 });
  const [program, ys] = buildProgram(build);
  validateProgram(program.desc);
  assertEquals(ys.map((y) => y.shape), [[2], [2], [2]]);
  const { tensors } = await runForTensors(build);
  assertEquals(tensors.map((t) => t.toNested()), [[1, 4], [2, 5], [3, 6]]);
});

Deno.test("unstack() throws when num is left out and the dim is unknown", () => {
  buildProgram(() => {
    const block = defaultProgram().currentBlock;
    const x = block.createVar({ name: "x", dtype: "float32" });
    assertThrows(() => unstack(x), TypeError);
    assertEquals(unstack(x, { num: 2 }).length, 2);
  });
});
