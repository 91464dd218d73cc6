/**
 * A program in the shape Paddle 2.x saves: bookkeeping attributes on every
 * op (a long `op_callstack` among them), attributes stored as FLOAT64 and
 * SCALAR, variable flags and attributes, element and variable types added
 * after 2018, an op version map. It validates and runs in Rill, printing
 * `PADDLE2_OUTPUT`.
 *
 * @module
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import {
  AttrType,
  type OpDesc_AttrSchema,
  type ProgramDesc,
  ProgramDescSchema,
  Scalar_Type,
  VarType_Type,
} from "../../gen/rill/v1/framework_pb.ts";
import { op, tensor, type VarInit } from "./desc_init.ts";

type AttrInit = MessageInitShape<typeof OpDesc_AttrSchema>;

/** How many frames each op's `op_callstack` holds. */
export const CALLSTACK_FRAMES = 40;

/** The first frame of every op's `op_callstack`, as Paddle writes one. */
export const FIRST_FRAME =
  '  File "/home/user/models/train.py", line 1, in <module>\n    main()\n';

/** The call stack Paddle records where an op was made: one frame a line. */
function callstack(): string[] {
  return Array.from(
    { length: CALLSTACK_FRAMES },
    (_, i) =>
      `  File "/home/user/models/train.py", line ${
        i + 1
      }, in <module>\n    main()\n`,
  );
}

/** The attributes Paddle's OpProtoAndCheckerMaker puts on every op. */
function bookkeeping(): AttrInit[] {
  return [
    { name: "op_role", type: AttrType.INT, i: 0 },
    { name: "op_role_var", type: AttrType.STRINGS, strings: [] },
    { name: "op_namescope", type: AttrType.STRING, s: "/" },
    { name: "op_callstack", type: AttrType.STRINGS, strings: callstack() },
    { name: "op_device", type: AttrType.STRING, s: "" },
    { name: "with_quant_attr", type: AttrType.BOOLEAN, b: false },
  ];
}

/** A float32 tensor's `VarType`. */
function fp32Type(dims: bigint[]): VarInit["type"] {
  return {
    type: VarType_Type.LOD_TENSOR,
    lodTensor: { tensor: { dataType: VarType_Type.FP32, dims } },
  };
}

const VARS: VarInit[] = [
  {
    name: "feed",
    type: { type: VarType_Type.FEED_MINIBATCH },
    persistable: true,
  },
  {
    name: "x",
    type: fp32Type([2n, 3n]),
    needCheckFeed: true,
    stopGradient: true,
  },
  {
    name: "fc_0.w_0",
    type: fp32Type([3n]),
    persistable: true,
    isParameter: true,
    attrs: [{ name: "is_distributed", type: AttrType.INT, i: 0 }],
  },
  tensor("y", [2, 3]),
  tensor("half", [2], VarType_Type.BF16),
  {
    name: "words",
    type: { type: VarType_Type.STRINGS, strings: { dims: [-1n] } },
  },
];

/**
 * The program: `x = full([2, 3], 1.5)`, `y = 2 * x + 0.5`, `print(y)`,
 * with `value` stored as FLOAT64, `scale` and `bias` as SCALARs.
 *
 * @returns A fresh message.
 */
export function paddle2Program(): ProgramDesc {
  return create(ProgramDescSchema, {
    version: { version: 2006000n },
    opVersionMap: {
      pair: [
        { opName: "fill_constant", opVersion: { version: 2 } },
        { opName: "scale", opVersion: { version: 1 } },
      ],
    },
    blocks: [{
      idx: 0,
      parentIdx: -1,
      vars: VARS,
      ops: [
        op("fill_constant", {}, { Out: ["x"] }, [
          { name: "shape", type: AttrType.LONGS, longs: [2n, 3n] },
          { name: "dtype", type: AttrType.INT, i: VarType_Type.FP32 },
          { name: "value", type: AttrType.FLOAT64, float64: 1.5 },
          { name: "str_value", type: AttrType.STRING, s: "" },
          ...bookkeeping(),
        ]),
        op("scale", { X: ["x"] }, { Out: ["y"] }, [
          {
            name: "scale",
            type: AttrType.SCALAR,
            scalar: { type: Scalar_Type.LONG, i: 2n },
          },
          {
            name: "bias",
            type: AttrType.SCALAR,
            scalar: { type: Scalar_Type.FLOAT64, r: 0.5 },
          },
          { name: "bias_after_scale", type: AttrType.BOOLEAN, b: true },
          { name: "is_test", type: AttrType.BOOLEAN, b: true },
          { name: "use_mkldnn", type: AttrType.BOOLEAN, b: false },
          ...bookkeeping(),
        ]),
        {
          ...op("print", { In: ["y"] }, {}, [
            { name: "message", type: AttrType.STRING, s: "y" },
            ...bookkeeping(),
          ]),
          isTarget: true,
        },
      ],
    }],
  });
}

/** What the program prints. */
export const PADDLE2_OUTPUT = "y [[3.5, 3.5, 3.5], [3.5, 3.5, 3.5]]\n";
