import { assertEquals, assertRejects } from "@std/assert";
import {
  abs,
  assignValue,
  ceil,
  cos,
  elementwiseAdd,
  elementwiseDiv,
  elementwiseFloordiv,
  elementwiseMax,
  elementwiseMin,
  elementwiseMod,
  elementwiseMul,
  elementwisePow,
  elementwiseSub,
  equal,
  exp,
  fillConstant,
  floor,
  greaterEqual,
  greaterThan,
  lessEqual,
  lessThan,
  log,
  logicalAnd,
  logicalNot,
  logicalOr,
  logicalXor,
  notEqual,
  print,
  reciprocal,
  relu,
  round,
  scale,
  sigmoid,
  sin,
  sqrt,
  square,
  tanh,
  type UnaryBuilder,
} from "../../../mod.ts";
import { ELEMENTWISE_OPS } from "../../../runtime/ops/elementwise.ts";
import { Panic } from "../../../scheduler/panic.ts";
import { type OpCase, testOpCases } from "../../_helpers/op_cases.ts";
import { runProgram } from "../../_helpers/run_program.ts";

const f32 = Math.fround;
const f16 = Math.f16round;
const m23 = () => assignValue([1, 2, 3, 4, 5, 6], { shape: [2, 3] });
const bools = (values: boolean[], shape?: number[]) =>
  assignValue(values, { dtype: "bool", shape });
const int32s = (values: number[]) => assignValue(values, { dtype: "int32" });
const int64s = (values: bigint[]) => assignValue(values, { dtype: "int64" });

// The activations on float32 [-1.5, 0.5, 2.5], against JS math rounded to
// float32 (the kernels compute float32 in float32).
const X = [-1.5, 0.5, 2.5];
function activation(
  builder: UnaryBuilder,
  reference: (x: number) => number,
  input = X,
): OpCase[] {
  return [{
    what: "applies to float32 elementwise",
    build: () => builder(assignValue(input)),
    tensors: [{
      dtype: "float32",
      shape: [input.length],
      values: input.map((x) => f32(reference(f32(x)))),
    }],
  }];
}

testOpCases("ELEMENTWISE_OPS", ELEMENTWISE_OPS, {
  elementwise_add: [
    {
      what: "broadcasts [2, 3] with [3] (NumPy)",
      build: () => {
        const z = elementwiseAdd(m23(), assignValue([10, 20, 30]));
        print(z);
        return z;
      },
      lines: ["[[11, 22, 33], [14, 25, 36]]"],
      tensors: [{ dtype: "float32", shape: [2, 3] }],
    },
    {
      what: "broadcasts [2, 1] with [1, 3] and [3] with [2, 3]",
      build: () => [
        elementwiseAdd(
          assignValue([1, 2], { shape: [2, 1] }),
          assignValue([10, 20, 30], { shape: [1, 3] }),
        ),
        elementwiseAdd(assignValue([1, 2, 3]), m23()),
      ],
      tensors: [
        {
          dtype: "float32",
          shape: [2, 3],
          values: [[11, 21, 31], [12, 22, 32]],
        },
        { dtype: "float32", shape: [2, 3], values: [[2, 4, 6], [5, 7, 9]] },
      ],
    },
    {
      what: "aligns Y to X from Paddle's axis",
      build: () => [
        elementwiseAdd(m23(), assignValue([10, 20]), { axis: 0 }),
        elementwiseAdd(
          fillConstant({ shape: [2, 3, 2], value: 0 }),
          assignValue([1, 2, 3]),
          { axis: 1 },
        ),
      ],
      tensors: [
        {
          dtype: "float32",
          shape: [2, 3],
          values: [[11, 12, 13], [24, 25, 26]],
        },
        {
          dtype: "float32",
          shape: [2, 3, 2],
          values: [[[1, 1], [2, 2], [3, 3]], [[1, 1], [2, 2], [3, 3]]],
        },
      ],
    },
    {
      what: "adds in float32, float64 and float16 with their own rounding",
      build: () => {
        const c = (dtype: "float32" | "float64" | "float16", v: number) =>
          fillConstant({ shape: [1], dtype, value: v });
        const outs = [
          elementwiseAdd(c("float32", 0.1), c("float32", 0.2)),
          elementwiseAdd(c("float64", 0.1), c("float64", 0.2)),
          elementwiseAdd(c("float16", 0.1), c("float16", 0.2)),
        ];
        outs.forEach((o) => print(o));
        return outs;
      },
      lines: ["0.3", "0.30000000000000004", "0.2998"],
      tensors: [
        { dtype: "float32", shape: [1], values: [f32(f32(0.1) + f32(0.2))] },
        { dtype: "float64", shape: [1], values: [0.1 + 0.2] },
        { dtype: "float16", shape: [1], values: [f16(f16(0.1) + f16(0.2))] },
      ],
    },
    {
      what: "adds int64 beyond 2^53 exactly",
      build: () =>
        elementwiseAdd(
          fillConstant({ shape: [1], dtype: "int64", value: 2n ** 53n }),
          fillConstant({ shape: [1], dtype: "int64", value: 1 }),
        ),
      tensors: [{ dtype: "int64", shape: [1], values: [2n ** 53n + 1n] }],
    },
    {
      what: "broadcasts rank 0 and empty shapes",
      build: () => [
        elementwiseAdd(assignValue([1, 2]), fillConstant({ shape: [] })),
        elementwiseAdd(fillConstant({ shape: [0] }), assignValue([1])),
        elementwiseAdd(fillConstant({ shape: [0, 3] }), assignValue([1, 2, 3])),
        elementwiseAdd(
          fillConstant({ shape: [] }),
          fillConstant({ shape: [] }),
        ),
      ],
      tensors: [
        { dtype: "float32", shape: [2], values: [1, 2] },
        { dtype: "float32", shape: [0], values: [] },
        { dtype: "float32", shape: [0, 3], values: [] },
        { dtype: "float32", shape: [], values: 0 },
      ],
    },
    {
      what: "promotes int32 + float32 to float32",
      build: () => elementwiseAdd(int32s([1, 2]), assignValue([0.5, 0.5])),
      tensors: [{ dtype: "float32", shape: [2], values: [1.5, 2.5] }],
    },
  ],
  elementwise_sub: [{
    what: "subtracts with broadcasting",
    build: () => elementwiseSub(m23(), assignValue([1])),
    tensors: [{
      dtype: "float32",
      shape: [2, 3],
      values: [[0, 1, 2], [3, 4, 5]],
    }],
  }],
  elementwise_mul: [{
    what: "multiplies int64 exactly and float32 with broadcasting",
    build: () => [
      elementwiseMul(
        int64s([2n ** 31n + 1n, -3n]),
        int64s([2n ** 31n + 1n, 5n]),
      ),
      elementwiseMul(
        assignValue([1, 2], { shape: [2, 1] }),
        assignValue([1, 10, 100]),
      ),
    ],
    tensors: [
      { dtype: "int64", shape: [2], values: [4611686022722355201n, -15n] },
      { dtype: "float32", shape: [2, 3], values: [[1, 10, 100], [2, 20, 200]] },
    ],
  }],
  elementwise_div: [
    {
      what: "truncates integers and gives NaN and ±Infinity for floats",
      build: () => {
        const i = elementwiseDiv(int32s([7, -7]), int32s([2, 2]));
        const f = elementwiseDiv(assignValue([0, 1, -1]), assignValue([0]));
        print(i);
        print(f);
        return [i, f];
      },
      lines: ["[3, -3]", "[NaN, Infinity, -Infinity]"],
      tensors: [
        { dtype: "int32", shape: [2], values: [3, -3] },
        { dtype: "float32", shape: [3], values: [NaN, Infinity, -Infinity] },
      ],
    },
  ],
  elementwise_max: [{
    what: "takes the larger value, broadcasting",
    build: () => elementwiseMax(assignValue([1, 5, -2]), assignValue([3])),
    tensors: [{ dtype: "float32", shape: [3], values: [3, 5, 3] }],
  }],
  elementwise_min: [{
    what: "takes the smaller value in int64",
    build: () => elementwiseMin(int64s([1n, 5n, -2n]), int64s([3n])),
    tensors: [{ dtype: "int64", shape: [3], values: [1n, 3n, -2n] }],
  }],
  elementwise_pow: [{
    what: "raises int32 and float32",
    build: () => [
      elementwisePow(int32s([2, 3]), int32s([10, 2])),
      elementwisePow(assignValue([4, 2]), assignValue([0.5])),
    ],
    tensors: [
      { dtype: "int32", shape: [2], values: [1024, 9] },
      { dtype: "float32", shape: [2], values: [2, f32(Math.SQRT2)] },
    ],
  }],
  elementwise_mod: [{
    what: "takes the sign of Y, for ints and floats",
    build: () => [
      elementwiseMod(int32s([7, -7, 7, -7]), int32s([3, 3, -3, -3])),
      elementwiseMod(assignValue([5.5, -5.5]), assignValue([2])),
    ],
    tensors: [
      { dtype: "int32", shape: [4], values: [1, 2, -2, -1] },
      { dtype: "float32", shape: [2], values: [1.5, 0.5] },
    ],
  }],
  elementwise_floordiv: [{
    what: "rounds toward negative infinity",
    build: () => [
      elementwiseFloordiv(int64s([7n, -7n]), int64s([2n])),
      elementwiseFloordiv(assignValue([7, -7]), assignValue([2])),
    ],
    tensors: [
      { dtype: "int64", shape: [2], values: [3n, -4n] },
      { dtype: "float32", shape: [2], values: [3, -4] },
    ],
  }],
  less_than: [{
    what: "compares with broadcasting into bool",
    build: () => {
      const z = lessThan(assignValue([1, 2, 3]), assignValue([2]));
      print(z);
      return z;
    },
    lines: ["[true, false, false]"],
    tensors: [{ dtype: "bool", shape: [3], values: [true, false, false] }],
  }],
  less_equal: [{
    what: "compares int32",
    build: () => lessEqual(int32s([1, 2, 3]), int32s([2])),
    tensors: [{ dtype: "bool", shape: [3], values: [true, true, false] }],
  }],
  greater_than: [{
    what: "compares int64 beyond 2^53 exactly",
    build: () =>
      greaterThan(int64s([2n ** 53n + 1n, 2n ** 53n]), int64s([2n ** 53n])),
    tensors: [{ dtype: "bool", shape: [2], values: [true, false] }],
  }],
  greater_equal: [{
    what: "compares float64",
    build: () =>
      greaterEqual(
        assignValue([1, 2, 3], { dtype: "float64" }),
        assignValue([2], { dtype: "float64" }),
      ),
    tensors: [{ dtype: "bool", shape: [3], values: [false, true, true] }],
  }],
  equal: [{
    what: "compares mixed int32 and float32",
    build: () => equal(int32s([1, 2]), assignValue([1, 2.5])),
    tensors: [{ dtype: "bool", shape: [2], values: [true, false] }],
  }],
  not_equal: [{
    what: "compares bools",
    build: () => notEqual(bools([true, false]), bools([true, true])),
    tensors: [{ dtype: "bool", shape: [2], values: [false, true] }],
  }],
  logical_and: [{
    what: "ands bools with broadcasting",
    build: () => logicalAnd(bools([true, false], [2, 1]), bools([true, false])),
    tensors: [{
      dtype: "bool",
      shape: [2, 2],
      values: [[true, false], [false, false]],
    }],
  }],
  logical_or: [{
    what: "ors bools",
    build: () =>
      logicalOr(
        bools([true, true, false, false]),
        bools([true, false, true, false]),
      ),
    tensors: [{ dtype: "bool", shape: [4], values: [true, true, true, false] }],
  }],
  logical_xor: [{
    what: "xors bools",
    build: () =>
      logicalXor(
        bools([true, true, false, false]),
        bools([true, false, true, false]),
      ),
    tensors: [{
      dtype: "bool",
      shape: [4],
      values: [false, true, true, false],
    }],
  }],
  logical_not: [{
    what: "negates bools, and treats nonzero numbers as true",
    build: () => [
      logicalNot(bools([true, false])),
      logicalNot(assignValue([0, 2])),
    ],
    tensors: [
      { dtype: "bool", shape: [2], values: [false, true] },
      { dtype: "bool", shape: [2], values: [true, false] },
    ],
  }],
  relu: [
    ...activation(relu, (x) => Math.max(x, 0)),
    {
      what: "keeps int32",
      build: () => relu(int32s([-3, 4])),
      tensors: [{ dtype: "int32", shape: [2], values: [0, 4] }],
    },
  ],
  sigmoid: [
    ...activation(sigmoid, (x) => 1 / (1 + Math.exp(-x))),
    {
      what: "computes float64 in float64",
      build: () => sigmoid(assignValue([0.5], { dtype: "float64" })),
      tensors: [{
        dtype: "float64",
        shape: [1],
        values: [1 / (1 + Math.exp(-0.5))],
      }],
    },
  ],
  tanh: activation(tanh, Math.tanh),
  exp: activation(exp, Math.exp),
  log: activation(log, Math.log, [1, 4, 0, -1]),
  sqrt: activation(sqrt, Math.sqrt, [1, 4, 0, -1]),
  abs: [
    ...activation(abs, Math.abs),
    {
      what: "keeps int32",
      build: () => abs(int32s([-3, 4])),
      tensors: [{ dtype: "int32", shape: [2], values: [3, 4] }],
    },
  ],
  square: [
    ...activation(square, (x) => x * x),
    {
      what: "squares int64 exactly",
      build: () => square(int64s([3037000499n])),
      tensors: [{ dtype: "int64", shape: [1], values: [3037000499n ** 2n] }],
    },
  ],
  sin: activation(sin, Math.sin),
  cos: activation(cos, Math.cos),
  floor: activation(floor, Math.floor),
  ceil: activation(ceil, Math.ceil),
  round: [{
    what: "rounds halves away from zero",
    build: () => round(assignValue([-1.5, 0.5, 2.5, -0.4, 1.4])),
    tensors: [{ dtype: "float32", shape: [5], values: [-2, 1, 3, -0, 1] }],
  }],
  reciprocal: activation(reciprocal, (x) => 1 / x),
  scale: [{
    what: "computes scale * x + bias, or scale * (x + bias)",
    build: () => {
      const x = assignValue([1, 2]);
      return [
        scale(x, { scale: 2, bias: 1 }),
        scale(x, { scale: 2, bias: 1, biasAfterScale: false }),
        scale(int32s([1, 2]), { scale: 3, bias: 1 }),
        scale(x),
      ];
    },
    tensors: [
      { dtype: "float32", shape: [2], values: [3, 5] },
      { dtype: "float32", shape: [2], values: [4, 6] },
      { dtype: "int32", shape: [2], values: [4, 7] },
      { dtype: "float32", shape: [2], values: [1, 2] },
    ],
  }],
});

Deno.test("elementwise_div panics on an integer division by zero, naming the op", async () => {
  const panic: Panic = await assertRejects(
    () =>
      runProgram(() => {
        print(elementwiseDiv(int32s([1]), int32s([0])));
      }),
    Panic,
  );
  assertEquals(panic.where, "block 0 op 2 elementwise_div");
});
