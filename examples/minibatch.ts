/**
 * Concurrent minibatch loading (csp.md): a reader goroutine reads batches
 * of rows of a `.npy` file into a buffered channel, then closes it, while
 * the main green thread computes on each batch as it arrives.
 *
 * The data, `examples/data/minibatch.npy`, is a 12 × 3 float32 array whose
 * row r holds r, r, r; batches are 4 rows, so their means are 1.5, 5.5, 9.5.
 * Run from the repository root (the path is relative).
 *
 * Output: `batch mean 1.5`, `batch mean 5.5`, `batch mean 9.5`, `done false`.
 *
 * @module
 */
import {
  closeChannel,
  elementwiseMul,
  fillConstant,
  forRange,
  go,
  makeChannel,
  mean,
  print,
  Program,
  read,
  recv,
  send,
  whileLoop,
} from "../mod.ts";
import { encodeNpy } from "../kernels/npy.ts";
import { Tensor } from "../kernels/tensor.ts";

/** The data file, relative to the repository root. */
export const DATA_PATH = "examples/data/minibatch.npy";

/**
 * The data files this example reads, by path.
 *
 * @returns Path to contents.
 */
export function dataFiles(): Record<string, Uint8Array> {
  const values = Array.from({ length: 36 }, (_, i) => Math.floor(i / 3));
  return {
    [DATA_PATH]: encodeNpy(Tensor.fromArray(values, "float32", [12, 3])),
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
    const batches = makeChannel({ capacity: 2, dtype: "float32" });
    const batchSize = fillConstant({ shape: [1], dtype: "int64", value: 4 });
    go(() => {
      forRange(3, (b) => {
        const [rows] = read(DATA_PATH, {
          start: elementwiseMul(b, batchSize),
          count: batchSize,
        });
        send(batches, rows);
      });
      closeChannel(batches);
    });
    const more = fillConstant({ shape: [1], dtype: "bool", value: true });
    const batch = recv(batches, { status: more });
    whileLoop(more, () => {
      print(mean(batch), { message: "batch mean" });
      recv(batches, { out: batch, status: more });
    });
    print(more, { message: "done" });
  });
  return program;
}
