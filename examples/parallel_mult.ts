/**
 * The design doc's master-side program, run locally: read X, cut it into
 * pieces with `split_to_array`, compute `Y[index] = mul(X[index], W)` for
 * every piece at once with `parallel_for` (the pieces spread over the
 * workers when there are several), join the pieces with `array_to_tensor`
 * and print. It prints what the plain `mult` example prints.
 *
 * The data, `examples/data/mult_x.npy`, is `mult`'s X, [[1, 2], [3, 4]]
 * (float32). Run from the repository root (the path is relative).
 *
 * Output: `Y [[5, 11], [11, 25]]`
 *
 * @module
 */
import {
  arrayRead,
  arrayToTensor,
  arrayWrite,
  assignValue,
  createArray,
  fillConstant,
  mul,
  parallelFor,
  print,
  Program,
  read,
  splitToArray,
} from "../mod.ts";
import { encodeNpy } from "../kernels/npy.ts";
import { Tensor } from "../kernels/tensor.ts";

/** The data file, relative to the repository root. */
export const DATA_PATH = "examples/data/mult_x.npy";

/** How many pieces X is cut into, one per iteration. */
const PIECES = 2;

/**
 * The data files this example reads, by path.
 *
 * @returns Path to contents.
 */
export function dataFiles(): Record<string, Uint8Array> {
  return {
    [DATA_PATH]: encodeNpy(Tensor.fromArray([[1, 2], [3, 4]], "float32")),
  };
}

/**
 * Builds the program.
 *
 * @returns The program.
 */
export function build(): Program {
  const program = new Program();
  program.guard(() => {
    const [x] = read(DATA_PATH);
    const w = assignValue([1, 3, 2, 4], { shape: [2, 2] });
    const pieces = splitToArray(
      x,
      fillConstant({ shape: [1], dtype: "int64", value: PIECES }),
    );
    const y = createArray({ dtype: "float32" });
    parallelFor(PIECES, (index) => {
      arrayWrite(mul(arrayRead(pieces, index), w), index, y);
    });
    print(arrayToTensor(y), { message: "Y" });
  });
  return program;
}
