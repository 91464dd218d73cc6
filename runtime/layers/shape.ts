/**
 * Builders for the ops that rearrange tensors: reshape, transpose, concat,
 * split, slice, gather.
 *
 * @module
 */
import { defaultProgram, type Variable } from "../build/program.ts";
import { appendLayer, out1, type OutOptions } from "./append_layer.ts";

/**
 * `reshape`: `x` with a new shape; -1 infers a dim, 0 copies x's.
 *
 * @param x The input.
 * @param newShape The shape.
 * @param options Where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program, reshape } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => reshape(fillConstant({ shape: [2, 3] }), [3, -1])).shape, [3, 2]);
 * ```
 */
export function reshape(
  x: Variable,
  newShape: readonly number[],
  options: OutOptions = {},
): Variable {
  return out1("reshape", { X: x }, { shape: newShape }, options);
}

/**
 * `transpose`: `x` with its dims permuted.
 *
 * @param x The input.
 * @param perm The permutation.
 * @param options Where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program, transpose } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => transpose(fillConstant({ shape: [2, 3] }), [1, 0])).shape, [3, 2]);
 * ```
 */
export function transpose(
  x: Variable,
  perm: readonly number[],
  options: OutOptions = {},
): Variable {
  return out1("transpose", { X: x }, { axis: perm }, options);
}

/**
 * `concat`: the inputs joined along `axis`.
 *
 * @param xs The inputs.
 * @param options Axis (default 0), where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { concat, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const c = p.guard(() => concat([fillConstant({ shape: [2] }), fillConstant({ shape: [3] })]));
 * assertEquals(c.dtype, "float32");
 * ```
 */
export function concat(
  xs: readonly Variable[],
  options: OutOptions & { axis?: number } = {},
): Variable {
  return out1("concat", { X: xs }, { axis: options.axis }, options);
}

/** Options of `split`: exactly one of `sections` and `num`. */
export interface SplitOptions {
  /** Sizes of the parts (one may be -1). */
  sections?: readonly number[];
  /** Number of equal parts. */
  num?: number;
  /** The dim to cut. @default {0} */
  axis?: number;
}

/**
 * `split`: `x` cut into parts along `axis`.
 *
 * @param x The input.
 * @param options Sections or num, axis.
 * @returns One variable per part.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program, split } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => split(fillConstant({ shape: [4] }), { num: 2 })).length, 2);
 * ```
 */
export function split(x: Variable, options: SplitOptions): Variable[] {
  const count = options.num ?? options.sections?.length ?? 0;
  const block = defaultProgram().currentBlock;
  const outs = Array.from(
    { length: count },
    () =>
      block.createVar({
        name: block.program.uniqueName("split.out"),
        dtype: x.dtype,
      }),
  );
  appendLayer("split", { X: x }, {
    axis: options.axis,
    sections: options.sections,
    num: options.num,
  }, { Out: outs });
  return outs;
}

/** Options of `slice`. */
export interface SliceOptions extends OutOptions {
  /** The dims sliced. */
  axes: readonly number[];
  /** Start per axis (negative counts from the end). */
  starts: readonly number[];
  /** End per axis, exclusive. */
  ends: readonly number[];
}

/**
 * `slice`: `x[starts:ends]` along `axes`.
 *
 * @param x The input.
 * @param options Axes, starts, ends.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program, slice } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const s = p.guard(() => slice(fillConstant({ shape: [4] }), { axes: [0], starts: [1], ends: [3] }));
 * assertEquals(s.dtype, "float32");
 * ```
 */
export function slice(x: Variable, options: SliceOptions): Variable {
  return out1("slice", { Input: x }, {
    axes: options.axes,
    starts: options.starts,
    ends: options.ends,
  }, options);
}

/**
 * `gather`: x's entries at `index` along `axis`.
 *
 * @param x The input.
 * @param index Integer indices.
 * @param options Axis (default 0), where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, fillConstant, gather, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const g = p.guard(() => gather(fillConstant({ shape: [4] }), assignValue([0, 2], { dtype: "int32" })));
 * assertEquals(g.dtype, "float32");
 * ```
 */
export function gather(
  x: Variable,
  index: Variable,
  options: OutOptions & { axis?: number } = {},
): Variable {
  return out1(
    "gather",
    { X: x, Index: index },
    { axis: options.axis },
    options,
  );
}
