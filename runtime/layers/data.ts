/**
 * Builders for the data ops: `read` (rows of a `.npy` or CSV file), `save`
 * and `load` (one tensor, as `.npy` or in Paddle's tensor format),
 * `saveCombine` and `loadCombine` (several tensors in one Paddle combined
 * file).
 *
 * @module
 */
import type { DType } from "../../kernels/dtype.ts";
import { codeOfDType } from "../core/dtype_codes.ts";
import { defaultProgram, type Variable } from "../build/program.ts";
import { appendLayer, type OutOptions } from "./append_layer.ts";

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

/** Options of `save` and `saveCombine`. */
export interface SaveOptions {
  /** Replace an existing file; `false`: an existing file panics. @default {true} */
  overwrite?: boolean;
  /** Convert to float16 before writing. @default {false} */
  saveAsFp16?: boolean;
}

/**
 * `save`: writes `x` to `path` when the op runs, as NumPy `.npy` when the
 * path ends in `.npy` (any case) and in Paddle's tensor format otherwise
 * (what Paddle's own `save` op writes, to names like `fc_0.w_0`).
 *
 * @param x The tensor.
 * @param path The file.
 * @param options Overwrite, float16.
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
export function save(
  x: Variable,
  path: string,
  options: SaveOptions = {},
): void {
  appendLayer("save", { X: x }, {
    file_path: path,
    overwrite: options.overwrite,
    save_as_fp16: options.saveAsFp16,
  });
}

/** Options of `load`. */
export interface LoadOptions extends OutOptions {
  /** Convert to float16 after reading. @default {false} */
  loadAsFp16?: boolean;
  /**
   * Read only `shape`'s element count, starting at this element (Paddle's
   * `seek`); absent: the whole tensor.
   */
  seek?: number | bigint;
  /** The shape of what `seek` reads. @default {[]} */
  shape?: readonly number[];
}

/**
 * `load`: the tensor in a file, NumPy `.npy` or Paddle's tensor format,
 * told apart by its first bytes.
 *
 * @param path The file.
 * @param options Where to write, float16, seek.
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
export function load(path: string, options: LoadOptions = {}): Variable {
  return appendLayer("load", {}, {
    file_path: path,
    load_as_fp16: options.loadAsFp16,
    seek: options.seek,
    shape: options.shape?.map(BigInt),
  }, { Out: options.out }).Out[0];
}

/**
 * `save_combine`: writes every tensor of `xs`, in order, to one Paddle
 * combined file (as `fluid.io.save_params` with a `filename` does).
 *
 * @param xs The tensors.
 * @param path The file.
 * @param options Overwrite, float16.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program, saveCombine } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => saveCombine([fillConstant({ shape: [2] }), fillConstant({ shape: [3] })], "__params__"));
 * assertEquals(p.desc.blocks[0].ops[2].inputs[0].arguments.length, 2);
 * ```
 */
export function saveCombine(
  xs: readonly Variable[],
  path: string,
  options: SaveOptions = {},
): void {
  appendLayer("save_combine", { X: xs }, {
    file_path: path,
    overwrite: options.overwrite,
    save_as_fp16: options.saveAsFp16,
  });
}

/** Options of `loadCombine`. */
export interface LoadCombineOptions {
  /** Convert to float16 after reading. @default {false} */
  loadAsFp16?: boolean;
}

/**
 * `load_combine`: the tensors of a Paddle combined file, in file order.
 * The file must hold exactly one tensor per output.
 *
 * @param path The file.
 * @param into The variables to load into, in file order, or how many new
 * tensor variables to make.
 * @param options Float16.
 * @returns The output variables.
 *
 * @example Usage
 * ```ts
 * import { loadCombine, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const [w, b] = p.guard(() => loadCombine("__params__", 2));
 * assertEquals([w.kind, b.kind], ["tensor", "tensor"]);
 * ```
 */
export function loadCombine(
  path: string,
  into: number | readonly Variable[],
  options: LoadCombineOptions = {},
): Variable[] {
  const block = defaultProgram().currentBlock;
  const outs = typeof into === "number"
    ? Array.from(
      { length: into },
      () =>
        block.createVar({ name: block.program.uniqueName("load_combine.out") }),
    )
    : [...into];
  appendLayer("load_combine", {}, {
    file_path: path,
    load_as_fp16: options.loadAsFp16,
  }, { Out: outs });
  return outs;
}
