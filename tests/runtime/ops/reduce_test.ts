import { assertEquals } from "@std/assert";
import {
  appendLayer,
  assignValue,
  fillConstant,
  matmul,
  mean,
  mul,
  print,
  Program,
  reduceMax,
  reduceMean,
  reduceMin,
  reduceProd,
  reduceSum,
  softmax,
  sum,
} from "../../../mod.ts";
import type { Variable } from "../../../runtime/build/program.ts";
import { REDUCE_OPS } from "../../../runtime/ops/reduce.ts";
import { AttrType } from "../../../gen/rill/v1/framework_pb.ts";
import { op, tensor } from "../../_helpers/desc_init.ts";
import {
  assertValid,
  validationError,
} from "../../_helpers/invalid_program.ts";
import { testOpCases } from "../../_helpers/op_cases.ts";
import { runForTensor } from "../../_helpers/run_program.ts";

const f32 = Math.fround;
const m23 = () => assignValue([1, 2, 3, 4, 5, 6], { shape: [2, 3] });

testOpCases("REDUCE_OPS", REDUCE_OPS, {
  reduce_sum: [
    {
      what: "sums every element to [1], or along dims",
      build: () => {
        const x = m23();
        const all = reduceSum(x, { reduceAll: true });
        print(all);
        return [
          all,
          reduceSum(x, { dim: [0] }),
          reduceSum(x, { dim: [1], keepDim: true }),
          reduceSum(x, { dim: [-1] }),
        ];
      },
      lines: ["21"],
      tensors: [
        { dtype: "float32", shape: [1], values: [21] },
        { dtype: "float32", shape: [3], values: [5, 7, 9] },
        { dtype: "float32", shape: [2, 1], values: [[6], [15]] },
        { dtype: "float32", shape: [2], values: [6, 15] },
      ],
    },
    {
      what: "sums int64 exactly and an empty tensor to 0",
      build: () => [
        reduceSum(assignValue([2n ** 60n, 1n], { dtype: "int64" }), {
          reduceAll: true,
        }),
        reduceSum(fillConstant({ shape: [0] }), { reduceAll: true }),
      ],
      tensors: [
        { dtype: "int64", shape: [1], values: [2n ** 60n + 1n] },
        { dtype: "float32", shape: [1], values: [0] },
      ],
    },
  ],
  reduce_mean: [{
    what: "averages along the last dim",
    build: () => reduceMean(m23(), { dim: [-1] }),
    tensors: [{ dtype: "float32", shape: [2], values: [2, 5] }],
  }],
  reduce_max: [{
    what: "takes the max along dim 0",
    build: () => reduceMax(m23(), { dim: [0] }),
    tensors: [{ dtype: "float32", shape: [3], values: [4, 5, 6] }],
  }],
  reduce_min: [{
    what: "takes the min of every element, in int32",
    build: () =>
      reduceMin(assignValue([3, -1, 2], { dtype: "int32" }), {
        reduceAll: true,
      }),
    tensors: [{ dtype: "int32", shape: [1], values: [-1] }],
  }],
  reduce_prod: [{
    what: "multiplies along dim 1",
    build: () => reduceProd(m23(), { dim: [1] }),
    tensors: [{ dtype: "float32", shape: [2], values: [6, 120] }],
  }],
  mean: [{
    what: "averages every element into [1]",
    build: () => mean(m23()),
    tensors: [{ dtype: "float32", shape: [1], values: [3.5] }],
  }],
  sum: [{
    what: "adds every input elementwise",
    build: () => {
      const x = m23();
      return sum([x, x, x]);
    },
    tensors: [{
      dtype: "float32",
      shape: [2, 3],
      values: [[3, 6, 9], [12, 15, 18]],
    }],
  }],
  softmax: [{
    what: "normalises along the last axis, or the axis given",
    build: () => {
      const x = assignValue([1, 1, 1, 1, 0, 0], { shape: [2, 3] });
      return [softmax(x), softmax(x, { axis: 0 })];
    },
    tensors: [
      {
        dtype: "float32",
        shape: [2, 3],
        values: [
          [1 / 3, 1 / 3, 1 / 3].map(f32),
          [
            Math.E / (Math.E + 2),
            1 / (Math.E + 2),
            1 / (Math.E + 2),
          ].map(f32),
        ],
      },
      {
        dtype: "float32",
        shape: [2, 3],
        values: [
          [0.5, Math.E / (Math.E + 1), Math.E / (Math.E + 1)].map(f32),
          [0.5, 1 / (Math.E + 1), 1 / (Math.E + 1)].map(f32),
        ],
      },
    ],
  }],
  mul: [
    {
      what: "multiplies 2-D matrices (the design doc's mult)",
      build: () => {
        const y = mul(
          assignValue([1, 2, 3, 4], { shape: [2, 2] }),
          assignValue([1, 3, 2, 4], { shape: [2, 2] }),
        );
        print(y, { message: "Y" });
        return y;
      },
      lines: ["Y [[5, 11], [11, 25]]"],
      tensors: [{ dtype: "float32", shape: [2, 2] }],
    },
    {
      what: "flattens X by x_num_col_dims",
      build: () =>
        mul(
          assignValue([1, 2, 3, 4, 5, 6, 7, 8], { shape: [2, 2, 2] }),
          assignValue([1, 1], { shape: [2, 1] }),
          { xNumColDims: 2 },
        ),
      tensors: [{
        dtype: "float32",
        shape: [2, 2, 1],
        values: [[[3], [7]], [[11], [15]]],
      }],
    },
  ],
  matmul: [
    {
      what: "multiplies with transposes and alpha",
      build: () => {
        const x = m23();
        return [
          matmul(x, x, { transposeY: true }),
          matmul(x, x, { transposeX: true, alpha: 2 }),
        ];
      },
      tensors: [
        { dtype: "float32", shape: [2, 2], values: [[14, 32], [32, 77]] },
        {
          dtype: "float32",
          shape: [3, 3],
          values: [[34, 44, 54], [44, 58, 72], [54, 72, 90]],
        },
      ],
    },
    {
      what: "broadcasts a batch against a matrix",
      build: () =>
        matmul(
          assignValue([1, 2, 3, 4, 5, 6, 7, 8], { shape: [2, 2, 2] }),
          assignValue([0, 1, 1, 0], { shape: [2, 2] }),
        ),
      tensors: [{
        dtype: "float32",
        shape: [2, 2, 2],
        values: [[[2, 1], [4, 3]], [[6, 5], [8, 7]]],
      }],
    },
  ],
  matmul_v2: [
    {
      what: "multiplies with trans_x and trans_y as Paddle writes them",
      build: () => {
        const x = m23();
        const x32 = assignValue([1, 2, 3, 4, 5, 6], { shape: [3, 2] });
        const y23 = assignValue([1, 0, 1, 0, 1, 1], { shape: [2, 3] });
        return [
          matmulV2(x, x, { trans_x: false, trans_y: true }),
          matmulV2(x32, y23, { trans_x: true, trans_y: true }),
          matmulV2(x, x32, {}),
        ];
      },
      tensors: [
        { dtype: "float32", shape: [2, 2], values: [[14, 32], [32, 77]] },
        { dtype: "float32", shape: [2, 2], values: [[6, 8], [8, 10]] },
        { dtype: "float32", shape: [2, 2], values: [[22, 28], [49, 64]] },
      ],
    },
    {
      what: "takes a 1-D X as a row and a 1-D Y as a column, ignoring trans",
      build: () => {
        const v = assignValue([1, 2, 3]);
        const y = assignValue([1, 0, 0, 1, 1, 1], { shape: [3, 2] });
        return [
          matmulV2(v, y, { trans_x: true }),
          matmulV2(m23(), assignValue([1, 1, 1]), { trans_y: true }),
          matmulV2(v, assignValue([1, 1, 1]), {}),
        ];
      },
      tensors: [
        { dtype: "float32", shape: [2], values: [4, 5] },
        { dtype: "float32", shape: [2], values: [6, 15] },
        { dtype: "float32", shape: [1], values: [6] },
      ],
    },
    {
      what: "broadcasts batch dims of both operands",
      build: () =>
        matmulV2(
          assignValue([1, 2, 3, 4], { shape: [2, 1, 1, 2] }),
          assignValue([1, 0, 0, 1, 1, 1], { shape: [3, 2, 1] }),
          {},
        ),
      tensors: [{
        dtype: "float32",
        shape: [2, 3, 1, 1],
        values: [[[[1]], [[2]], [[3]]], [[[3]], [[4]], [[7]]]],
      }],
    },
  ],
});

function matmulV2(
  x: Variable,
  y: Variable,
  attrs: { trans_x?: boolean; trans_y?: boolean },
): Variable {
  return appendLayer("matmul_v2", { X: x, Y: y }, attrs).Out[0];
}

Deno.test("validateProgram() refuses a matmul_v2 whose inner dims differ, naming the op and shapes", () => {
  const e = validationError(
    [tensor("x", [2, 3]), tensor("y", [2, 3]), tensor("out")],
    [op("matmul_v2", { X: ["x"], Y: ["y"] }, { Out: ["out"] })],
  );
  assertEquals(e.where, {
    file: "p.pb",
    block: 0,
    op: 0,
    opType: "matmul_v2",
  });
  assertEquals(
    e.message,
    "p.pb: block 0 op 0 (matmul_v2): matmul_v2: X [2, 3] and Y [2, 3] do not multiply: inner dims 3 and 2",
  );
});

Deno.test("validateProgram() refuses matmul_v2 batch dims that do not broadcast", () => {
  const e = validationError(
    [tensor("x", [2, 2, 3]), tensor("y", [3, 3, 2]), tensor("out")],
    [op("matmul_v2", { X: ["x"], Y: ["y"] }, { Out: ["out"] })],
  );
  assertEquals(
    e.message,
    "p.pb: block 0 op 0 (matmul_v2): matmul_v2: the batch dims of X [2, 2, 3] and Y [3, 3, 2] differ",
  );
});

Deno.test("reduce_mean accepts Paddle's in_dtype and out_dtype at -1 and refuses a cast", () => {
  const vars = [tensor("x", [2, 3]), tensor("out")];
  const reduce = (outDtype: number) =>
    op("reduce_mean", { X: ["x"] }, { Out: ["out"] }, [
      { name: "in_dtype", type: AttrType.INT, i: -1 },
      { name: "out_dtype", type: AttrType.INT, i: outDtype },
    ]);
  assertValid(vars, [reduce(-1)]);
  const e = validationError(vars, [reduce(6)]);
  assertEquals(e.where, {
    file: "p.pb",
    block: 0,
    op: 0,
    opType: "reduce_mean",
    attr: "out_dtype",
  });
});

Deno.test("reduce_sum with reduce_all ignores dim", async () => {
  const t = await runForTensor(() =>
    appendLayer("reduce_sum", { X: m23() }, {
      dim: [0],
      reduce_all: true,
    }).Out[0]
  );
  assertEquals(t.toNested(), [21]);
});

Deno.test("reduce_sum without a dim attribute reduces dim 0, as Fluid's ReduceOpMaker", async () => {
  const out = await runForTensor(() => {
    const y = appendLayer("reduce_sum", { X: m23() }, {}).Out[0];
    assertEquals(y.shape, [3]);
    return y;
  });
  assertEquals(out.toNested(), [5, 7, 9]);
});

Deno.test("reduce_sum with reduce_all and keep_dim keeps every dim as 1", async () => {
  const out = await runForTensor(() => {
    const y = appendLayer("reduce_sum", { X: m23() }, {
      reduce_all: true,
      keep_dim: true,
    }).Out[0];
    assertEquals(y.shape, [1, 1]);
    return y;
  });
  assertEquals(out.toNested(), [[21]]);
});

Deno.test("reduceSum() writes dim, keep_dim and reduce_all, so the op needs no defaults", () => {
  const program = new Program();
  program.guard(() => {
    const x = m23();
    reduceSum(x);
    reduceSum(x, { dim: [1], keepDim: true });
    reduceSum(x, { reduceAll: false });
  });
  const written = program.desc.blocks[0].ops
    .filter((op) => op.type === "reduce_sum")
    .map((op) =>
      Object.fromEntries(
        op.attrs.map((a) => [a.name, a.name === "dim" ? a.ints : a.b]),
      )
    );
  assertEquals(written, [
    { dim: [0], keep_dim: false, reduce_all: true },
    { dim: [1], keep_dim: true, reduce_all: false },
    { dim: [0], keep_dim: false, reduce_all: false },
  ]);
});

Deno.test("reduceSum() reduces every dim by default, dim 0 with reduceAll false", async () => {
  const all = await runForTensor(() => reduceSum(m23()));
  assertEquals([all.shape, all.toNested()], [[1], [21]]);
  const first = await runForTensor(() =>
    reduceSum(m23(), { reduceAll: false })
  );
  assertEquals([first.shape, first.toNested()], [[3], [5, 7, 9]]);
  const over = await runForTensor(() =>
    reduceSum(m23(), { dim: [1], reduceAll: true })
  );
  assertEquals(over.toNested(), [21]);
});
