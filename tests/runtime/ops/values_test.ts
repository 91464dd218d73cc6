import { create } from "@bufbuild/protobuf";
import {
  assert,
  assertEquals,
  assertNotEquals,
  assertRejects,
  assertStringIncludes,
} from "@std/assert";
import {
  AttrType,
  ProgramDescSchema,
  VarType_Type,
} from "../../../gen/rill/v1/framework_pb.ts";
import {
  appendLayer,
  assign,
  assignValue,
  cast,
  createArray,
  defaultProgram,
  fillConstant,
  fillZerosLike,
  gaussianRandom,
  increment,
  print,
  range,
  shape,
  uniformRandom,
} from "../../../mod.ts";
import type { Variable } from "../../../runtime/build/program.ts";
import { VALUE_OPS } from "../../../runtime/ops/values.ts";
import { Panic } from "../../../scheduler/panic.ts";
import { op, tensor } from "../../_helpers/desc_init.ts";
import { int64 } from "../../_helpers/int64.ts";
import { validationError } from "../../_helpers/invalid_program.ts";
import { testOpCases } from "../../_helpers/op_cases.ts";
import {
  printedBy,
  runForTensor,
  runProgram,
  tensorOf,
} from "../../_helpers/run_program.ts";

testOpCases("VALUE_OPS", VALUE_OPS, {
  fill_constant: [
    {
      what: "fills float32, rounding the value to float32",
      build: () => {
        const x = fillConstant({ shape: [2], value: 0.1 });
        print(x);
        return x;
      },
      lines: ["[0.1, 0.1]"],
      tensors: [{
        dtype: "float32",
        shape: [2],
        values: [Math.fround(0.1), Math.fround(0.1)],
      }],
    },
    {
      what: "holds an int64 beyond 2^53 exactly (str_value)",
      build: () => {
        const x = int64(2n ** 60n + 1n);
        print(x);
        return x;
      },
      lines: ["1152921504606846977"],
      tensors: [{ dtype: "int64", shape: [1], values: [2n ** 60n + 1n] }],
    },
    {
      what: "fills bool, float16 and float64",
      build: () => [
        fillConstant({ shape: [2], dtype: "bool", value: true }),
        fillConstant({ shape: [1], dtype: "float16", value: 0.1 }),
        fillConstant({ shape: [1], dtype: "float64", value: 0.1 }),
      ],
      tensors: [
        { dtype: "bool", shape: [2], values: [true, true] },
        { dtype: "float16", shape: [1], values: [Math.f16round(0.1)] },
        { dtype: "float64", shape: [1], values: [0.1] },
      ],
    },
    {
      what: "makes rank-0 and empty tensors",
      build: () => {
        const r0 = fillConstant({ shape: [], dtype: "int32", value: 7 });
        const e = fillConstant({ shape: [0], dtype: "int32", value: 7 });
        const e2 = fillConstant({ shape: [2, 0], value: 7 });
        print(r0);
        print(e);
        print(e2);
        return [r0, e, e2];
      },
      lines: ["7", "[]", "[]"],
      tensors: [
        { dtype: "int32", shape: [], values: 7 },
        { dtype: "int32", shape: [0], values: [] },
        { dtype: "float32", shape: [2, 0], values: [[], []] },
      ],
    },
  ],
  assign_value: [
    {
      what: "makes float32, int32, int64 and bool tensors",
      build: () => {
        const f = assignValue([1, 2, 3, 4.5], { shape: [2, 2] });
        const i = assignValue([-1, 2], { dtype: "int32" });
        const l = assignValue([2n ** 62n + 3n, -(2n ** 63n)], {
          dtype: "int64",
        });
        const b = assignValue([true, false], { dtype: "bool" });
        for (const v of [f, i, l, b]) print(v);
        return [f, i, l, b];
      },
      lines: [
        "[[1, 2], [3, 4.5]]",
        "[-1, 2]",
        "[4611686018427387907, -9223372036854775808]",
        "[true, false]",
      ],
      tensors: [
        { dtype: "float32", shape: [2, 2], values: [[1, 2], [3, 4.5]] },
        { dtype: "int32", shape: [2], values: [-1, 2] },
        {
          dtype: "int64",
          shape: [2],
          values: [2n ** 62n + 3n, -(2n ** 63n)],
        },
        { dtype: "bool", shape: [2], values: [true, false] },
      ],
    },
    {
      what: "makes an empty [0] tensor from no values",
      build: () => assignValue([], { shape: [0] }),
      tensors: [{ dtype: "float32", shape: [0], values: [] }],
    },
  ],
  assign: [
    {
      what: "binds Out to X's tensor",
      build: () => {
        const y = assign(assignValue([1, 2], { dtype: "int32" }));
        print(y);
        return y;
      },
      lines: ["[1, 2]"],
      tensors: [{ dtype: "int32", shape: [2], values: [1, 2] }],
    },
    {
      what: "shares a tensor array by reference",
      build: () => {
        const a = createArray();
        const b = assign(a);
        appendLayer(
          "write_to_array",
          {
            X: fillConstant({ shape: [1], value: 5 }),
            I: int64(0),
          },
          {},
          { Out: b },
        );
        print(a, { message: "a" });
      },
      lines: ["a [5]"],
    },
  ],
  fill_zeros_like: [{
    what: "makes zeros of X's shape and dtype",
    build: () => {
      const z = fillZerosLike(assignValue([1, 2, 3, 4], {
        dtype: "int64",
        shape: [2, 2],
      }));
      print(z);
      return z;
    },
    lines: ["[[0, 0], [0, 0]]"],
    tensors: [{ dtype: "int64", shape: [2, 2], values: [[0n, 0n], [0n, 0n]] }],
  }],
  cast: [{
    what: "converts float32 to int32 (truncating), int64, bool and float16",
    build: () => {
      const x = assignValue([1.7, -1.7, 0]);
      return [
        cast(x, "int32"),
        cast(x, "int64"),
        cast(x, "bool"),
        cast(x, "float16"),
      ];
    },
    tensors: [
      { dtype: "int32", shape: [3], values: [1, -1, 0] },
      { dtype: "int64", shape: [3], values: [1n, -1n, 0n] },
      { dtype: "bool", shape: [3], values: [true, true, false] },
      {
        dtype: "float16",
        shape: [3],
        values: [Math.f16round(1.7), Math.f16round(-1.7), 0],
      },
    ],
  }],
  increment: [
    {
      what: "adds 1 to an int64 beyond 2^53 exactly, in place",
      build: () => {
        const i = int64(2n ** 60n);
        increment(i);
        print(i);
        return i;
      },
      lines: ["1152921504606846977"],
      tensors: [{ dtype: "int64", shape: [1], values: [2n ** 60n + 1n] }],
    },
    {
      what: "adds a fractional step to float32",
      build: () => {
        const x = fillConstant({ shape: [2], value: 1 });
        return increment(x, { step: 0.5, out: fillZerosLike(x) });
      },
      tensors: [{ dtype: "float32", shape: [2], values: [1.5, 1.5] }],
    },
  ],
  uniform_random: [{
    what: "makes a tensor of the shape and dtype asked",
    build: () => uniformRandom({ shape: [2, 3], min: 2, max: 3, seed: 7 }),
    tensors: [{ dtype: "float32", shape: [2, 3] }],
  }],
  gaussian_random: [{
    what: "makes a tensor of the shape and dtype asked",
    build: () => gaussianRandom({ shape: [3], dtype: "float64", seed: 7 }),
    tensors: [{ dtype: "float64", shape: [3] }],
  }],
  range: [
    {
      what: "counts from Start below End by Step (int32)",
      build: () => {
        const c = (v: number) =>
          fillConstant({ shape: [1], dtype: "int32", value: v });
        const r = range(c(0), c(10), c(3));
        print(r);
        return r;
      },
      lines: ["[0, 3, 6, 9]"],
      tensors: [{ dtype: "int32", shape: [4], values: [0, 3, 6, 9] }],
    },
    {
      what: "counts in float32 and may be empty",
      build: () => {
        const c = (v: number) => fillConstant({ shape: [1], value: v });
        return [range(c(0), c(1), c(0.25)), range(c(1), c(1), c(1))];
      },
      tensors: [
        { dtype: "float32", shape: [4], values: [0, 0.25, 0.5, 0.75] },
        { dtype: "float32", shape: [0], values: [] },
      ],
    },
  ],
  shape: [{
    what: "gives the dims as int32, including 0 and rank 0",
    build: () => [
      shape(fillConstant({ shape: [2, 3, 0] })),
      shape(fillConstant({ shape: [] })),
    ],
    tensors: [
      { dtype: "int32", shape: [3], values: [2, 3, 0] },
      { dtype: "int32", shape: [0], values: [] },
    ],
  }],
});

Deno.test("fill_constant str_value overrides value and is exact for int64", async () => {
  const lines = await printedBy(() => {
    const big = appendLayer("fill_constant", {}, {
      shape: [1],
      dtype: 3,
      value: 1,
      str_value: "-9223372036854775808",
    }).Out[0];
    const f = appendLayer("fill_constant", {}, {
      shape: [1],
      dtype: 6,
      value: 1,
      str_value: "0.1",
    }).Out[0];
    print(big);
    print(f);
  });
  assertEquals(lines, ["-9223372036854775808", "0.1"]);
});

Deno.test("fill_constant keeps a number value float32 cannot hold exact", async () => {
  // A FLOAT attribute is float32 on the wire; the builder adds str_value.
  const [i, f] = (await runProgram(() => [
    int64(123456789),
    fillConstant({ shape: [1], dtype: "float64", value: 0.1 }),
  ])).values.map(tensorOf);
  assertEquals(i.item(0), 123456789n);
  assertEquals(f.item(0), 0.1);
});

Deno.test("fill_constant accepts shape as INTS as well as LONGS", async () => {
  const tensor = (dtype = VarType_Type.FP32) => ({
    type: VarType_Type.LOD_TENSOR,
    lodTensor: { tensor: { dataType: dtype } },
  });
  const program = create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      vars: [{ name: "a", type: tensor() }, { name: "b", type: tensor() }],
      ops: [
        {
          type: "fill_constant",
          outputs: [{ parameter: "Out", arguments: ["a"] }],
          attrs: [
            { name: "shape", type: AttrType.INTS, ints: [2] },
            { name: "value", type: AttrType.FLOAT, f: 3 },
          ],
        },
        {
          type: "fill_constant",
          outputs: [{ parameter: "Out", arguments: ["b"] }],
          attrs: [{ name: "shape", type: AttrType.LONGS, longs: [1n, 2n] }],
        },
        { type: "print", inputs: [{ parameter: "In", arguments: ["a"] }] },
        { type: "print", inputs: [{ parameter: "In", arguments: ["b"] }] },
      ],
    }],
  });
  assertEquals((await runProgram(program)).lines, ["[3, 3]", "[[0, 0]]"]);
});

Deno.test("uniform_random with a fixed seed is reproducible and in [min, max)", async () => {
  const build = () => uniformRandom({ shape: [1000], min: 2, max: 3, seed: 7 });
  const a = await runForTensor(build);
  const b = await runForTensor(build, { seed: 99 });
  assertEquals(a.toNested(), b.toNested());
  const values = a.toNested() as number[];
  assert(values.every((v) => v >= 2 && v < 3));
  // Not a constant: the draws spread over the range.
  assert(Math.min(...values) < 2.1 && Math.max(...values) > 2.9);
  const other = await runForTensor(() =>
    uniformRandom({ shape: [1000], min: 2, max: 3, seed: 8 })
  );
  assertNotEquals(other.toNested(), a.toNested());
});

Deno.test("uniform_random with seed 0 draws from the executor's seed", async () => {
  const build = () => uniformRandom({ shape: [8], min: -1, max: 1 });
  const a = await runForTensor(build, { seed: 5 });
  const b = await runForTensor(build, { seed: 5 });
  const c = await runForTensor(build, { seed: 6 });
  assertEquals(a.toNested(), b.toNested());
  assertNotEquals(a.toNested(), c.toNested());
  assert((a.toNested() as number[]).every((v) => v >= -1 && v < 1));
});

/** What a `while` loop of two passes prints of `draw()`, once per pass. */
async function printedPerPass(
  draw: (out: Variable) => void,
): Promise<string[]> {
  return await printedBy(() => {
    const p = defaultProgram();
    const r = p.currentBlock.createVar({ name: "r" });
    const i = int64(0);
    const cond = fillConstant({ shape: [1], dtype: "bool", value: true });
    appendLayer("less_than", { X: i, Y: int64(2) }, {}, { Out: cond });
    const body = p.subBlock(() => {
      draw(r);
      print(r);
      increment(i);
      appendLayer("less_than", { X: i, Y: int64(2) }, {}, { Out: cond });
    });
    p.currentBlock.appendOp({
      type: "while",
      inputs: { Condition: cond },
      attrs: { sub_block: body },
    });
  });
}

Deno.test("uniform_random with a fixed seed draws the same on each run of the op", async () => {
  // As Paddle's kernels do: a loop's passes get the same tensor.
  const lines = await printedPerPass((out) =>
    uniformRandom({ shape: [3], seed: 3, out })
  );
  assertEquals(lines.length, 2);
  assertEquals(lines[0], lines[1]);
});

Deno.test("gaussian_random with a fixed seed draws the same on each run of the op", async () => {
  const lines = await printedPerPass((out) =>
    gaussianRandom({ shape: [3], seed: 3, out })
  );
  assertEquals(lines.length, 2);
  assertEquals(lines[0], lines[1]);
  // Seed 0 draws from the run's stream: each pass draws anew.
  const fresh = await printedPerPass((out) =>
    gaussianRandom({ shape: [3], out })
  );
  assertNotEquals(fresh[0], fresh[1]);
});

Deno.test("gaussian_random with a fixed seed is reproducible with the mean and std asked", async () => {
  const build = () =>
    gaussianRandom({
      shape: [4000],
      dtype: "float64",
      mean: 10,
      std: 2,
      seed: 11,
    });
  const a = await runForTensor(build);
  const b = await runForTensor(build);
  assertEquals(a.toNested(), b.toNested());
  const values = a.toNested() as number[];
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) /
    values.length;
  assert(Math.abs(mean - 10) < 0.15, `mean ${mean}`);
  assert(Math.abs(Math.sqrt(variance) - 2) < 0.15, `std ${variance}`);
});

Deno.test("validateProgram() refuses fill_constant with a negative dim in shape", () => {
  const e = validationError([tensor("y")], [
    op("fill_constant", {}, { Out: ["y"] }, [
      { name: "shape", type: AttrType.LONGS, longs: [1n, -2147483648n] },
    ]),
  ]);
  assertEquals(
    e.message,
    'p.pb: block 0 op 0 (fill_constant): attribute "shape": [1, -2147483648]: dim 1 is negative',
  );
});

Deno.test("fill_constant panics naming a shape too large for a tensor", async () => {
  const e = await assertRejects(
    () =>
      runProgram(() => {
        fillConstant({ shape: [100_000, 100_000] });
      }),
    Panic,
  );
  assertStringIncludes(
    e.message,
    "shape [100000, 100000]: 10000000000 elements, more than a tensor may hold",
  );
});

Deno.test("validateProgram() refuses an int64 fill_constant whose value is not finite", () => {
  const e = validationError([tensor("y")], [
    op("fill_constant", {}, { Out: ["y"] }, [
      { name: "dtype", type: AttrType.INT, i: VarType_Type.INT64 },
      { name: "value", type: AttrType.FLOAT, f: Infinity },
    ]),
  ]);
  assertEquals(
    e.message,
    'p.pb: block 0 op 0 (fill_constant): attribute "value": Infinity is not a finite number for int64',
  );
});
