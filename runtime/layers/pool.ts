/**
 * Builder for the pooling op `pool2d`.
 *
 * @module
 */
import type { Variable } from "../build/program.ts";
import { out1, type OutOptions } from "./append_layer.ts";

/** Options of {@linkcode pool2d}; each left out takes Paddle's default. */
export interface Pool2dOptions extends OutOptions {
  /** `pooling_type`: `max` or `avg`. @default {"max"} */
  poolingType?: "max" | "avg";
  /** `global_pooling`: one window over the whole image. @default {false} */
  globalPooling?: boolean;
  /** `strides`, `[h, w]`. @default {[1, 1]} */
  strides?: readonly number[];
  /** `paddings`: `[h, w]` or `[top, bottom, left, right]`. @default {[0, 0]} */
  paddings?: readonly number[];
  /** `padding_algorithm`: `EXPLICIT`, `SAME` or `VALID`. @default {"EXPLICIT"} */
  paddingAlgorithm?: string;
  /** `exclusive`: average over the input's positions only. @default {true} */
  exclusive?: boolean;
  /** `adaptive`: `ksize` is the output's size. @default {false} */
  adaptive?: boolean;
  /** `ceil_mode`: count a last partial window. @default {false} */
  ceilMode?: boolean;
  /** `data_format`: `NCHW`, `NHWC` or `AnyLayout`. @default {"NCHW"} */
  dataFormat?: string;
}

/**
 * `pool2d`: the max or average of `x` over `ksize` windows.
 *
 * @param x The input, `[N, C, H, W]` (NHWC with `dataFormat`).
 * @param ksize The window's `[h, w]` (with `adaptive`, the output's).
 * @param options The pooling and where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, pool2d, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => pool2d(fillConstant({ shape: [1, 8, 30, 30] }), [2, 2], { strides: [2, 2] }));
 * assertEquals(y.shape, [1, 8, 15, 15]);
 * ```
 */
export function pool2d(
  x: Variable,
  ksize: readonly number[],
  options: Pool2dOptions = {},
): Variable {
  return out1("pool2d", { X: x }, {
    pooling_type: options.poolingType ?? "max",
    ksize,
    global_pooling: options.globalPooling,
    strides: options.strides,
    paddings: options.paddings,
    padding_algorithm: options.paddingAlgorithm,
    exclusive: options.exclusive,
    adaptive: options.adaptive,
    ceil_mode: options.ceilMode,
    data_format: options.dataFormat,
  }, options);
}
