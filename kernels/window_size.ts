// The sizes a sliding window makes along one spatial axis, as Paddle
// computes them: a convolution's, a transposed convolution's and a
// pooling's output size. The kernels use them to check their operands and
// the ops to infer shapes before a run, so both agree by construction.
//
// Paddle divides with C's truncation, so a window one element larger than
// the padded input still gives an output of 1 at stride 2; here a window
// that does not fit the padded input gives 0 at every stride, which the
// callers refuse.

/** One spatial axis of a window: its taps, step and padding. */
export interface WindowAxis {
  /** The taps of the window (the filter's or the pool's size). */
  readonly kernel: number;
  /**
   * The step between windows.
   *
   * @default {1}
   */
  readonly stride?: number;
  /**
   * The spacing of the taps.
   *
   * @default {1}
   */
  readonly dilation?: number;
  /**
   * Padding before the first element.
   *
   * @default {0}
   */
  readonly before?: number;
  /**
   * Padding after the last element.
   *
   * @default {0}
   */
  readonly after?: number;
}

/**
 * The output size of a convolution along one axis:
 * `floor((in + before + after − dilation·(kernel − 1) − 1) / stride) + 1`.
 *
 * @param input The input's size along the axis.
 * @param axis The window along it.
 * @returns The output size; 0 when the dilated window is larger than the
 * padded input.
 *
 * @example Usage
 * ```ts
 * import { convOutputSize } from "./window_size.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(convOutputSize(224, { kernel: 3, stride: 2, before: 1, after: 1 }), 112);
 * assertEquals(convOutputSize(5, { kernel: 3, dilation: 3 }), 0); // 7 taps wide
 * ```
 */
export function convOutputSize(input: number, axis: WindowAxis): number {
  const { kernel, stride = 1, dilation = 1, before = 0, after = 0 } = axis;
  const room = input + before + after - (dilation * (kernel - 1) + 1);
  return room < 0 ? 0 : Math.floor(room / stride) + 1;
}

/**
 * The output size of a pooling along one axis (Paddle's
 * `PoolOutputSize`): `(in − kernel + before + after) / stride + 1`,
 * rounded down, or up with `ceilMode`.
 *
 * @param input The input's size along the axis.
 * @param axis The window along it (`dilation` is not read).
 * @param ceilMode Round the count of steps up.
 * @returns The output size; 0 when the window is larger than the padded
 * input.
 *
 * @example Usage
 * ```ts
 * import { poolOutputSize } from "./window_size.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(poolOutputSize(5, { kernel: 2, stride: 2 }, false), 2);
 * assertEquals(poolOutputSize(5, { kernel: 2, stride: 2 }, true), 3);
 * assertEquals(poolOutputSize(2, { kernel: 3 }, false), 0);
 * ```
 */
export function poolOutputSize(
  input: number,
  axis: WindowAxis,
  ceilMode: boolean,
): number {
  const { kernel, stride = 1, before = 0, after = 0 } = axis;
  const room = input + before + after - kernel;
  if (room < 0) return 0;
  return (ceilMode ? Math.ceil(room / stride) : Math.floor(room / stride)) + 1;
}

/**
 * The smallest output size of a transposed convolution along one axis:
 * `(in − 1)·stride − before − after + dilation·(kernel − 1) + 1`, the size
 * whose convolution gives back `in`.
 *
 * @param input The input's size along the axis.
 * @param axis The window along it.
 * @returns The output size (0 or less when the paddings eat it all).
 *
 * @example Usage
 * ```ts
 * import { convTransposeOutputSize } from "./window_size.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(convTransposeOutputSize(4, { kernel: 3, stride: 2, before: 1, after: 1 }), 7);
 * ```
 */
export function convTransposeOutputSize(
  input: number,
  axis: WindowAxis,
): number {
  const { kernel, stride = 1, dilation = 1, before = 0, after = 0 } = axis;
  return (input - 1) * stride - before - after + dilation * (kernel - 1) + 1;
}
