/**
 * Builders for the data ops: `read` (rows of a `.npy` or CSV file), `save`
 * and `load` (whole tensors as `.npy`).
 *
 * @module
 */
import type { DType } from "../../kernels/dtype.ts";
import { codeOfDType } from "../dtype_codes.ts";
import { defaultProgram, type Variable } from "../program.ts";
import { appendLayer } from "./append_layer.ts";

/** Options of `read`. */
export interface ReadOptions {
  /** The first row (an integer variable); absent: 0. */
  start?: Variable;
  /** How many rows (an integer variable); absent: to the end. */
  count?: Variable;
  /** `"npy"` or `"csv"`. @default {"npy"} */
  format?: "npy" | "csv";
  /** A CSV file's element type. @default {"float32"} */
  dtype?: DType;
}

/**
 * `read`: rows `[start, start+count)` of a file, and the file's row count.
 *
 * @param path The file, relative to the working directory when run.
 * @param options Rows, format, dtype.
 * @returns `[rows read, total rows (int64)]`.
 *
 * @example Usage
 * ```ts
 * import { Program, read } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const [x, rows] = p.guard(() => read("data.npy"));
 * assertEquals([x.kind, rows.dtype], ["tensor", "int64"]);
 * ```
 */
export function read(
  path: string,
  options: ReadOptions = {},
): [Variable, Variable] {
  const block = defaultProgram().currentBlock;
  const rows = block.createVar({
    name: block.program.uniqueName("read.rows"),
    dtype: "int64",
    shape: [1],
  });
  const { Out } = appendLayer("read", {
    Start: options.start,
    Count: options.count,
  }, {
    path,
    format: options.format,
    dtype: options.dtype && codeOfDType(options.dtype),
  }, { Rows: rows });
  return [Out[0], rows];
}

/**
 * `save`: writes `x` to `path` as `.npy` when the op runs.
 *
 * @param x The tensor.
 * @param path The file.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program, save } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => save(fillConstant({ shape: [2] }), "x.npy"));
 * assertEquals(p.desc.blocks[0].ops[1].type, "save");
 * ```
 */
export function save(x: Variable, path: string): void {
  appendLayer("save", { X: x }, { file_path: path });
}

/**
 * `load`: the tensor in a `.npy` file.
 *
 * @param path The file.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { load, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => load("x.npy")).kind, "tensor");
 * ```
 */
export function load(path: string): Variable {
  return appendLayer("load", {}, { file_path: path }).Out[0];
}
