/**
 * Builders for the reductions and products: `reduce_*`, `mean`, `softmax`,
 * `sum`, `mul`, `matmul`, `matmul_v2`.
 *
 * @module
 */
import type { Variable } from "../build/program.ts";
import { out1, type OutOptions, unaryBuilder } from "./append_layer.ts";
import type { UnaryBuilder } from "./elementwise.ts";

/** Options of the `reduce_*` builders. */
export interface ReduceOptions extends OutOptions {
  /**
   * The dims to reduce, negative ones counted from the end; absent or
   * empty: every dim, as `fluid.layers.reduce_sum(x)` does.
   * @default {undefined}
   */
  dim?: readonly number[];
  /** Keep reduced dims as size 1. @default {false} */
  keepDim?: boolean;
  /**
   * Reduce every dim whatever `dim` says; `false` with no `dim` reduces
   * dim 0, the op's own default.
   * @default {true when no dim is given, else false}
   */
  reduceAll?: boolean;
}

/** A builder of a `reduce_*` op. */
export type ReduceBuilder = (x: Variable, options?: ReduceOptions) => Variable;

// The op's defaults (dim [0], reduce_all false) differ from the builder's
// (every dim when no dim is given, as Fluid's layers do), so the builder
// writes all three attributes, as Fluid's layers do: the program says what
// it means whoever reads it.
function reduceBuilder(type: string): ReduceBuilder {
  return (x, options = {}) => {
    const dim = options.dim ?? [];
    return out1(type, { X: x }, {
      dim: dim.length === 0 ? [0] : dim,
      keep_dim: options.keepDim ?? false,
      reduce_all: options.reduceAll ?? dim.length === 0,
    }, options);
  };
}

/**
 * `mean`: Out = the mean of every element, shape [1].
 *
 * @example Usage
 * ```ts
 * import { mean, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => mean(fillConstant({ shape: [1] })));
 * assertEquals(y.kind, "tensor");
 * ```
 */
export const mean: UnaryBuilder = unaryBuilder("mean");

/**
 * `reduce_sum`: Out = the sum of x over `dim` (every dim when none given, or with
 * `reduceAll`).
 *
 * @example Usage
 * ```ts
 * import { reduceSum, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => reduceSum(fillConstant({ shape: [2, 3] }), { dim: [1] }));
 * assertEquals(y.shape, [2]);
 * ```
 *
 * @example Every dim, said in the program
 * ```ts
 * import { reduceSum, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => reduceSum(fillConstant({ shape: [2, 3] })));
 * assertEquals(y.shape, [1]);
 * const attrs = p.desc.blocks[0].ops.at(-1)!.attrs.map((a) => a.name);
 * assertEquals(attrs, ["dim", "keep_dim", "reduce_all"]);
 * ```
 */
export const reduceSum: ReduceBuilder = reduceBuilder("reduce_sum");

/**
 * `reduce_mean`: Out = the mean of x over `dim` (every dim when none given, or with
 * `reduceAll`).
 *
 * @example Usage
 * ```ts
 * import { reduceMean, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => reduceMean(fillConstant({ shape: [2, 3] }), { dim: [1] }));
 * assertEquals(y.shape, [2]);
 * ```
 */
export const reduceMean: ReduceBuilder = reduceBuilder("reduce_mean");

/**
 * `reduce_max`: Out = the max of x over `dim` (every dim when none given, or with
 * `reduceAll`).
 *
 * @example Usage
 * ```ts
 * import { reduceMax, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => reduceMax(fillConstant({ shape: [2, 3] }), { dim: [1] }));
 * assertEquals(y.shape, [2]);
 * ```
 */
export const reduceMax: ReduceBuilder = reduceBuilder("reduce_max");

/**
 * `reduce_min`: Out = the min of x over `dim` (every dim when none given, or with
 * `reduceAll`).
 *
 * @example Usage
 * ```ts
 * import { reduceMin, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => reduceMin(fillConstant({ shape: [2, 3] }), { dim: [1] }));
 * assertEquals(y.shape, [2]);
 * ```
 */
export const reduceMin: ReduceBuilder = reduceBuilder("reduce_min");

/**
 * `reduce_prod`: Out = the product of x over `dim` (every dim when none given, or with
 * `reduceAll`).
 *
 * @example Usage
 * ```ts
 * import { reduceProd, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => reduceProd(fillConstant({ shape: [2, 3] }), { dim: [1] }));
 * assertEquals(y.shape, [2]);
 * ```
 */
export const reduceProd: ReduceBuilder = reduceBuilder("reduce_prod");

/**
 * `softmax` along `axis`.
 *
 * @param x The input.
 * @param options Axis (default -1), where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program, softmax } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => softmax(fillConstant({ shape: [2, 4] }))).shape, [2, 4]);
 * ```
 */
export function softmax(
  x: Variable,
  options: OutOptions & { axis?: number } = {},
): Variable {
  return out1("softmax", { X: x }, { axis: options.axis }, options);
}

/**
 * `sum`: the elementwise sum of every input.
 *
 * @param xs The inputs, of one shape.
 * @param options Where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program, sum } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const s = p.guard(() => sum([fillConstant({ shape: [2] }), fillConstant({ shape: [2] })]));
 * assertEquals(s.shape, [2]);
 * ```
 */
export function sum(
  xs: readonly Variable[],
  options: OutOptions = {},
): Variable {
  return out1("sum", { X: xs }, {}, options);
}

/** Options of `mul`. */
export interface MulOptions extends OutOptions {
  /** Dims of x that form the rows. @default {1} */
  xNumColDims?: number;
  /** Dims of y that form the rows. @default {1} */
  yNumColDims?: number;
}

/**
 * `mul`: Fluid's 2-D matrix product (the design doc's `mult`).
 *
 * @param x Left matrix.
 * @param y Right matrix.
 * @param options Flattening dims, where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, mul, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => mul(fillConstant({ shape: [2, 3] }), fillConstant({ shape: [3, 4] })));
 * assertEquals(y.shape, [2, 4]);
 * ```
 */
export function mul(
  x: Variable,
  y: Variable,
  options: MulOptions = {},
): Variable {
  return out1("mul", { X: x, Y: y }, {
    x_num_col_dims: options.xNumColDims,
    y_num_col_dims: options.yNumColDims,
  }, options);
}

/** Options of `matmul`. */
export interface MatmulOptions extends OutOptions {
  /** Transpose x's last two dims. @default {false} */
  transposeX?: boolean;
  /** Transpose y's last two dims. @default {false} */
  transposeY?: boolean;
  /** Scales the product. @default {1} */
  alpha?: number;
}

/**
 * `matmul`: batched matrix product with broadcast batch dims.
 *
 * @param x Left.
 * @param y Right.
 * @param options Transposes, alpha, where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, matmul, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() =>
 *   matmul(fillConstant({ shape: [5, 2, 3] }), fillConstant({ shape: [4, 3] }), { transposeY: true })
 * );
 * assertEquals(y.shape, [5, 2, 4]);
 * ```
 */
export function matmul(
  x: Variable,
  y: Variable,
  options: MatmulOptions = {},
): Variable {
  return out1("matmul", { X: x, Y: y }, {
    transpose_X: options.transposeX,
    transpose_Y: options.transposeY,
    alpha: options.alpha,
  }, options);
}

/** Options of {@linkcode matmulV2}. */
export interface MatmulV2Options extends OutOptions {
  /** `trans_x`: transpose x's last two dims. @default {false} */
  transX?: boolean;
  /** `trans_y`: transpose y's last two dims. @default {false} */
  transY?: boolean;
}

/**
 * `matmul_v2`: Paddle 2.x's batched matrix product; batch dims broadcast,
 * a 1-D `x` is a row and a 1-D `y` a column.
 *
 * @param x Left.
 * @param y Right.
 * @param options Transposes, where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, matmulV2, print, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const x = assignValue([1, 2, 3, 4], { shape: [2, 2] });
 *   print(matmulV2(x, assignValue([1, 1])), { message: "y" });
 * });
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["y [3, 7]"]);
 * ```
 */
export function matmulV2(
  x: Variable,
  y: Variable,
  options: MatmulV2Options = {},
): Variable {
  return out1("matmul_v2", { X: x, Y: y }, {
    trans_x: options.transX,
    trans_y: options.transY,
  }, options);
}
