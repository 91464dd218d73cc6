import { create } from "@bufbuild/protobuf";
import { assertEquals, assertRejects, assertThrows } from "@std/assert";
import {
  AttrType,
  ProgramDescSchema,
} from "../../../gen/rill/v1/framework_pb.ts";
import {
  appendLayer,
  assignValue,
  batchNorm,
  defaultProgram,
  groupNorm,
  instanceNorm,
  layerNorm,
  ProgramError,
  type Tensor,
  validateProgram,
  type Variable,
} from "../../../mod.ts";
import { NORM_OPS } from "../../../runtime/ops/norm.ts";
import { attrOf } from "../../_helpers/attr_of.ts";
import {
  type Ref,
  refBatchNorm,
  refGroupNorm,
  refInstanceNorm,
  refLayerNorm,
  refTensor,
  refTranspose,
  seededValues,
} from "../../_helpers/conv_reference.ts";
import { op, tensor } from "../../_helpers/desc_init.ts";
import { lastOp } from "../../_helpers/last_op.ts";
import {
  type OpCase,
  type TensorExpectation,
  testOpCases,
} from "../../_helpers/op_cases.ts";
import { runProgram } from "../../_helpers/run_program.ts";

// The kernels compute in float64 and round each result once, as the
// reference's float64 values are rounded here: results compare exactly.
function input(shape: number[], seed: number): Ref {
  const size = shape.reduce((p, d) => p * d, 1);
  return { data: seededValues(size, seed, { lo: -4, hi: 6 }), shape };
}

function constant(r: Ref): Variable {
  return assignValue(Array.from(r.data), { shape: [...r.shape] });
}

function vector(values: readonly number[]): Variable {
  return assignValue([...values], { shape: [values.length] });
}

// Variables for a norm op's optional statistic outputs.
function stats(...slots: string[]): Record<string, Variable> {
  const block = defaultProgram().currentBlock;
  return Object.fromEntries(
    slots.map((slot) => [slot, block.createVar({ dtype: "float32" })]),
  );
}

function expect(r: Ref): TensorExpectation {
  return {
    dtype: "float32",
    shape: r.shape,
    values: refTensor(r, "float32").toNested(),
  };
}

const f32s = (n: number, seed: number, lo = -2, hi = 2) =>
  seededValues(n, seed, { lo, hi });

const MEAN = f32s(3, 21), VARIANCE = f32s(3, 22, 0.25, 4);
const SCALE = f32s(3, 23), BIAS = f32s(3, 24);

// batch_norm as Paddle 2.x saves it at inference: every slot (MeanOut and
// VarianceOut named after Mean and Variance, MomentumTensor empty), every
// attribute; returns [Y, MeanOut, SavedMean].
function paddleBatchNorm(
  x: Variable,
  given: Record<string, unknown>,
  affine = true,
): Variable[] {
  const mean = vector(MEAN), variance = vector(VARIANCE);
  const out = appendLayer("batch_norm", {
    X: x,
    Scale: affine ? vector(SCALE) : undefined,
    Bias: affine ? vector(BIAS) : undefined,
    Mean: mean,
    Variance: variance,
  }, {
    is_test: true,
    momentum: 0.9,
    epsilon: 1e-5,
    data_layout: "NCHW",
    use_global_stats: false,
    trainable_statistics: false,
    use_mkldnn: false,
    fuse_with_relu: false,
    ...given,
  } as never, { MeanOut: mean, VarianceOut: variance });
  return [out.Y[0], out.MeanOut[0], out.SavedMean[0]];
}

function batchNormCase(
  what: string,
  given: Record<string, unknown>,
  options: { int?: boolean; affine?: boolean; nhwc?: boolean } = {},
): OpCase {
  const x = input([2, 3, 2, 3], 25);
  const affine = options.affine ?? true;
  const y = refBatchNorm(
    x,
    MEAN,
    VARIANCE,
    affine ? { scale: SCALE, bias: BIAS } : {},
  );
  const perm = [0, 2, 3, 1];
  return {
    what,
    build: () => {
      const xv = constant(options.nhwc ? refTranspose(x, perm) : x);
      const outs = paddleBatchNorm(xv, given, affine);
      if (options.int) {
        // Paddle 1.x stored the flag as INT.
        const flag = attrOf(
          lastOp(defaultProgram().currentBlock.desc),
          "is_test",
        );
        flag.type = AttrType.INT;
        flag.i = 1;
      }
      return outs;
    },
    tensors: [
      expect(options.nhwc ? refTranspose(y, perm) : y),
      expect({ data: MEAN, shape: [3] }),
      expect({ data: [0, 0, 0], shape: [3] }),
    ],
  };
}

const LN_X = input([2, 3, 4], 31);

testOpCases("NORM_OPS", NORM_OPS, {
  batch_norm: [
    batchNormCase(
      "normalizes by the saved statistics (is_test), MeanOut unchanged, SavedMean zero",
      {},
    ),
    batchNormCase("reads is_test stored as INT 1", {}, { int: true }),
    batchNormCase("normalizes by the saved statistics with use_global_stats", {
      is_test: false,
      use_global_stats: true,
    }),
    batchNormCase("takes channels last with data_layout NHWC", {
      data_layout: "NHWC",
    }, { nhwc: true }),
    batchNormCase("scales by 1 and shifts by 0 without Scale and Bias", {}, {
      affine: false,
    }),
  ],
  layer_norm: [
    (() => {
      const scale = f32s(12, 32), bias = f32s(12, 33);
      const r = refLayerNorm(LN_X, 1, { scale, bias });
      return {
        what:
          "normalizes the dims from begin_norm_axis, Mean and Variance per row",
        build: () => {
          const out = appendLayer(
            "layer_norm",
            {
              X: constant(LN_X),
              Scale: vector(scale),
              Bias: vector(bias),
            },
            { epsilon: 1e-5, begin_norm_axis: 1, is_test: true } as never,
            stats("Mean", "Variance"),
          );
          return [out.Y[0], out.Mean[0], out.Variance[0]];
        },
        tensors: [
          expect(r.y),
          expect({ data: r.mean, shape: [2] }),
          expect({ data: r.variance, shape: [2] }),
        ],
      } satisfies OpCase;
    })(),
    (() => {
      const r = refLayerNorm(LN_X, 2);
      return {
        what: "normalizes the last dim without Scale and Bias",
        build: () => layerNorm(constant(LN_X), { beginNormAxis: 2 }),
        tensors: [expect(r.y)],
      } satisfies OpCase;
    })(),
  ],
  instance_norm: [
    (() => {
      const x = input([2, 3, 3, 2], 41);
      const scale = f32s(3, 42), bias = f32s(3, 43);
      const r = refInstanceNorm(x, { scale, bias });
      return {
        what: "normalizes each image's channels apart, SavedVariance as 1/std",
        build: () => {
          const out = appendLayer(
            "instance_norm",
            {
              X: constant(x),
              Scale: vector(scale),
              Bias: vector(bias),
            },
            { epsilon: 1e-5 },
            stats("SavedMean", "SavedVariance"),
          );
          return [out.Y[0], out.SavedMean[0], out.SavedVariance[0]];
        },
        tensors: [
          expect(r.y),
          expect({ data: r.mean, shape: [6] }),
          expect({
            data: r.variance.map((v) => 1 / Math.sqrt(v + 1e-5)),
            shape: [6],
          }),
        ],
      } satisfies OpCase;
    })(),
  ],
  group_norm: [
    (() => {
      const x = input([2, 4, 2, 3], 51);
      const scale = f32s(4, 52), bias = f32s(4, 53);
      const r = refGroupNorm(x, 2, { scale, bias });
      return {
        what: "normalizes groups of channels, Mean and Variance [N, groups]",
        build: () => {
          const out = appendLayer(
            "group_norm",
            {
              X: constant(x),
              Scale: vector(scale),
              Bias: vector(bias),
            },
            { epsilon: 1e-5, groups: 2, data_layout: "NCHW" },
            stats("Mean", "Variance"),
          );
          return [out.Y[0], out.Mean[0], out.Variance[0]];
        },
        tensors: [
          expect(r.y),
          expect({ data: r.mean, shape: [2, 2] }),
          expect({ data: r.variance, shape: [2, 2] }),
        ],
      } satisfies OpCase;
    })(),
    (() => {
      const x = input([1, 6, 2, 2], 54);
      const r = refGroupNorm(x, 3);
      const perm = [0, 2, 3, 1];
      return {
        what: "takes channels last with data_layout NHWC",
        build: () =>
          groupNorm(constant(refTranspose(x, perm)), 3, {
            dataLayout: "NHWC",
          }),
        tensors: [expect(refTranspose(r.y, perm))],
      } satisfies OpCase;
    })(),
  ],
});

function batchNormDesc(
  attrs: { name: string; type: AttrType; b?: boolean; s?: string }[],
  mean = [3],
) {
  return create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      vars: [
        tensor("x", [-1, 3, 4, 4]),
        tensor("m", mean),
        tensor("v", [3]),
        tensor("y"),
        tensor("sm"),
        tensor("sv"),
      ],
      ops: [
        op("batch_norm", { X: ["x"], Mean: ["m"], Variance: ["v"] }, {
          Y: ["y"],
          MeanOut: ["m"],
          VarianceOut: ["v"],
          SavedMean: ["sm"],
          SavedVariance: ["sv"],
        }, attrs),
      ],
    }],
  });
}

Deno.test("batch_norm refuses training mode at validation, naming the attribute", () => {
  const e = assertThrows(
    () => validateProgram(batchNormDesc([])),
    ProgramError,
  );
  assertEquals(e.where.attr, "is_test");
  const trainable = assertThrows(
    () =>
      validateProgram(batchNormDesc([
        { name: "is_test", type: AttrType.BOOLEAN, b: true },
        { name: "trainable_statistics", type: AttrType.BOOLEAN, b: true },
      ])),
    ProgramError,
  );
  assertEquals(trainable.where.attr, "trainable_statistics");
});

Deno.test("batch_norm refuses statistics that are not one per channel, naming the shapes", () => {
  const e = assertThrows(
    () =>
      validateProgram(
        batchNormDesc([{ name: "is_test", type: AttrType.BOOLEAN, b: true }], [
          4,
        ]),
      ),
    ProgramError,
  );
  assertEquals(
    e.message,
    "block 0 op 0 (batch_norm): Mean [4] does not have one element per channel of input [?, 3, 4, 4] (3)",
  );
});

Deno.test("group_norm refuses channels that do not split into its groups", async () => {
  await assertRejects(
    () => runProgram(() => groupNorm(constant(input([1, 6, 2, 2], 1)), 4)),
    TypeError,
    "append op group_norm: input [1, 6, 2, 2] has 6 channels, which do not split into 4 groups",
  );
});

Deno.test("batchNorm() writes is_test and binds MeanOut to the mean itself", async () => {
  const x = input([1, 3, 2, 2], 61);
  const { values } = await runProgram(() => {
    const mean = vector(MEAN), variance = vector(VARIANCE);
    const y = batchNorm(constant(x), { mean, variance });
    const desc = lastOp(defaultProgram().currentBlock.desc);
    assertEquals(attrOf(desc, "is_test").b, true);
    assertEquals(
      desc.outputs.find((s) => s.parameter === "MeanOut")?.arguments,
      [mean.name],
    );
    return y;
  });
  assertEquals(
    (values[0] as Tensor).toNested(),
    refTensor(refBatchNorm(x, MEAN, VARIANCE), "float32").toNested(),
  );
});

Deno.test("instanceNorm() builds the op without its optional outputs", async () => {
  const x = input([1, 2, 3, 3], 62);
  const { values } = await runProgram(() => instanceNorm(constant(x)));
  assertEquals(
    (values[0] as Tensor).toNested(),
    refTensor(refInstanceNorm(x).y, "float32").toNested(),
  );
});
