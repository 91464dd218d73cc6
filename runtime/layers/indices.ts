/**
 * Builders for the ops of positions: `arg_max`, `top_k_v2`, `one_hot_v2`.
 * Each option left out is left out of the op, which then takes Paddle's
 * default.
 *
 * @module
 */
import type { Variable } from "../build/program.ts";
import { codeOfDType } from "../core/dtype_codes.ts";
import type { DType } from "../../kernels/dtype.ts";
import { appendLayer, out1, type OutOptions } from "./append_layer.ts";

/** Options of {@linkcode argMax}. */
export interface ArgMaxOptions extends OutOptions {
  /** `keepdims`: keep `axis` as a dim of 1. @default {false} */
  keepdims?: boolean;
  /** `dtype` of the positions. @default {"int64"} */
  dtype?: "int32" | "int64";
  /** `flatten`: search all of `x`, as one row. @default {false} */
  flatten?: boolean;
}

/**
 * `arg_max`: the position of the first largest element of `x` along
 * `axis`.
 *
 * @param x The input.
 * @param axis The dim searched.
 * @param options Dims kept, dtype, flatten, where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { argMax, assignValue, Executor, print, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => print(argMax(assignValue([1, 5, 2, 7, 0, 3], { shape: [2, 3] }), 1), { message: "i" }));
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["i [1, 0]"]);
 * ```
 */
export function argMax(
  x: Variable,
  axis: number,
  options: ArgMaxOptions = {},
): Variable {
  return out1("arg_max", { X: x }, {
    axis: BigInt(axis),
    keepdims: options.keepdims,
    dtype: options.dtype && codeOfDType(options.dtype),
    flatten: options.flatten,
  }, options);
}

/** Options of {@linkcode topKV2}. */
export interface TopKV2Options {
  /** `axis`: the dim searched. @default {-1} */
  axis?: number;
  /** `largest`: the largest elements, else the smallest. @default {true} */
  largest?: boolean;
  /** `sorted`: in order. @default {true} */
  sorted?: boolean;
  /** Write the values into this variable instead of a new one. */
  out?: Variable;
  /** Write the positions into this variable instead of a new one. */
  indices?: Variable;
}

/**
 * `top_k_v2`: the `k` largest (or smallest) elements of `x` along `axis`,
 * and their int64 positions.
 *
 * @param x The input.
 * @param k The count, or a `[1]` tensor holding it (`K`).
 * @param options Axis, order, where to write.
 * @returns The `Out` and `Indices` variables.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, print, Program, topKV2 } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const [values, indices] = topKV2(assignValue([3, 9, 1, 7]), 2);
 *   print(values, { message: "v" });
 *   print(indices, { message: "i" });
 * });
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["v [9, 7]", "i [1, 3]"]);
 * ```
 */
export function topKV2(
  x: Variable,
  k: number | Variable,
  options: TopKV2Options = {},
): [Variable, Variable] {
  const byTensor = typeof k !== "number";
  const { Out, Indices } = appendLayer(
    "top_k_v2",
    byTensor ? { X: x, K: k } : { X: x },
    {
      k: byTensor ? undefined : k,
      axis: options.axis,
      largest: options.largest,
      sorted: options.sorted,
    },
    { Out: options.out, Indices: options.indices },
  );
  return [Out[0], Indices[0]];
}

/** Options of {@linkcode oneHotV2}. */
export interface OneHotV2Options extends OutOptions {
  /** `dtype` of the rows. @default {"float32"} */
  dtype?: DType;
  /**
   * `allow_out_of_range`: a position outside `[0, depth)` gives a row of
   * zeros instead of a panic. @default {false}
   */
  allowOutOfRange?: boolean;
}

/**
 * `one_hot_v2`: a one-hot row of `depth` for each integer position of `x`,
 * as a new last dim.
 *
 * @param x The positions (int32 or int64).
 * @param depth The row length, or a `[1]` tensor holding it
 * (`depth_tensor`).
 * @param options Dtype, range, where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, oneHotV2, print, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => print(oneHotV2(assignValue([2, 0], { dtype: "int64" }), 3), { message: "y" }));
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["y [[0, 0, 1], [1, 0, 0]]"]);
 * ```
 */
export function oneHotV2(
  x: Variable,
  depth: number | Variable,
  options: OneHotV2Options = {},
): Variable {
  const byTensor = typeof depth !== "number";
  return out1(
    "one_hot_v2",
    byTensor ? { X: x, depth_tensor: depth } : { X: x },
    {
      depth: byTensor ? undefined : depth,
      dtype: options.dtype && codeOfDType(options.dtype),
      allow_out_of_range: options.allowOutOfRange,
    },
    options,
  );
}
