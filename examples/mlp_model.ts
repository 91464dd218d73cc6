/**
 * A model directory as Paddle 2.x's `save_inference_model` writes one,
 * written by Rill: `examples/mlp_model/model.pdmodel` (the program: a
 * `feed` op into `img`, two fully connected layers as Fluid's `fc` writes
 * them — `mul`, `elementwise_add` along axis 1, `tanh`, then `softmax` —
 * and a `fetch` op) and `model.pdiparams` (its four parameters, combined in
 * order of name), plus an input, `examples/data/mlp_img.npy`.
 *
 * The net maps 64 pixels to ten class probabilities through 32 hidden
 * units; its weights are small fixed fractions, so the files are the same
 * on every machine. `img` is declared float32 [-1, 64] with
 * `need_check_feed`, as `paddle.static.data` declares a feed.
 *
 *   deno run -A mod.ts examples/mlp_model --feed img=examples/data/mlp_img.npy
 *
 * prints `fc_1.tmp_2` and two rows of ten probabilities.
 *
 * @module
 */
import { create, toBinary } from "@bufbuild/protobuf";
import {
  AttrType,
  encodeNpy,
  type ProgramDesc,
  Tensor,
  VarType_Type,
  writePaddleTensors,
} from "../mod.ts";
import { ProgramDescSchema } from "../gen/rill/v1/framework_pb.ts";

/** The model directory, relative to the repository root. */
export const MODEL_DIR = "examples/mlp_model";

/** The input file, relative to the repository root. */
export const INPUT_PATH = "examples/data/mlp_img.npy";

/** The layer sizes: pixels, hidden units, classes. */
const [PIXELS, HIDDEN, CLASSES] = [64, 32, 10];

/** A float32 tensor of fractions k/32 in [-0.25, 0.25]. */
function fractions(shape: number[], seed: number): Tensor {
  const size = shape.reduce((n, d) => n * d, 1);
  const values = Array.from(
    { length: size },
    (_, i) => (((i * 37 + seed * 11) % 17) - 8) / 32,
  );
  return Tensor.fromArray(values, "float32", shape);
}

/**
 * The parameters by name, in order of name: fc_0 64 → 32, fc_1 32 → 10.
 *
 * @returns Each parameter's tensor.
 */
export function parameters(): Map<string, Tensor> {
  return new Map([
    ["fc_0.b_0", fractions([HIDDEN], 1)],
    ["fc_0.w_0", fractions([PIXELS, HIDDEN], 2)],
    ["fc_1.b_0", fractions([CLASSES], 3)],
    ["fc_1.w_0", fractions([HIDDEN, CLASSES], 4)],
  ]);
}

/**
 * The input: two images whose pixel i is ((i · 13 + row · 5) mod 29) / 28.
 *
 * @returns A float32 [2, 64] tensor.
 */
export function input(): Tensor {
  const values = Array.from(
    { length: 2 * PIXELS },
    (_, i) => ((i * 13 + Math.floor(i / PIXELS) * 5) % 29) / 28,
  );
  return Tensor.fromArray(values, "float32", [2, PIXELS]);
}

// A tensor variable's declaration.
function tensorVar(name: string, dims: number[], persistable = false) {
  return {
    name,
    persistable,
    type: {
      type: VarType_Type.LOD_TENSOR,
      lodTensor: {
        tensor: { dataType: VarType_Type.FP32, dims: dims.map(BigInt) },
      },
    },
  };
}

// An op from slot maps and INT attributes.
function op(
  type: string,
  inputs: Record<string, string>,
  outputs: Record<string, string>,
  ints: Record<string, number> = {},
) {
  const slots = (m: Record<string, string>) =>
    Object.entries(m).map(([parameter, v]) => ({ parameter, arguments: [v] }));
  return {
    type,
    inputs: slots(inputs),
    outputs: slots(outputs),
    attrs: Object.entries(ints).map(([name, i]) => ({
      name,
      type: AttrType.INT,
      i,
    })),
  };
}

/**
 * The program, as `save_inference_model` lays it out.
 *
 * @returns The program.
 */
export function program(): ProgramDesc {
  // Fluid's fc: x · w, + b along axis 1, the activation.
  const fc = (k: number, x: string, activation: string) => [
    op("mul", { X: x, Y: `fc_${k}.w_0` }, { Out: `fc_${k}.tmp_0` }, {
      x_num_col_dims: 1,
      y_num_col_dims: 1,
    }),
    op("elementwise_add", { X: `fc_${k}.tmp_0`, Y: `fc_${k}.b_0` }, {
      Out: `fc_${k}.tmp_1`,
    }, { axis: 1 }),
    op(activation, { X: `fc_${k}.tmp_1` }, { Out: `fc_${k}.tmp_2` }),
  ];
  return create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      vars: [
        {
          name: "feed",
          type: { type: VarType_Type.FEED_MINIBATCH },
          persistable: true,
        },
        {
          name: "fetch",
          type: { type: VarType_Type.FETCH_LIST },
          persistable: true,
        },
        { ...tensorVar("img", [-1, PIXELS]), needCheckFeed: true },
        ...[...parameters()].map(([name, t]) =>
          tensorVar(name, [...t.shape], true)
        ),
        ...[0, 1].flatMap((k) => {
          const width = k === 0 ? HIDDEN : CLASSES;
          return [0, 1, 2].map((j) =>
            tensorVar(`fc_${k}.tmp_${j}`, [-1, width])
          );
        }),
      ],
      ops: [
        op("feed", { X: "feed" }, { Out: "img" }, { col: 0 }),
        ...fc(0, "img", "tanh"),
        ...fc(1, "fc_0.tmp_2", "softmax"),
        op("fetch", { X: "fc_1.tmp_2" }, { Out: "fetch" }, { col: 0 }),
      ],
    }],
  });
}

/**
 * Every file of the example, by path from the repository root.
 *
 * @returns Path to contents.
 */
export function modelFiles(): Record<string, Uint8Array> {
  return {
    [`${MODEL_DIR}/model.pdmodel`]: toBinary(ProgramDescSchema, program()),
    [`${MODEL_DIR}/model.pdiparams`]: writePaddleTensors([
      ...parameters().values(),
    ]),
    [INPUT_PATH]: encodeNpy(input()),
  };
}
