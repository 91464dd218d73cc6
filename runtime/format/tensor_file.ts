/**
 * A file holding one tensor, in either format Rill reads: NumPy's `.npy`
 * or Paddle's tensor format. The two are told apart by their first bytes,
 * never by the file's name: `.npy` starts with the magic string
 * `\x93NUMPY`, Paddle's format with a uint32 LoDTensor version of 0 (four
 * zero bytes), which no `.npy` file can start with.
 *
 * @module
 */
import { decodeNpy } from "../../kernels/npy.ts";
import { type PaddleTensor, readPaddleTensor } from "./paddle_tensor.ts";

/** The formats of a one-tensor file. */
export type TensorFileFormat = "npy" | "paddle";

/** A tensor read from a file, its LoD, and the file's format. */
export interface TensorFileContents extends PaddleTensor {
  /** The format the first bytes named. */
  readonly format: TensorFileFormat;
}

const NPY_MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // "\x93NUMPY"
const PADDLE_VERSION_BYTES = 4;

/**
 * The format of a tensor file, judged by its first bytes.
 *
 * @param bytes The file's bytes, or at least its first six.
 * @returns `"npy"` for the `\x93NUMPY` magic string, `"paddle"` for a
 * LoDTensor version of 0, `undefined` for anything else (an empty file too).
 *
 * @example Usage
 * ```ts
 * import { sniffTensorFile } from "./tensor_file.ts";
 * import { encodeNpy } from "../../kernels/npy.ts";
 * import { writePaddleTensor } from "./paddle_tensor.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const t = Tensor.fromArray([1, 2], "float32");
 * assertEquals(sniffTensorFile(encodeNpy(t)), "npy");
 * assertEquals(sniffTensorFile(writePaddleTensor(t)), "paddle");
 * assertEquals(sniffTensorFile(new TextEncoder().encode("1,2\n")), undefined);
 * ```
 */
export function sniffTensorFile(
  bytes: Uint8Array,
): TensorFileFormat | undefined {
  if (
    bytes.length >= NPY_MAGIC.length &&
    NPY_MAGIC.every((b, i) => bytes[i] === b)
  ) {
    return "npy";
  }
  if (
    bytes.length >= PADDLE_VERSION_BYTES &&
    bytes.subarray(0, PADDLE_VERSION_BYTES).every((b) => b === 0)
  ) {
    return "paddle";
  }
  return undefined;
}

/**
 * The tensor in a one-tensor file of either format.
 *
 * A Paddle file must end where its record ends: bytes left over mean the
 * desc's dims disagree with the data (or the file is a combined one, which
 * `readPaddleTensors` reads). A `.npy` file has no LoD, so `lod` is `[]`.
 *
 * @param bytes The file's bytes.
 * @returns The tensor, its LoD and the file's format.
 * @throws {TypeError} If the first bytes name neither format, or as
 * `decodeNpy` and `readPaddleTensor` throw.
 * @throws {RangeError} If the file is truncated, or a Paddle file has bytes
 * after its record; the message gives the byte offset.
 *
 * @example Usage
 * ```ts
 * import { readTensorFile } from "./tensor_file.ts";
 * import { writePaddleTensor } from "./paddle_tensor.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * const bytes = writePaddleTensor(Tensor.fromArray([5n], "int64"), [[0n, 1n]]);
 * const { tensor, lod, format } = readTensorFile(bytes);
 * assertEquals([tensor.item(0), lod, format], [5n, [[0n, 1n]], "paddle"]);
 * assertThrows(() => readTensorFile(new Uint8Array([...bytes, 0])), RangeError);
 * ```
 */
export function readTensorFile(bytes: Uint8Array): TensorFileContents {
  const format = sniffTensorFile(bytes);
  if (format === "npy") return { tensor: decodeNpy(bytes), lod: [], format };
  if (format === undefined) {
    const head = [...bytes.subarray(0, 8)]
      .map((b) => b.toString(16).padStart(2, "0")).join(" ");
    throw new TypeError(
      "read tensor file: neither a .npy file (\\x93NUMPY) nor a Paddle " +
        `tensor file (version 0): ${
          bytes.length === 0 ? "the file is empty" : `it starts ${head}`
        }`,
    );
  }
  const { tensor, lod, next } = readPaddleTensor(bytes);
  if (next !== bytes.length) {
    throw new RangeError(
      `read tensor file: ${bytes.length - next} bytes left at byte ${next}, ` +
        `after the data that dims [${tensor.shape.join(", ")}] of ` +
        `${tensor.dtype} describe`,
    );
  }
  return { tensor, lod, format };
}
