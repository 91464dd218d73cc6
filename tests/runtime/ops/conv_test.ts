import { create } from "@bufbuild/protobuf";
import { assertEquals, assertRejects, assertThrows } from "@std/assert";
import {
  AttrType,
  OpDesc_VarSchema,
  ProgramDescSchema,
} from "../../../gen/rill/v1/framework_pb.ts";
import {
  appendLayer,
  assignValue,
  conv2d,
  defaultProgram,
  ProgramError,
  Tensor,
  validateProgram,
  type Variable,
} from "../../../mod.ts";
import { CONV_OPS } from "../../../runtime/ops/conv.ts";
import { Panic } from "../../../scheduler/panic.ts";
import {
  type Ref,
  type RefConv,
  refConv2d,
  refConvTranspose,
  refTensor,
  refTranspose,
  seededValues,
} from "../../_helpers/conv_reference.ts";
import { op, tensor } from "../../_helpers/desc_init.ts";
import { lastOp } from "../../_helpers/last_op.ts";
import { type OpCase, testOpCases } from "../../_helpers/op_cases.ts";
import { runProgram } from "../../_helpers/run_program.ts";

// Small integer inputs: every sum is exact in float32, so the results must
// equal the plain reference's (tests/_helpers/conv_reference.ts) exactly.
function ints(shape: number[], seed: number): Ref {
  const size = shape.reduce((p, d) => p * d, 1);
  return {
    data: seededValues(size, seed, { lo: -4, hi: 5, integers: true }),
    shape,
  };
}

function constant(r: Ref): Variable {
  return assignValue(Array.from(r.data), { shape: [...r.shape] });
}

// What Paddle 2.x writes on every conv2d besides the window: its extra
// attributes at their defaults.
const PADDLE_CONV_EXTRAS = {
  is_test: true,
  use_cudnn: true,
  use_mkldnn: false,
  use_quantizer: false,
  mkldnn_data_type: "float32",
  fuse_relu_before_depthwise_conv: false,
  fuse_relu: false,
  fuse_activation: "",
  fuse_residual_connection: false,
  use_addto: false,
  Scale_in: 1,
  Scale_out: 1,
  Scale_in_eltwise: 1,
  Scale_weights: [1],
  force_fp32_output: false,
  workspace_size_MB: 512,
  exhaustive_search: false,
} as const;

// The window attributes Paddle writes, all of them, with `given` over
// Paddle's defaults.
function paddleAttrs(given: Record<string, unknown>) {
  return {
    strides: [1, 1],
    paddings: [0, 0],
    padding_algorithm: "EXPLICIT",
    groups: 1,
    dilations: [1, 1],
    data_format: "NCHW",
    ...PADDLE_CONV_EXTRAS,
    ...given,
  };
}

// Appends a conv op as Paddle saves it: its attributes and its empty
// dispensable slots.
function paddleConv(
  type: string,
  x: Variable,
  f: Variable,
  given: Record<string, unknown>,
): Variable {
  const { Output } = appendLayer(
    type,
    { Input: x, Filter: f },
    paddleAttrs(given) as never,
  );
  const empty = type === "conv2d_transpose"
    ? ["Bias"]
    : ["Bias", "ResidualData"];
  const desc = lastOp(defaultProgram().currentBlock.desc);
  for (const parameter of empty) {
    desc.inputs.push(create(OpDesc_VarSchema, { parameter, arguments: [] }));
  }
  return Output[0];
}

// The conv window of a case in the reference's terms.
function refWindow(given: Record<string, unknown>): RefConv {
  const p = (given.paddings as number[] | undefined) ?? [0, 0];
  return {
    strides: given.strides as number[] | undefined,
    dilations: given.dilations as number[] | undefined,
    paddings: p.length === 2 ? [p[0], p[0], p[1], p[1]] : p,
    groups: given.groups as number | undefined,
    outputSize: given.output_size as number[] | undefined,
  };
}

// A case: x and f seeded integers, the result checked against the
// reference (`window` overrides the reference's window, for SAME/VALID).
function convCase(
  type: string,
  what: string,
  shapes: [number[], number[]],
  given: Record<string, unknown>,
  window: RefConv = refWindow(given),
): OpCase {
  const x = ints(shapes[0], 1), f = ints(shapes[1], 2);
  const reference = type === "conv2d_transpose" ? refConvTranspose : refConv2d;
  const want = reference(x, f, window);
  return {
    what,
    build: () => paddleConv(type, constant(x), constant(f), given),
    tensors: [{
      dtype: "float32",
      shape: want.shape,
      values: refTensor(want, "float32").toNested(),
    }],
  };
}

// An NHWC case: the NCHW reference, transposed in and out.
function nhwcCase(
  type: string,
  shapes: [number[], number[]],
  given: Record<string, unknown>,
): OpCase {
  const x = ints(shapes[0], 3), f = ints(shapes[1], 4);
  const want = refTranspose(refConv2d(x, f, refWindow(given)), [0, 2, 3, 1]);
  return {
    what: "reads and writes NHWC with data_format NHWC (filter OIHW)",
    build: () =>
      paddleConv(
        type,
        constant(refTranspose(x, [0, 2, 3, 1])),
        constant(f),
        { ...given, data_format: "NHWC" },
      ),
    tensors: [{
      dtype: "float32",
      shape: want.shape,
      values: refTensor(want, "float32").toNested(),
    }],
  };
}

testOpCases("CONV_OPS", CONV_OPS, {
  conv2d: [
    convCase(
      "conv2d",
      "slides a 3×3 filter with Paddle's attribute set and empty Bias, ResidualData",
      [[1, 2, 4, 5], [3, 2, 3, 3]],
      { paddings: [1, 1] },
    ),
    convCase(
      "conv2d",
      "takes strides, four paddings [top, bottom, left, right] and dilations",
      [[2, 3, 7, 8], [2, 3, 3, 2]],
      { strides: [2, 1], paddings: [0, 1, 2, 1], dilations: [2, 3] },
    ),
    convCase(
      "conv2d",
      "convolves channel groups apart",
      [[1, 4, 5, 5], [6, 2, 3, 3]],
      { groups: 2, paddings: [1, 1] },
    ),
    convCase(
      "conv2d",
      "pads SAME to ceil(in / stride), the smaller half first, dilation 1",
      [[1, 2, 6, 5], [2, 2, 3, 2]],
      {
        padding_algorithm: "SAME",
        strides: [2, 2],
        dilations: [2, 2],
        paddings: [9, 9],
      },
      { strides: [2, 2], paddings: [0, 1, 0, 1] },
    ),
    convCase(
      "conv2d",
      "ignores the paddings under VALID",
      [[1, 2, 5, 5], [1, 2, 3, 3]],
      { padding_algorithm: "VALID", paddings: [2, 2] },
      {},
    ),
    convCase(
      "conv2d",
      "reads AnyLayout as NCHW, as Paddle 1.x wrote it",
      [[1, 3, 6, 6], [4, 3, 3, 3]],
      { data_format: "AnyLayout", strides: [2, 2], paddings: [1, 1] },
    ),
    nhwcCase("conv2d", [[2, 3, 5, 4], [4, 3, 2, 3]], { paddings: [1, 0] }),
  ],
  depthwise_conv2d: [
    convCase(
      "depthwise_conv2d",
      "convolves each channel with its own 3×3 filter, stride 2",
      [[1, 4, 7, 7], [4, 1, 3, 3]],
      { groups: 4, strides: [2, 2], paddings: [1, 1] },
    ),
    convCase(
      "depthwise_conv2d",
      "takes a dilated filter (faceunet's 7×7 by 5, scaled down)",
      [[1, 2, 9, 9], [2, 1, 3, 3]],
      { groups: 2, dilations: [3, 3], paddings: [3, 3] },
    ),
    convCase(
      "depthwise_conv2d",
      "gives several output channels per input channel",
      [[1, 2, 5, 6], [6, 1, 3, 3]],
      { groups: 2, paddings: [1, 1] },
    ),
  ],
  conv2d_transpose: [
    convCase(
      "conv2d_transpose",
      "spreads each input through the filter, stride 2 with output_padding",
      [[1, 2, 3, 3], [2, 3, 3, 3]],
      { strides: [2, 2], paddings: [1, 1], output_padding: [1, 1] },
      { strides: [2, 2], paddings: [1, 1, 1, 1], outputSize: [6, 6] },
    ),
    convCase(
      "conv2d_transpose",
      "takes output_size, groups and dilations",
      [[1, 4, 3, 4], [4, 1, 2, 2]],
      {
        groups: 2,
        strides: [3, 2],
        dilations: [2, 1],
        paddings: [0, 1, 1, 0],
        output_size: [9, 8],
      },
    ),
  ],
});

// A program with x, f declared at the given shapes and op `type` on them.
function declared(
  type: string,
  xDims: number[],
  fDims: number[],
  attrs: { name: string; type: AttrType; ints?: number[]; i?: number }[],
) {
  return create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      vars: [
        tensor("x", xDims),
        tensor("f", fDims),
        tensor("y"),
      ],
      ops: [
        op(type, { Input: ["x"], Filter: ["f"] }, { Output: ["y"] }, attrs),
      ],
    }],
  });
}

Deno.test("conv2d refuses at validation a filter whose channels disagree with groups", () => {
  const desc = declared("conv2d", [-1, 4, 8, 8], [6, 3, 3, 3], [
    { name: "groups", type: AttrType.INT, i: 2 },
  ]);
  const e = assertThrows(() => validateProgram(desc), ProgramError);
  assertEquals(
    [e.where.block, e.where.op, e.where.opType],
    [0, 0, "conv2d"],
  );
  assertEquals(
    e.message,
    "block 0 op 0 (conv2d): input [?, 4, 8, 8] and filter [6, 3, 3, 3] with groups 2: the input has 4 channels, the filter takes 3 × 2",
  );
});

Deno.test("depthwise_conv2d refuses at validation a window larger than the padded input", () => {
  const desc = declared("depthwise_conv2d", [1, 2, 4, 4], [2, 1, 3, 3], [
    { name: "groups", type: AttrType.INT, i: 2 },
    { name: "dilations", type: AttrType.INTS, ints: [2, 2] },
  ]);
  const e = assertThrows(() => validateProgram(desc), ProgramError);
  assertEquals(
    e.message,
    "block 0 op 0 (depthwise_conv2d): input [1, 2, 4, 4] and filter [2, 1, 3, 3] with groups 2: the 3×3 window dilated by [2, 2] does not fit the input padded by [0, 0, 0, 0]",
  );
});

Deno.test("conv2d refuses a Bias that names a variable: only oneDNN's fused kernels read it", () => {
  const desc = declared("conv2d", [1, 1, 3, 3], [1, 1, 1, 1], []);
  desc.blocks[0].ops[0].inputs.push(
    create(OpDesc_VarSchema, { parameter: "Bias", arguments: ["x"] }),
  );
  const e = assertThrows(() => validateProgram(desc), ProgramError);
  assertEquals(
    e.message,
    'block 0 op 0 (conv2d): input "Bias" is read only by Paddle\'s fused oneDNN kernels: Rill takes it empty',
  );
});

Deno.test("depthwise_conv2d panics at run time on shapes known only then, naming the op and shapes", async () => {
  const panic = await assertRejects(
    () =>
      runProgram(() => {
        const block = defaultProgram().currentBlock;
        const x = block.createVar({ name: "x", dtype: "float32" });
        const f = block.createVar({ name: "f", dtype: "float32" });
        return paddleConv("depthwise_conv2d", x, f, { groups: 3 });
      }, {
        feeds: {
          x: Tensor.zeros([1, 4, 5, 5], "float32"),
          f: Tensor.zeros([4, 1, 3, 3], "float32"),
        },
      }),
    Panic,
  );
  assertEquals(panic.where, "block 0 op 0 depthwise_conv2d");
  assertEquals(
    panic.message,
    'depthwise_conv2d: input [1, 4, 5, 5] and filter [4, 1, 3, 3] with groups 3: the input has 4 channels, the filter takes 1 × 3 (Input "x" float32[1, 4, 5, 5], Filter "f" float32[4, 1, 3, 3])',
  );
});

Deno.test("conv2d() builds the op with the options given and Paddle's defaults for the rest", async () => {
  const x = ints([1, 1, 3, 3], 5), f = ints([1, 1, 2, 2], 6);
  const { values } = await runProgram(() =>
    conv2d(constant(x), constant(f), { strides: [1, 1] })
  );
  assertEquals(
    (values[0] as Tensor).toNested(),
    refTensor(refConv2d(x, f), "float32").toNested(),
  );
});

Deno.test("conv2d_transpose refuses at validation an output_size beyond a stride of the least", () => {
  const desc = declared("conv2d_transpose", [1, 2, 3, 3], [2, 1, 3, 3], [
    { name: "strides", type: AttrType.INTS, ints: [2, 2] },
    { name: "output_size", type: AttrType.INTS, ints: [9, 7] },
  ]);
  const e = assertThrows(() => validateProgram(desc), ProgramError);
  assertEquals(
    e.message,
    "block 0 op 0 (conv2d_transpose): output height 9 is not within a stride of 7, the least for input [3, 3] spatial dims",
  );
});
