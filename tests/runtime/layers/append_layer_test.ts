import { assertEquals, assertStrictEquals, assertThrows } from "@std/assert";
import {
  appendLayer,
  arrayLength,
  assign,
  assignValue,
  AttrType,
  cast,
  concat,
  createArray,
  elementwiseAdd,
  equal,
  fillConstant,
  gather,
  lessThan,
  logicalNot,
  matmul,
  mean,
  mul,
  Program,
  range,
  reduceMean,
  reduceSum,
  reshape,
  shape,
  slice,
  softmax,
  sum,
  transpose,
  type Variable,
} from "../../../mod.ts";
import { buildProgram } from "../../_helpers/run_program.ts";

/** The declared dtype and shape of a variable. */
const typeOf = (v: Variable) => ({ dtype: v.dtype, shape: v.shape });

Deno.test("builder functions declare outputs with the dtype and shape the op infers", () => {
  buildProgram(() => {
    const x = fillConstant({ shape: [2, 3] });
    const i = fillConstant({ shape: [1], dtype: "int64" });
    const cases: [Variable, { dtype?: string; shape?: readonly number[] }][] = [
      [x, { dtype: "float32", shape: [2, 3] }],
      [elementwiseAdd(x, fillConstant({ shape: [3] })), {
        dtype: "float32",
        shape: [2, 3],
      }],
      [elementwiseAdd(x, fillConstant({ shape: [2] }), { axis: 0 }), {
        dtype: "float32",
        shape: [2, 3],
      }],
      [lessThan(x, x), { dtype: "bool", shape: [2, 3] }],
      [equal(i, i), { dtype: "bool", shape: [1] }],
      [logicalNot(lessThan(i, i)), { dtype: "bool", shape: [1] }],
      [cast(x, "int32"), { dtype: "int32", shape: [2, 3] }],
      [reduceSum(x, { reduceAll: true }), { dtype: "float32", shape: [1] }],
      [reduceSum(x, { dim: [0] }), { dtype: "float32", shape: [3] }],
      [reduceMean(x, { dim: [1], keepDim: true }), {
        dtype: "float32",
        shape: [2, 1],
      }],
      [mean(x), { dtype: "float32", shape: [1] }],
      [sum([x, x]), { dtype: "float32", shape: [2, 3] }],
      [softmax(x), { dtype: "float32", shape: [2, 3] }],
      [mul(x, fillConstant({ shape: [3, 4] })), {
        dtype: "float32",
        shape: [2, 4],
      }],
      [matmul(x, x, { transposeY: true }), {
        dtype: "float32",
        shape: [2, 2],
      }],
      [reshape(x, [-1]), { dtype: "float32", shape: [6] }],
      [transpose(x, [1, 0]), { dtype: "float32", shape: [3, 2] }],
      [shape(x), { dtype: "int32", shape: [2] }],
      [range(i, i, i), { dtype: "int64", shape: [-1] }],
      [arrayLength(createArray()), { dtype: "int64", shape: [1] }],
      [assignValue([1, 2, 3, 4], { dtype: "int64", shape: [2, 2] }), {
        dtype: "int64",
        shape: [2, 2],
      }],
      [assign(i), { dtype: "int64", shape: [1] }],
      [concat([x, x]), { dtype: "float32", shape: undefined }],
      [gather(x, i), { dtype: "float32", shape: undefined }],
      [slice(x, { axes: [0], starts: [0], ends: [1] }), {
        dtype: "float32",
        shape: [1, 3],
      }],
    ];
    for (const [v, want] of cases) assertEquals(typeOf(v), want, v.name);
  });
});

Deno.test("builder functions name new variables uniquely by op and slot", () => {
  const [program, names] = buildProgram(() =>
    [
      fillConstant({ shape: [1] }),
      fillConstant({ shape: [1] }),
      lessThan(fillConstant({ shape: [1] }), fillConstant({ shape: [1] })),
    ].map((v) => v.name)
  );
  assertEquals(names, [
    "fill_constant.out_0",
    "fill_constant.out_1",
    "less_than.out_0",
  ]);
  assertEquals(program.globalBlock.desc.vars.length, 5);
});

Deno.test("builder functions write into the `out` variable when given", () => {
  const [program] = buildProgram(() => {
    const x = fillConstant({ shape: [2] });
    const y = fillConstant({ shape: [2] });
    assertStrictEquals(elementwiseAdd(x, y, { out: x }), x);
  });
  const ops = program.desc.blocks[0].ops;
  assertEquals(ops[2].outputs[0].arguments, ["fill_constant.out_0"]);
  assertEquals(program.desc.blocks[0].vars.length, 2);
});

Deno.test("appendLayer() rejects an unknown op", () => {
  assertThrows(
    () => buildProgram(() => appendLayer("frobnicate", {})),
    TypeError,
    'append op: unknown op "frobnicate"',
  );
});

Deno.test("appendLayer() rejects an unknown attribute and a value of the wrong type", () => {
  assertThrows(
    () => buildProgram(() => appendLayer("fill_constant", {}, { colour: 1 })),
    TypeError,
    'append op fill_constant: unknown attribute "colour"',
  );
  assertThrows(
    () => buildProgram(() => appendLayer("scale", {}, { scale: "2" })),
    TypeError,
    'append op scale: attribute "scale" wants float, got 2',
  );
});

Deno.test("appendLayer() writes Paddle's extra attributes at neutral values and refuses others", () => {
  const [program] = buildProgram(() => {
    const x = fillConstant({ shape: [2, 2], value: 1 });
    appendLayer("mul", { X: x, Y: x }, {
      scale_x: 1,
      scale_y: [1],
      use_mkldnn: false,
      fused_reshape_X: [],
    });
  });
  const attrs = program.desc.blocks[0].ops[1].attrs;
  assertEquals(
    attrs.map((a) => [a.name, AttrType[a.type]]),
    [
      ["scale_x", "FLOAT"],
      ["scale_y", "FLOATS"],
      ["use_mkldnn", "BOOLEAN"],
      ["fused_reshape_X", "INTS"],
    ],
  );
  assertThrows(
    () =>
      buildProgram(() => appendLayer("fill_constant", {}, { use_addto: true })),
    TypeError,
    'append op fill_constant: attribute "use_addto": true asks for the result added to the output\'s old value; Rill accepts only false',
  );
});

Deno.test("builder functions refuse a shape mismatch known when building", () => {
  assertThrows(
    () =>
      buildProgram(() =>
        elementwiseAdd(
          fillConstant({ shape: [2, 3] }),
          fillConstant({ shape: [4] }),
        )
      ),
    TypeError,
    "append op elementwise_add: broadcast: shapes [2, 3] and [4] do not match",
  );
  assertThrows(
    () =>
      buildProgram(() =>
        mul(fillConstant({ shape: [2, 3] }), fillConstant({ shape: [4, 5] }))
      ),
    TypeError,
    "mul: X [2, 3] and Y [4, 5] do not multiply",
  );
});

Deno.test("builder functions append to the current block of the guarded program", () => {
  const a = new Program();
  const b = new Program();
  a.guard(() => {
    fillConstant({ shape: [1] });
    b.guard(() => fillConstant({ shape: [2] }));
    fillConstant({ shape: [3] });
  });
  assertEquals(a.desc.blocks[0].ops.length, 2);
  assertEquals(b.desc.blocks[0].ops.length, 1);
});
