/**
 * Builders for Paddle 2.x's shape ops: `reshape2`, `transpose2`,
 * `squeeze2`, `unsqueeze2`, `flatten_contiguous_range`, `stack`,
 * `unstack`, `expand_v2`, `pixel_shuffle`, `fill_constant_batch_size_like`.
 * The `XShape` output (for the backward op) is written only into a
 * variable given as `xShape`. Each option left out is left out of the op,
 * which then takes Paddle's default.
 *
 * @module
 */
import type { DType } from "../../kernels/dtype.ts";
import type { AttrInput, Variable } from "../build/program.ts";
import { codeOfDType } from "../core/dtype_codes.ts";
import { appendLayer, out1, type OutOptions } from "./append_layer.ts";
import { exactText } from "./_exact_text.ts";

/** Options of the ops with an `XShape` output. */
export interface XShapeOptions extends OutOptions {
  /** Also write `XShape` (dims `[0, ...x's dims]`) into this variable. */
  xShape?: Variable;
}

function appendWithXShape(
  type: string,
  x: Variable,
  attrs: Readonly<Record<string, AttrInput | undefined>>,
  options: XShapeOptions,
): Variable {
  return appendLayer(type, { X: x }, attrs, {
    Out: options.out,
    XShape: options.xShape,
  }).Out[0];
}

/**
 * `reshape2`: `x` with a new shape; 0 copies x's dim, one -1 infers a dim.
 *
 * @param x The input.
 * @param shape The new shape.
 * @param options Where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, print, Program, reshape2 } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => print(reshape2(assignValue([1, 2, 3, 4, 5, 6], { shape: [2, 3] }), [3, -1]), { message: "y" }));
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["y [[1, 2], [3, 4], [5, 6]]"]);
 * ```
 */
export function reshape2(
  x: Variable,
  shape: readonly number[],
  options: XShapeOptions = {},
): Variable {
  return appendWithXShape("reshape2", x, { shape }, options);
}

/**
 * `transpose2`: `x` with its dims permuted.
 *
 * @param x The input.
 * @param axis The permutation.
 * @param options Where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, print, Program, transpose2 } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => print(transpose2(assignValue([1, 2, 3, 4, 5, 6], { shape: [2, 3] }), [1, 0]), { message: "y" }));
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["y [[1, 4], [2, 5], [3, 6]]"]);
 * ```
 */
export function transpose2(
  x: Variable,
  axis: readonly number[],
  options: XShapeOptions = {},
): Variable {
  return appendWithXShape("transpose2", x, { axis }, options);
}

/** Options of {@linkcode squeeze2}. */
export interface Squeeze2Options extends XShapeOptions {
  /** `axes`: the dims of size 1 to drop; none drops every one. @default {[]} */
  axes?: readonly number[];
}

/**
 * `squeeze2`: `x` without dims of size 1.
 *
 * @param x The input.
 * @param options The axes and where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, print, Program, squeeze2 } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => {
 *   const y = squeeze2(assignValue([1, 2, 3], { shape: [1, 3, 1] }), { axes: [0] });
 *   print(y, { message: "y" });
 *   return y;
 * });
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals([y.shape, lines], [[3, 1], ["y [[1], [2], [3]]"]]);
 * ```
 */
export function squeeze2(x: Variable, options: Squeeze2Options = {}): Variable {
  return appendWithXShape("squeeze2", x, { axes: options.axes }, options);
}

/**
 * `unsqueeze2`: `x` with dims of size 1 inserted at `axes`.
 *
 * @param x The input.
 * @param axes Where the new dims go, in the output.
 * @param options Where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, print, Program, unsqueeze2 } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => print(unsqueeze2(assignValue([1, 2]), [0]), { message: "y" }));
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["y [[1, 2]]"]);
 * ```
 */
export function unsqueeze2(
  x: Variable,
  axes: readonly number[],
  options: XShapeOptions = {},
): Variable {
  return appendWithXShape("unsqueeze2", x, { axes }, options);
}

/** Options of {@linkcode flattenContiguousRange}. */
export interface FlattenContiguousRangeOptions extends XShapeOptions {
  /** `start_axis`: the first dim merged. @default {1} */
  startAxis?: number;
  /** `stop_axis`: the last dim merged. @default {1} */
  stopAxis?: number;
}

/**
 * `flatten_contiguous_range`: `x` with dims `startAxis` to `stopAxis`
 * merged into one.
 *
 * @param x The input.
 * @param options The range and where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, flattenContiguousRange, print, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const x = assignValue([1, 2, 3, 4], { shape: [2, 2, 1] });
 *   print(flattenContiguousRange(x, { startAxis: 0, stopAxis: -1 }), { message: "y" });
 * });
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["y [1, 2, 3, 4]"]);
 * ```
 */
export function flattenContiguousRange(
  x: Variable,
  options: FlattenContiguousRangeOptions = {},
): Variable {
  return appendWithXShape("flatten_contiguous_range", x, {
    start_axis: options.startAxis,
    stop_axis: options.stopAxis,
  }, options);
}

/** Options of {@linkcode stack} and {@linkcode unstack}. */
export interface StackOptions extends OutOptions {
  /** `axis`: the new (or removed) dim. @default {0} */
  axis?: number;
}

/**
 * `stack`: `xs`, of one shape, joined along a new dim `axis`.
 *
 * @param xs The inputs.
 * @param options The axis and where to write.
 * @returns The `Y` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, print, Program, stack } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => print(stack([assignValue([1, 2]), assignValue([3, 4])], { axis: 1 }), { message: "y" }));
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["y [[1, 3], [2, 4]]"]);
 * ```
 */
export function stack(
  xs: readonly Variable[],
  options: StackOptions = {},
): Variable {
  return appendLayer("stack", { X: xs }, { axis: options.axis }, {
    Y: options.out,
  }).Y[0];
}

/** Options of {@linkcode unstack}. */
export interface UnstackOptions {
  /** `axis`: the dim cut apart. @default {0} */
  axis?: number;
  /** `num`: the number of parts. @default {x.shape[axis]} */
  num?: number;
  /** Write into these variables instead of new ones. */
  out?: readonly Variable[];
}

/**
 * `unstack`: `x` cut along `axis` into parts without that dim.
 *
 * @param x The input.
 * @param options The axis, the count and where to write.
 * @returns The `Y` variables, one per part.
 * @throws {TypeError} If `num` is left out and `x`'s dim `axis` is not known.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, print, Program, unstack } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const [a, b] = unstack(assignValue([1, 2, 3, 4], { shape: [2, 2] }), { axis: 1 });
 *   print(a, { message: "a" });
 *   print(b, { message: "b" });
 * });
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["a [1, 3]", "b [2, 4]"]);
 * ```
 */
export function unstack(x: Variable, options: UnstackOptions = {}): Variable[] {
  const axis = options.axis ?? 0;
  const shape = x.shape;
  const num = options.num ?? options.out?.length ??
    shape?.[axis < 0 ? axis + shape.length : axis];
  if (num === undefined || num < 0) {
    throw new TypeError(
      `unstack: num is needed: dim ${axis} of "${x.name}" is not known`,
    );
  }
  return appendLayer("unstack", { X: x }, { axis: options.axis, num }, {
    Y: options.out,
  }).Y;
}

/**
 * `expand_v2`: `x` broadcast to `shape`; -1 keeps x's dim.
 *
 * @param x The input.
 * @param shape The target shape.
 * @param options Where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, expandV2, print, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => print(expandV2(assignValue([1, 2]), [2, -1]), { message: "y" }));
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["y [[1, 2], [1, 2]]"]);
 * ```
 */
export function expandV2(
  x: Variable,
  shape: readonly number[],
  options: OutOptions = {},
): Variable {
  return out1("expand_v2", { X: x }, { shape }, options);
}

/** Options of {@linkcode pixelShuffle}. */
export interface PixelShuffleOptions extends OutOptions {
  /** `data_format`: `NCHW`, `NHWC` or `AnyLayout` (NCHW). @default {"AnyLayout"} */
  dataFormat?: "NCHW" | "NHWC" | "AnyLayout";
}

/**
 * `pixel_shuffle`: `x`'s channels moved into `upscaleFactor` ×
 * `upscaleFactor` blocks of pixels.
 *
 * @param x The input, `[N, C·r², H, W]`.
 * @param upscaleFactor `r`.
 * @param options The layout and where to write.
 * @returns The `Out` variable, `[N, C, H·r, W·r]`.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, pixelShuffle, print, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => print(pixelShuffle(assignValue([1, 2, 3, 4], { shape: [1, 4, 1, 1] }), 2), { message: "y" }));
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["y [[[[1, 2], [3, 4]]]]"]);
 * ```
 */
export function pixelShuffle(
  x: Variable,
  upscaleFactor: number,
  options: PixelShuffleOptions = {},
): Variable {
  return out1("pixel_shuffle", { X: x }, {
    upscale_factor: upscaleFactor,
    data_format: options.dataFormat,
  }, options);
}

/** Options of {@linkcode fillConstantBatchSizeLike}. */
export interface FillConstantBatchSizeLikeOptions extends OutOptions {
  /** `value`. @default {0} */
  value?: number;
  /** `dtype`. @default {"float32"} */
  dtype?: DType;
  /** `input_dim_idx`: the dim of `input` taken. @default {0} */
  inputDimIdx?: number;
  /** `output_dim_idx`: the dim of `shape` it replaces. @default {0} */
  outputDimIdx?: number;
  /** `force_cpu`. @default {false} */
  forceCpu?: boolean;
}

/**
 * `fill_constant_batch_size_like`: a tensor of `shape` filled with
 * `value`, its dim `outputDimIdx` taken from `input`'s dim `inputDimIdx`.
 *
 * @param input The tensor whose dim (the batch size) is taken.
 * @param shape The shape (its dim `outputDimIdx` is replaced).
 * @param options Value, dtype, dims, where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, fillConstantBatchSizeLike, print, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const x = assignValue([1, 2, 3]);
 *   print(fillConstantBatchSizeLike(x, [-1, 2], { value: 7, dtype: "int32" }), { message: "y" });
 * });
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["y [[7, 7], [7, 7], [7, 7]]"]);
 * ```
 */
export function fillConstantBatchSizeLike(
  input: Variable,
  shape: readonly number[],
  options: FillConstantBatchSizeLikeOptions = {},
): Variable {
  const value = options.value ?? 0;
  return out1("fill_constant_batch_size_like", { Input: input }, {
    shape,
    value,
    str_value: exactText(value, options.dtype ?? "float32"),
    dtype: options.dtype && codeOfDType(options.dtype),
    input_dim_idx: options.inputDimIdx,
    output_dim_idx: options.outputDimIdx,
    force_cpu: options.forceCpu,
  }, options);
}
