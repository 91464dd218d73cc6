/**
 * Builders for the convolutions: `conv2d`, `depthwise_conv2d`,
 * `conv2d_transpose`. The filter is a variable the caller declares (a
 * parameter, OIHW; IOHW for the transpose); each option left out is left
 * out of the op, which then takes Paddle's default.
 *
 * @module
 */
import type { AttrInput, Variable } from "../build/program.ts";
import { appendLayer, type OutOptions } from "./append_layer.ts";

/** Options of {@linkcode conv2d} and {@linkcode depthwiseConv2d}. */
export interface Conv2dOptions extends OutOptions {
  /** `strides`, `[h, w]`. @default {[1, 1]} */
  strides?: readonly number[];
  /** `paddings`: `[h, w]` or `[top, bottom, left, right]`. @default {[0, 0]} */
  paddings?: readonly number[];
  /** `padding_algorithm`: `EXPLICIT`, `SAME` or `VALID`. @default {"EXPLICIT"} */
  paddingAlgorithm?: string;
  /** `dilations`, `[h, w]`. @default {[1, 1]} */
  dilations?: readonly number[];
  /** `groups`. @default {1} */
  groups?: number;
  /** `data_format`: `NCHW`, `NHWC` or `AnyLayout`. @default {"NCHW"} */
  dataFormat?: string;
}

/** Options of {@linkcode conv2dTranspose}. */
export interface Conv2dTransposeOptions extends Conv2dOptions {
  /** `output_size`, `[h, w]`. @default {[]} */
  outputSize?: readonly number[];
  /** `output_padding`, `[h, w]`. @default {[]} */
  outputPadding?: readonly number[];
}

function convAttrs(
  options: Conv2dOptions,
): Record<string, AttrInput | undefined> {
  return {
    strides: options.strides,
    paddings: options.paddings,
    padding_algorithm: options.paddingAlgorithm,
    dilations: options.dilations,
    groups: options.groups,
    data_format: options.dataFormat,
  };
}

/**
 * `conv2d`: `input` convolved with `filter`.
 *
 * @param input The input, `[N, C, H, W]` (NHWC with `dataFormat`).
 * @param filter The filter, `[OC, C / groups, KH, KW]`.
 * @param options The window and where to write.
 * @returns The `Output` variable.
 *
 * @example Usage
 * ```ts
 * import { conv2d, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() =>
 *   conv2d(fillConstant({ shape: [1, 3, 224, 224] }), fillConstant({ shape: [32, 3, 3, 3] }), {
 *     strides: [2, 2],
 *     paddings: [1, 1],
 *   })
 * );
 * assertEquals(y.shape, [1, 32, 112, 112]);
 * ```
 */
export function conv2d(
  input: Variable,
  filter: Variable,
  options: Conv2dOptions = {},
): Variable {
  return appendConv("conv2d", input, filter, convAttrs(options), options);
}

/**
 * `depthwise_conv2d`: `input` convolved with `filter`, one input channel
 * per group (`groups` is usually the channel count).
 *
 * @param input The input, `[N, C, H, W]`.
 * @param filter The filter, `[OC, 1, KH, KW]`.
 * @param options The window and where to write.
 * @returns The `Output` variable.
 *
 * @example Usage
 * ```ts
 * import { depthwiseConv2d, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() =>
 *   depthwiseConv2d(fillConstant({ shape: [1, 8, 9, 9] }), fillConstant({ shape: [8, 1, 3, 3] }), {
 *     groups: 8,
 *     paddingAlgorithm: "SAME",
 *   })
 * );
 * assertEquals(y.shape, [1, 8, 9, 9]);
 * ```
 */
export function depthwiseConv2d(
  input: Variable,
  filter: Variable,
  options: Conv2dOptions = {},
): Variable {
  return appendConv(
    "depthwise_conv2d",
    input,
    filter,
    convAttrs(options),
    options,
  );
}

/**
 * `conv2d_transpose`: `input` spread through `filter` (conv2d's gradient
 * with respect to its input).
 *
 * @param input The input, `[N, C, H, W]`.
 * @param filter The filter, `[C, OC / groups, KH, KW]`.
 * @param options The window, the output size and where to write.
 * @returns The `Output` variable.
 *
 * @example Usage
 * ```ts
 * import { conv2dTranspose, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() =>
 *   conv2dTranspose(fillConstant({ shape: [1, 4, 3, 3] }), fillConstant({ shape: [4, 2, 3, 3] }), {
 *     strides: [2, 2],
 *     outputPadding: [1, 1],
 *   })
 * );
 * assertEquals(y.shape, [1, 2, 8, 8]);
 * ```
 */
export function conv2dTranspose(
  input: Variable,
  filter: Variable,
  options: Conv2dTransposeOptions = {},
): Variable {
  return appendConv("conv2d_transpose", input, filter, {
    ...convAttrs(options),
    output_size: options.outputSize,
    output_padding: options.outputPadding,
  }, options);
}

function appendConv(
  type: string,
  input: Variable,
  filter: Variable,
  attrs: Readonly<Record<string, AttrInput | undefined>>,
  options: OutOptions,
): Variable {
  const inputs = { Input: input, Filter: filter };
  return appendLayer(type, inputs, attrs, { Output: options.out }).Output[0];
}
