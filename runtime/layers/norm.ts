/**
 * Builders for the normalizations: `batch_norm` (at inference),
 * `layer_norm`, `instance_norm`, `group_norm`. Each returns `Y`; options
 * left out take Paddle's defaults.
 *
 * @module
 */
import type { Variable } from "../build/program.ts";
import { appendLayer, type OutOptions } from "./append_layer.ts";

/** The statistics and parameters of {@linkcode batchNorm}. */
export interface BatchNormParams {
  /** `Mean`: the running means, one per channel. */
  mean: Variable;
  /** `Variance`: the running variances, one per channel. */
  variance: Variable;
  /** `Scale`. @default {none: ones} */
  scale?: Variable;
  /** `Bias`. @default {none: zeros} */
  bias?: Variable;
}

/** Options of {@linkcode batchNorm}. */
export interface BatchNormOptions extends OutOptions {
  /** `epsilon`. @default {1e-5} */
  epsilon?: number;
  /** `data_layout`: `NCHW`, `NHWC` or `AnyLayout`. @default {"NCHW"} */
  dataLayout?: string;
  /**
   * `use_global_stats`, written in place of `is_test` when true.
   *
   * @default {false: the op says is_test}
   */
  useGlobalStats?: boolean;
}

/**
 * `batch_norm` at inference: `(x − mean) / sqrt(variance + epsilon) ·
 * scale + bias` per channel. `MeanOut` and `VarianceOut` are the mean and
 * variance variables themselves, as Paddle writes them.
 *
 * @param x The input, `[N, C, ...]` (channels last with `dataLayout`).
 * @param params The statistics, scale and bias.
 * @param options Epsilon, layout, where to write.
 * @returns The `Y` variable.
 *
 * @example Usage
 * ```ts
 * import { batchNorm, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() =>
 *   batchNorm(fillConstant({ shape: [2, 3, 4, 4] }), {
 *     mean: fillConstant({ shape: [3] }),
 *     variance: fillConstant({ shape: [3], value: 1 }),
 *   })
 * );
 * assertEquals(y.shape, [2, 3, 4, 4]);
 * ```
 */
export function batchNorm(
  x: Variable,
  params: BatchNormParams,
  options: BatchNormOptions = {},
): Variable {
  const globalStats = options.useGlobalStats === true;
  return appendLayer("batch_norm", {
    X: x,
    Scale: params.scale,
    Bias: params.bias,
    Mean: params.mean,
    Variance: params.variance,
  }, {
    is_test: globalStats ? undefined : true,
    use_global_stats: globalStats ? true : undefined,
    epsilon: options.epsilon,
    data_layout: options.dataLayout,
  }, {
    Y: options.out,
    MeanOut: params.mean,
    VarianceOut: params.variance,
  }).Y[0];
}

/** Options of the normalizations that compute their own statistics. */
export interface NormOptions extends OutOptions {
  /** `Scale`. @default {none: ones} */
  scale?: Variable;
  /** `Bias`. @default {none: zeros} */
  bias?: Variable;
  /** `epsilon`. @default {1e-5} */
  epsilon?: number;
}

/** Options of {@linkcode layerNorm}. */
export interface LayerNormOptions extends NormOptions {
  /** `begin_norm_axis`: the first normalized dim. @default {1} */
  beginNormAxis?: number;
}

/**
 * `layer_norm`: each row of `x` from `beginNormAxis` on normalized by its
 * own mean and variance, then scaled and shifted per element.
 *
 * @param x The input.
 * @param options Scale, bias, epsilon, the first normalized dim, where to
 * write.
 * @returns The `Y` variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, layerNorm, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => layerNorm(fillConstant({ shape: [2, 8, 16] }), { beginNormAxis: 2 }));
 * assertEquals(y.shape, [2, 8, 16]);
 * ```
 */
export function layerNorm(
  x: Variable,
  options: LayerNormOptions = {},
): Variable {
  return appendLayer("layer_norm", {
    X: x,
    Scale: options.scale,
    Bias: options.bias,
  }, {
    epsilon: options.epsilon,
    begin_norm_axis: options.beginNormAxis,
  }, { Y: options.out }).Y[0];
}

/**
 * `instance_norm`: each image's channels normalized apart, then scaled and
 * shifted per channel.
 *
 * @param x The input, `[N, C, ...]`.
 * @param options Scale, bias, epsilon, where to write.
 * @returns The `Y` variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, instanceNorm, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => instanceNorm(fillConstant({ shape: [2, 3, 5, 5] })));
 * assertEquals(y.shape, [2, 3, 5, 5]);
 * ```
 */
export function instanceNorm(x: Variable, options: NormOptions = {}): Variable {
  return appendLayer(
    "instance_norm",
    {
      X: x,
      Scale: options.scale,
      Bias: options.bias,
    },
    { epsilon: options.epsilon },
    { Y: options.out },
  ).Y[0];
}

/** Options of {@linkcode groupNorm}. */
export interface GroupNormOptions extends NormOptions {
  /** `data_layout`: `NCHW`, `NHWC` or `AnyLayout`. @default {"NCHW"} */
  dataLayout?: string;
}

/**
 * `group_norm`: each image's channels cut into `groups`, each group
 * normalized apart, then scaled and shifted per channel.
 *
 * @param x The input, `[N, C, ...]` (channels last with `dataLayout`).
 * @param groups How many groups the channels form.
 * @param options Scale, bias, epsilon, layout, where to write.
 * @returns The `Y` variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, groupNorm, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => groupNorm(fillConstant({ shape: [2, 6, 5, 5] }), 3));
 * assertEquals(y.shape, [2, 6, 5, 5]);
 * ```
 */
export function groupNorm(
  x: Variable,
  groups: number,
  options: GroupNormOptions = {},
): Variable {
  return appendLayer("group_norm", {
    X: x,
    Scale: options.scale,
    Bias: options.bias,
  }, {
    epsilon: options.epsilon,
    groups,
    data_layout: options.dataLayout,
  }, { Y: options.out }).Y[0];
}
