/**
 * The tensor file ops, with Paddle's slots and attributes:
 *
 * - `load`: → Out; file_path — reads a NumPy `.npy` or a Paddle tensor
 *   file, told apart by the first bytes (see `sniffTensorFile`), whatever
 *   the file's name. `seek`/`shape` take `shape`'s element count starting
 *   at element `seek`, as Paddle's `load` does.
 * - `save`: X; file_path — writes NumPy `.npy` when the path ends in
 *   `.npy` (any case) and Paddle's tensor format otherwise: Paddle's own
 *   `save` op writes its format to extension-less names such as
 *   `fc_0.w_0`, so a Fluid program's files read back in Paddle, while a
 *   Rill program that names its file `x.npy` gets what NumPy reads.
 * - `save_combine`: X... ; file_path — every X, in slot order, as one
 *   Paddle combined file (`__params__`, `*.pdiparams`).
 * - `load_combine`: → Out... ; file_path — the reverse; the file must hold
 *   exactly one tensor per Out variable.
 *
 * `save_as_fp16` / `load_as_fp16` convert every tensor to float16, as
 * Paddle's ops do. LoD is read and dropped: Rill tensors carry none.
 * File I/O is asynchronous, so a green thread waiting on it is not blocked
 * on a channel and never counts toward a deadlock.
 *
 * @module
 */
import { Tensor } from "../../kernels/tensor.ts";
import { AttrError } from "../core/attr_read.ts";
import { attr, defineOp, type OpDef, slot } from "../core/op_def.ts";
import {
  readPaddleTensors,
  writePaddleTensor,
  writePaddleTensors,
} from "../format/paddle_tensor.ts";
import {
  readTensorFile,
  sniffTensorFile,
  type TensorFileFormat,
} from "../format/tensor_file.ts";
import type { ThreadContext } from "../core/thread_context.ts";
import { encodeNpy } from "../../kernels/npy.ts";
import { readFileBytes, writeFileBytes } from "./_file_bytes.ts";

/**
 * The format `save` writes to a path: `"npy"` when it ends in `.npy` (any
 * case), else `"paddle"`, Paddle's own `save` op's format.
 *
 * @param path The `file_path` attribute.
 * @returns The format.
 *
 * @example Usage
 * ```ts
 * import { saveFormatOf } from "./save_load.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(saveFormatOf("out/x.npy"), "npy");
 * assertEquals(saveFormatOf("model/fc_0.w_0"), "paddle");
 * assertEquals(saveFormatOf("x.pdtensor"), "paddle");
 * ```
 */
export function saveFormatOf(path: string): TensorFileFormat {
  return /\.npy$/i.test(path) ? "npy" : "paddle";
}

// Runs a decoder, putting the file's path in front of its message.
function inFile<T>(path: string, decode: () => T): T {
  try {
    return decode();
  } catch (e) {
    if (e instanceof RangeError) {
      throw new RangeError(`"${path}": ${e.message}`);
    }
    if (e instanceof TypeError) throw new TypeError(`"${path}": ${e.message}`);
    throw e;
  }
}

function asFloat16(t: Tensor, wanted: boolean, thread: ThreadContext): Tensor {
  if (!wanted || t.dtype === "float16") return t;
  return thread.run.device.kernels.cast(t, "float16");
}

// Paddle's `load` with `seek`: `shape`'s element count from element `seek`.
function seekElements(t: Tensor, seek: bigint, shape: bigint[]): Tensor {
  const dims = shape.map(Number);
  const count = dims.reduce((n, d) => n * d, 1);
  const first = Number(seek);
  if (first + count > t.size) {
    throw new RangeError(
      `seek ${seek} and shape [${dims.join(", ")}] need elements up to ` +
        `${first + count}, the file holds ${t.size}`,
    );
  }
  const data = t.data.slice(first, first + count);
  return new Tensor(t.dtype, dims, data);
}

function checkNotInMemory(name: string, value: boolean): void {
  if (value) {
    throw new AttrError(
      name,
      "true is not supported: Rill reads and writes files",
    );
  }
}

const save = defineOp({
  type: "save",
  kernels: ["cast"],
  summary:
    "writes X to file_path: .npy if the path ends in .npy, else Paddle's format",
  inputs: { X: slot.tensor() },
  outputs: {},
  attrs: {
    file_path: attr.required("string"),
    overwrite: attr.bool(true),
    save_as_fp16: attr.bool(false),
  },
  prepare(ctx) {
    const x = ctx.input("X");
    const { file_path: path, overwrite, save_as_fp16 } = ctx.attrs;
    const encode = saveFormatOf(path) === "npy" ? encodeNpy : writePaddleTensor;
    return (scope, thread) => {
      const t = asFloat16(x.tensor(scope), save_as_fp16, thread);
      return writeFileBytes(path, encode(t), { overwrite });
    };
  },
});

const load = defineOp({
  type: "load",
  kernels: ["cast"],
  summary: "Out = the tensor in file_path, a .npy or Paddle tensor file",
  inputs: {},
  outputs: { Out: slot.tensor() },
  attrs: {
    file_path: attr.required("string"),
    load_as_fp16: attr.bool(false),
    seek: attr.long(-1n),
    shape: attr.longs([]),
  },
  check(a) {
    if (a.seek < -1n) throw new AttrError("seek", `${a.seek} is below -1`);
    if (a.shape.some((d) => d < 0n)) {
      throw new AttrError(
        "shape",
        `[${a.shape.join(", ")}] has a negative dim`,
      );
    }
  },
  prepare(ctx) {
    const out = ctx.output("Out");
    const { file_path: path, load_as_fp16, seek, shape } = ctx.attrs;
    return async (scope, thread) => {
      const bytes = await readFileBytes(path);
      let t = inFile(path, () => readTensorFile(bytes).tensor);
      if (seek !== -1n) t = inFile(path, () => seekElements(t, seek, shape));
      out.write(scope, asFloat16(t, load_as_fp16, thread));
    };
  },
});

const saveCombine = defineOp({
  type: "save_combine",
  kernels: ["cast"],
  summary: "writes every X, in order, to file_path as one Paddle combined file",
  inputs: { X: slot.tensor({ duplicable: true }) },
  outputs: {},
  attrs: {
    file_path: attr.required("string"),
    overwrite: attr.bool(true),
    save_as_fp16: attr.bool(false),
    save_to_memory: attr.bool(false),
  },
  check(a) {
    checkNotInMemory("save_to_memory", a.save_to_memory);
  },
  prepare(ctx) {
    const xs = ctx.inputList("X");
    const { file_path: path, overwrite, save_as_fp16 } = ctx.attrs;
    return (scope, thread) => {
      const tensors = xs.map((x) =>
        asFloat16(x.tensor(scope), save_as_fp16, thread)
      );
      return writeFileBytes(path, writePaddleTensors(tensors), { overwrite });
    };
  },
});

const loadCombine = defineOp({
  type: "load_combine",
  kernels: ["cast"],
  summary:
    "Out... = the tensors of the Paddle combined file file_path, in order",
  inputs: {},
  outputs: { Out: slot.tensor({ duplicable: true }) },
  attrs: {
    file_path: attr.required("string"),
    load_as_fp16: attr.bool(false),
    model_from_memory: attr.bool(false),
  },
  check(a) {
    checkNotInMemory("model_from_memory", a.model_from_memory);
  },
  prepare(ctx) {
    const outs = ctx.outputList("Out");
    const names = outs.map((o) => o.name);
    const { file_path: path, load_as_fp16 } = ctx.attrs;
    return async (scope, thread) => {
      const bytes = await readFileBytes(path);
      if (sniffTensorFile(bytes) === "npy") {
        throw new TypeError(
          `"${path}" is a .npy file; load_combine reads Paddle's combined format`,
        );
      }
      const records = inFile(path, () => readPaddleTensors(bytes, names));
      records.forEach(({ tensor }, i) => {
        outs[i].write(scope, asFloat16(tensor, load_as_fp16, thread));
      });
    };
  },
});

/**
 * The tensor file ops: `save`, `load`, `save_combine`, `load_combine`.
 *
 * @example Usage
 * ```ts
 * import { SAVE_LOAD_OPS } from "./save_load.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const loadCombine = SAVE_LOAD_OPS.find((def) => def.type === "load_combine");
 * assertEquals(loadCombine?.outputs.Out.duplicable, true);
 * ```
 */
export const SAVE_LOAD_OPS: readonly OpDef[] = [
  save,
  load,
  saveCombine,
  loadCombine,
];
