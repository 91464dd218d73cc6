/**
 * A small model directory laid out as Fluid's `save_inference_model` lays
 * one out: a `feed` op into `x` (float32 [-1, 2]), `y = x·w + b` (Fluid's
 * `fc`: `mul`, then `elementwise_add` along axis 1), a `fetch` op of `y`,
 * and the persistable `w` (float32 [2, 3]) and `b` (float32 [3]) saved one
 * file per variable or combined in order of name (`b`, then `w`).
 *
 * @module
 */
import { create, toBinary } from "@bufbuild/protobuf";
import {
  AttrType,
  type ProgramDesc,
  Tensor,
  VarType_Type,
  writePaddleTensor,
  writePaddleTensors,
} from "../../mod.ts";
import { ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
import { op, tensor, type VarInit } from "./desc_init.ts";

/** The weights: w float32 [2, 3]. */
export const W: Tensor = Tensor.fromArray([[1, 2, 3], [4, 5, 6]], "float32");
/** The bias: b float32 [3]. */
export const B: Tensor = Tensor.fromArray([0.5, -1, 2], "float32");

function persistable(v: VarInit): VarInit {
  return { ...v, persistable: true };
}

/**
 * The program, as Paddle saves it (op attributes as Fluid 1.x writes them).
 *
 * @returns The program.
 */
export function fcProgram(): ProgramDesc {
  const col = { name: "col", type: AttrType.INT, i: 0 };
  const int = (name: string, i: number) => ({ name, type: AttrType.INT, i });
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
        tensor("x", [-1, 2]),
        persistable(tensor("w", [2, 3])),
        persistable(tensor("b", [3])),
        tensor("xw", [-1, 3]),
        tensor("y", [-1, 3]),
      ],
      ops: [
        op("feed", { X: ["feed"] }, { Out: ["x"] }, [col]),
        op("mul", { X: ["x"], Y: ["w"] }, { Out: ["xw"] }, [
          int("x_num_col_dims", 1),
          int("y_num_col_dims", 1),
        ]),
        op("elementwise_add", { X: ["xw"], Y: ["b"] }, { Out: ["y"] }, [
          int("axis", 1),
        ]),
        op("fetch", { X: ["y"] }, { Out: ["fetch"] }, [col]),
      ],
    }],
  });
}

/** How `writeFcModel` lays out the parameters. */
export type FcLayout = "separate" | "__params__" | "pdiparams";

/**
 * Writes the model into `dir`: `__model__` with one file per parameter or
 * `__params__`, or `model.pdmodel` with `model.pdiparams`.
 *
 * @param dir An existing directory.
 * @param layout The parameter files.
 * @returns The directory.
 */
export async function writeFcModel(
  dir: string,
  layout: FcLayout = "separate",
): Promise<string> {
  const program = toBinary(ProgramDescSchema, fcProgram());
  const combined = writePaddleTensors([B, W]);
  if (layout === "pdiparams") {
    await Deno.writeFile(`${dir}/model.pdmodel`, program);
    await Deno.writeFile(`${dir}/model.pdiparams`, combined);
    return dir;
  }
  await Deno.writeFile(`${dir}/__model__`, program);
  if (layout === "__params__") {
    await Deno.writeFile(`${dir}/__params__`, combined);
  } else {
    await Deno.writeFile(`${dir}/w`, writePaddleTensor(W));
    await Deno.writeFile(`${dir}/b`, writePaddleTensor(B));
  }
  return dir;
}
