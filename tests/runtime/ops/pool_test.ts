import { create } from "@bufbuild/protobuf";
import { assertEquals, assertRejects, assertThrows } from "@std/assert";
import {
  AttrType,
  ProgramDescSchema,
} from "../../../gen/rill/v1/framework_pb.ts";
import {
  appendLayer,
  assignValue,
  defaultProgram,
  pool2d,
  ProgramError,
  Tensor,
  validateProgram,
  type Variable,
} from "../../../mod.ts";
import { POOL_OPS } from "../../../runtime/ops/pool.ts";
import { Panic } from "../../../scheduler/panic.ts";
import {
  type Ref,
  type RefPool,
  refPool,
  refTensor,
  refTranspose,
  seededValues,
} from "../../_helpers/conv_reference.ts";
import { op, tensor } from "../../_helpers/desc_init.ts";
import { type OpCase, testOpCases } from "../../_helpers/op_cases.ts";
import { runProgram } from "../../_helpers/run_program.ts";

// The kernel sums in float64 and rounds once, as the reference's values
// are rounded here, so results are compared exactly.
function input(shape: number[], seed: number): Ref {
  const size = shape.reduce((p, d) => p * d, 1);
  return { data: seededValues(size, seed, { lo: -8, hi: 8 }), shape };
}

function constant(r: Ref): Variable {
  return assignValue(Array.from(r.data), { shape: [...r.shape] });
}

// Every attribute Paddle 2.x writes on a pool2d, with `given` over its
// defaults, and its extra attributes.
function paddlePool(x: Variable, given: Record<string, unknown>): Variable {
  return appendLayer("pool2d", { X: x }, {
    pooling_type: "max",
    ksize: [2, 2],
    global_pooling: false,
    strides: [1, 1],
    paddings: [0, 0],
    exclusive: true,
    adaptive: false,
    ceil_mode: false,
    data_format: "NCHW",
    padding_algorithm: "EXPLICIT",
    use_cudnn: true,
    use_mkldnn: false,
    use_quantizer: false,
    mkldnn_data_type: "float32",
    is_test: true,
    ...given,
  } as never).Out[0];
}

function poolCase(
  what: string,
  shape: number[],
  given: Record<string, unknown>,
  window: RefPool,
): OpCase {
  const x = input(shape, 11);
  const kind = (given.pooling_type as "max" | "avg" | undefined) ?? "max";
  const want = refPool(kind, x, window);
  return {
    what,
    build: () => paddlePool(constant(x), given),
    tensors: [{
      dtype: "float32",
      shape: want.shape,
      values: refTensor(want, "float32").toNested(),
    }],
  };
}

testOpCases("POOL_OPS", POOL_OPS, {
  pool2d: [
    poolCase(
      "takes the max of 2×2 windows, stride 2, with Paddle's attribute set",
      [1, 2, 6, 7],
      { ksize: [2, 2], strides: [2, 2] },
      { ksize: [2, 2], strides: [2, 2] },
    ),
    poolCase(
      "averages padded 3×3 windows over their inside positions (exclusive)",
      [1, 2, 7, 7],
      { pooling_type: "avg", ksize: [3, 3], strides: [2, 2], paddings: [1, 1] },
      { ksize: [3, 3], strides: [2, 2], paddings: [1, 1, 1, 1] },
    ),
    poolCase(
      "averages over the whole window, padding counted, when not exclusive",
      [1, 1, 6, 5],
      {
        pooling_type: "avg",
        ksize: [3, 3],
        strides: [2, 2],
        paddings: [1, 1],
        exclusive: false,
      },
      {
        ksize: [3, 3],
        strides: [2, 2],
        paddings: [1, 1, 1, 1],
        exclusive: false,
      },
    ),
    poolCase(
      "averages into a 1×1 output when adaptive (mbv3's squeeze)",
      [2, 3, 5, 5],
      { pooling_type: "avg", ksize: [1, 1], adaptive: true },
      { ksize: [1, 1], adaptive: true },
    ),
    poolCase(
      "takes the max into a 2×3 output when adaptive, windows overlapping",
      [1, 2, 5, 7],
      { ksize: [2, 3], adaptive: true },
      { ksize: [2, 3], adaptive: true },
    ),
    poolCase(
      "pools the whole image when global_pooling, whatever ksize and paddings",
      [2, 2, 4, 3],
      {
        pooling_type: "avg",
        global_pooling: true,
        ksize: [1, 1],
        paddings: [1, 1],
      },
      { ksize: [4, 3] },
    ),
    poolCase(
      "counts a last partial window with ceil_mode",
      [1, 1, 7, 7],
      {
        ksize: [3, 3],
        strides: [2, 2],
        ceil_mode: true,
        paddings: [0, 1, 0, 1],
      },
      {
        ksize: [3, 3],
        strides: [2, 2],
        ceilMode: true,
        paddings: [0, 1, 0, 1],
      },
    ),
    poolCase(
      "pads SAME to ceil(in / stride)",
      [1, 1, 5, 6],
      {
        pooling_type: "avg",
        ksize: [3, 3],
        strides: [2, 2],
        padding_algorithm: "SAME",
      },
      { ksize: [3, 3], strides: [2, 2], paddings: [1, 1, 0, 1] },
    ),
    (() => {
      const x = input([2, 4, 5, 3], 12); // NCHW
      const o = { ksize: [2, 2], strides: [1, 1], paddings: [1, 1, 1, 1] };
      const want = refTranspose(refPool("max", x, o), [0, 2, 3, 1]);
      return {
        what: "reads and writes NHWC with data_format NHWC",
        build: () =>
          paddlePool(constant(refTranspose(x, [0, 2, 3, 1])), {
            ksize: [2, 2],
            paddings: [1, 1],
            data_format: "NHWC",
          }),
        tensors: [{
          dtype: "float32",
          shape: want.shape,
          values: refTensor(want, "float32").toNested(),
        }],
      } satisfies OpCase;
    })(),
  ],
});

Deno.test("pool2d refuses at validation a window larger than the padded input", () => {
  const desc = create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      vars: [tensor("x", [-1, 3, 4, 4]), tensor("y")],
      ops: [
        op("pool2d", { X: ["x"] }, { Out: ["y"] }, [
          { name: "pooling_type", type: AttrType.STRING, s: "max" },
          { name: "ksize", type: AttrType.INTS, ints: [7, 7] },
          { name: "paddings", type: AttrType.INTS, ints: [1, 1] },
        ]),
      ],
    }],
  });
  const e = assertThrows(() => validateProgram(desc), ProgramError);
  assertEquals(
    [e.where.block, e.where.op, e.where.opType],
    [0, 0, "pool2d"],
  );
  assertEquals(
    e.message,
    "block 0 op 0 (pool2d): the 7×7 window is larger than input [?, 3, 4, 4] padded by [1, 1, 1, 1]",
  );
});

Deno.test("pool2d refuses an unknown pooling_type, naming the attribute", () => {
  const desc = create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      vars: [tensor("x", [1, 1, 4, 4]), tensor("y")],
      ops: [
        op("pool2d", { X: ["x"] }, { Out: ["y"] }, [
          { name: "pooling_type", type: AttrType.STRING, s: "min" },
          { name: "ksize", type: AttrType.INTS, ints: [2, 2] },
        ]),
      ],
    }],
  });
  const e = assertThrows(() => validateProgram(desc), ProgramError);
  assertEquals(e.where.attr, "pooling_type");
  assertEquals(
    e.message,
    'block 0 op 0 (pool2d): attribute "pooling_type": "min" is not "max" or "avg"',
  );
});

Deno.test("pool2d panics at run time on a window larger than an input known only then", async () => {
  const panic = await assertRejects(
    () =>
      runProgram(() => {
        const x = defaultProgram().currentBlock.createVar({
          name: "x",
          dtype: "float32",
        });
        return paddlePool(x, { ksize: [5, 5] });
      }, { feeds: { x: Tensor.zeros([1, 2, 3, 3], "float32") } }),
    Panic,
  );
  assertEquals(panic.where, "block 0 op 0 pool2d");
  assertEquals(
    panic.message,
    'pool2d: the 5×5 window is larger than input [1, 2, 3, 3] padded by [0, 0, 0, 0] (X "x" float32[1, 2, 3, 3])',
  );
});

Deno.test("pool2d() builds max pooling by default", async () => {
  const x = input([1, 1, 4, 4], 13);
  const { values } = await runProgram(() =>
    pool2d(constant(x), [2, 2], { strides: [2, 2] })
  );
  const want = refPool("max", x, { ksize: [2, 2], strides: [2, 2] });
  assertEquals(
    (values[0] as Tensor).toNested(),
    refTensor(want, "float32").toNested(),
  );
});
