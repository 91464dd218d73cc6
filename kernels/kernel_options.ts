// The options of the kernels: the read-only bags that kernels taking more
// than a few arguments accept last, one type per kernel (a family shares a
// base: WindowOptions for convolution and pooling, NormKernelOptions for the
// normalizations), and the float32 product a runtime may hand the matrix
// kernels (Float32Gemm).
//
// Invariants: every field is read-only, so a kernel changes no caller's
// options. Every optional field states its @default, which every device
// applies alike. The geometry here is already resolved (explicit paddings on
// all four sides, explicit sizes): padding algorithms and Paddle's shorter
// attribute forms are the op's to turn into these.

import type { Tensor } from "./tensor.ts";

/**
 * Options of {@linkcode Kernels.reduce}.
 *
 * @example Usage
 * ```ts
 * import type { ReduceKernelOptions } from "./kernel_options.ts";
 * import { cpuDevice } from "./cpu/device.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const options: ReduceKernelOptions = { dims: [1], keepDim: true };
 * const x = Tensor.fromArray([[1, 2], [3, 4]], "float32");
 * assertEquals(cpuDevice.kernels.reduce("sum", x, options).toNested(), [[3], [7]]);
 * ```
 */
export interface ReduceKernelOptions {
  /**
   * The dims to reduce; negative counts from the end. Empty reduces all.
   *
   * @default {[]}
   */
  readonly dims?: readonly number[];
  /**
   * Keep each reduced dim as size 1.
   *
   * @default {false}
   */
  readonly keepDim?: boolean;
  /**
   * Reduce every dim, whatever `dims` says.
   *
   * @default {false}
   */
  readonly reduceAll?: boolean;
}

/**
 * Computes a large float32 product C = alpha · A · B of row-major
 * matrices into `out` (the WASM kernel on one thread by default; a runtime
 * with several workers passes one that splits the rows among them).
 *
 * @example Usage
 * ```ts
 * import type { Float32Gemm } from "./kernel_options.ts";
 * import { cpuDevice } from "./cpu/device.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * // A plain triple loop, as a runtime might pass in place of the WASM kernel.
 * const gemm: Float32Gemm = (a, b, { out, alpha }) => {
 *   for (let i = 0; i < a.rows; i++) {
 *     for (let j = 0; j < b.cols; j++) {
 *       let sum = 0;
 *       for (let k = 0; k < a.cols; k++) {
 *         sum += a.data[i * a.cols + k] * b.data[k * b.cols + j];
 *       }
 *       out[i * b.cols + j] = alpha * sum;
 *     }
 *   }
 * };
 * const x = Tensor.fromArray([[1, 2], [3, 4]], "float32");
 * const product = cpuDevice.kernels.matmul(x, x, { gemmFloat32: gemm });
 * assertEquals(product.toNested(), [[7, 10], [15, 22]]);
 * ```
 */
export type Float32Gemm = (
  a: {
    readonly data: Float32Array;
    readonly rows: number;
    readonly cols: number;
  },
  b: {
    readonly data: Float32Array;
    readonly rows: number;
    readonly cols: number;
  },
  options: { readonly out: Float32Array; readonly alpha: number },
) => void;

/**
 * Options of {@linkcode Kernels.mul2d}.
 *
 * @example Usage
 * ```ts
 * import type { Mul2dKernelOptions } from "./kernel_options.ts";
 * import { cpuDevice } from "./cpu/device.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const options: Mul2dKernelOptions = {};
 * const x = Tensor.fromArray([[1, 2]], "float32");
 * const y = Tensor.fromArray([[3], [4]], "float32");
 * assertEquals(cpuDevice.kernels.mul2d(x, y, 1, 1, options).toNested(), [[11]]);
 * ```
 */
export interface Mul2dKernelOptions {
  /**
   * Computes the large float32 products.
   *
   * @default {the WASM SIMD kernel, one thread}
   */
  readonly gemmFloat32?: Float32Gemm;
}

/**
 * Options of {@linkcode Kernels.matmul}.
 *
 * @example Usage
 * ```ts
 * import type { MatmulKernelOptions } from "./kernel_options.ts";
 * import { cpuDevice } from "./cpu/device.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const options: MatmulKernelOptions = { transposeY: true, alpha: 2 };
 * const x = Tensor.fromArray([[1, 2]], "float32");
 * assertEquals(cpuDevice.kernels.matmul(x, x, options).toNested(), [[10]]);
 * ```
 */
export interface MatmulKernelOptions extends Mul2dKernelOptions {
  /**
   * Use X with its last two dims swapped.
   *
   * @default {false}
   */
  readonly transposeX?: boolean;
  /**
   * Use Y with its last two dims swapped.
   *
   * @default {false}
   */
  readonly transposeY?: boolean;
  /**
   * Multiply the product by this.
   *
   * @default {1}
   */
  readonly alpha?: number;
}

/**
 * How {@linkcode Kernels.split} cuts: `num` equal parts, or parts of the
 * given `sections` sizes (one of which may be -1, meaning the rest).
 *
 * @example Usage
 * ```ts
 * import type { SplitKernelOptions } from "./kernel_options.ts";
 * import { cpuDevice } from "./cpu/device.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const options: SplitKernelOptions = { sections: [1, -1] };
 * const x = Tensor.fromArray([1, 2, 3], "int32");
 * const parts = cpuDevice.kernels.split(x, 0, options);
 * assertEquals(parts.map((p) => p.toNested()), [[1], [2, 3]]);
 * ```
 */
export type SplitKernelOptions = { readonly num: number } | {
  readonly sections: readonly number[];
};

/**
 * The window geometry of {@linkcode Kernels.conv2d} and
 * {@linkcode Kernels.pool2d}, already resolved: explicit paddings on all
 * four sides (a padding algorithm or two-value paddings are the op's to
 * resolve).
 *
 * @example Usage
 * ```ts
 * import type { WindowOptions } from "./kernel_options.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const window: WindowOptions = { strides: [2, 2], paddings: [1, 1, 1, 1] };
 * assertEquals(window.channelLast, undefined); // NCHW
 * ```
 */
export interface WindowOptions {
  /**
   * Steps of the window, `[down, across]`.
   *
   * @default {[1, 1]}
   */
  readonly strides?: readonly number[];
  /**
   * Zeros (or, for pooling, positions outside the input) added on each
   * side: `[top, bottom, left, right]`.
   *
   * @default {[0, 0, 0, 0]}
   */
  readonly paddings?: readonly number[];
  /**
   * Channels last: the input and the result are NHWC rather than NCHW.
   *
   * @default {false}
   */
  readonly channelLast?: boolean;
}

/**
 * Options of {@linkcode Kernels.conv2d}.
 *
 * @example Usage
 * ```ts
 * import type { Conv2dKernelOptions } from "./kernel_options.ts";
 * import { cpuDevice } from "./cpu/device.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const options: Conv2dKernelOptions = { paddings: [1, 1, 1, 1] };
 * const x = Tensor.full([1, 1, 2, 2], "float32", 1);
 * const filter = Tensor.full([1, 1, 3, 3], "float32", 1);
 * const y = cpuDevice.kernels.conv2d(x, filter, options);
 * assertEquals(y.toNested(), [[[[4, 4], [4, 4]]]]);
 * ```
 */
export interface Conv2dKernelOptions extends WindowOptions {
  /**
   * Spacing of the filter's taps, `[down, across]`.
   *
   * @default {[1, 1]}
   */
  readonly dilations?: readonly number[];
  /**
   * Channel groups convolved apart: input channel group g meets output
   * channel group g only.
   *
   * @default {1}
   */
  readonly groups?: number;
}

/**
 * Options of {@linkcode Kernels.conv2dTranspose}.
 *
 * @example Usage
 * ```ts
 * import type { Conv2dTransposeKernelOptions } from "./kernel_options.ts";
 * import { cpuDevice } from "./cpu/device.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const options: Conv2dTransposeKernelOptions = { strides: [2, 2] };
 * const x = Tensor.full([1, 1, 1, 1], "float32", 3);
 * const filter = Tensor.full([1, 1, 2, 2], "float32", 1);
 * const y = cpuDevice.kernels.conv2dTranspose(x, filter, options);
 * assertEquals(y.toNested(), [[[[3, 3], [3, 3]]]]);
 * ```
 */
export interface Conv2dTransposeKernelOptions extends Conv2dKernelOptions {
  /**
   * The result's `[height, width]`: at least the smallest size,
   * `(in − 1)·stride − paddings + dilation·(k − 1) + 1`, and less than
   * that plus the larger of the stride and the dilation. The rows and
   * columns past the smallest size hold the taps that the bottom and
   * right paddings would cut off (zero beyond them).
   *
   * @default {the smallest size}
   */
  readonly outputSize?: readonly number[];
}

/**
 * Options of {@linkcode Kernels.pool2d}.
 *
 * @example Usage
 * ```ts
 * import type { Pool2dKernelOptions } from "./kernel_options.ts";
 * import { cpuDevice } from "./cpu/device.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const options: Pool2dKernelOptions = { ksize: [2, 2], strides: [2, 2] };
 * const x = Tensor.fromArray([[[[1, 2], [3, 4]]]], "float32");
 * assertEquals(cpuDevice.kernels.pool2d("max", x, options).toNested(), [[[[4]]]]);
 * ```
 */
export interface Pool2dKernelOptions extends WindowOptions {
  /** The window's `[height, width]`, or with `adaptive` the result's. */
  readonly ksize: readonly number[];
  /**
   * Count windows with a ceiling rather than a floor, so a last partial
   * window makes an output.
   *
   * @default {false}
   */
  readonly ceilMode?: boolean;
  /**
   * Average over the window's positions inside the input only; otherwise
   * over `ksize[0]·ksize[1]` (Paddle's rule, padding counted as zeros).
   *
   * @default {true}
   */
  readonly exclusive?: boolean;
  /**
   * Adaptive pooling: the result is `ksize` and output i covers input
   * `[floor(i·in/out), ceil((i + 1)·in/out))`; strides and paddings are
   * not read.
   *
   * @default {false}
   */
  readonly adaptive?: boolean;
}

/**
 * Options of {@linkcode Kernels.batchNorm}.
 *
 * @example Usage
 * ```ts
 * import type { BatchNormKernelOptions } from "./kernel_options.ts";
 * import { cpuDevice } from "./cpu/device.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const options: BatchNormKernelOptions = {
 *   mean: Tensor.fromArray([1], "float32"),
 *   variance: Tensor.fromArray([4], "float32"),
 *   epsilon: 0,
 * };
 * const x = Tensor.fromArray([[[[3, 5]]]], "float32");
 * assertEquals(cpuDevice.kernels.batchNorm(x, options).toNested(), [[[[1, 2]]]]);
 * ```
 */
export interface BatchNormKernelOptions {
  /** The per-channel means. */
  readonly mean: Tensor;
  /** The per-channel variances. */
  readonly variance: Tensor;
  /**
   * The per-channel scale.
   *
   * @default {ones}
   */
  readonly scale?: Tensor;
  /**
   * The per-channel shift.
   *
   * @default {zeros}
   */
  readonly bias?: Tensor;
  /**
   * Added to each variance before its square root.
   *
   * @default {1e-5}
   */
  readonly epsilon?: number;
  /**
   * The channel is X's last dim rather than dim 1.
   *
   * @default {false}
   */
  readonly channelLast?: boolean;
}

/**
 * The cells of {@linkcode Kernels.rnn}: Paddle's `rnn` modes.
 *
 * @example Usage
 * ```ts
 * import type { RnnMode } from "./kernel_options.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const mode: RnnMode = "GRU";
 * assertEquals(mode, "GRU");
 * ```
 */
export type RnnMode = "LSTM" | "GRU" | "RNN_TANH" | "RNN_RELU";

/**
 * Options of {@linkcode Kernels.rnn}.
 *
 * @example Usage
 * ```ts
 * import type { RnnKernelOptions } from "./kernel_options.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const options: RnnKernelOptions = {
 *   mode: "LSTM",
 *   layers: 2,
 *   bidirectional: true,
 *   hidden: 8,
 * };
 * // Each state, like its PreState, is [layers · directions, batch, hidden].
 * assertEquals(options.layers * (options.bidirectional ? 2 : 1), 4);
 * ```
 */
export interface RnnKernelOptions {
  /** The cell. */
  readonly mode: RnnMode;
  /** Stacked layers. */
  readonly layers: number;
  /** Whether each layer also runs backward (D = 2). */
  readonly bidirectional: boolean;
  /** H, the size of a hidden state. */
  readonly hidden: number;
}

/**
 * Options of the normalizations that compute their own statistics.
 *
 * @example Usage
 * ```ts
 * import type { NormKernelOptions } from "./kernel_options.ts";
 * import { cpuDevice } from "./cpu/device.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const options: NormKernelOptions = { epsilon: 0 };
 * const x = Tensor.fromArray([[[1, 3]]], "float32");
 * const [y] = cpuDevice.kernels.instanceNorm(x, options);
 * assertEquals(y.toNested(), [[[-1, 1]]]);
 * ```
 */
export interface NormKernelOptions {
  /**
   * The scale, one per normalized channel (per element of a normalized
   * row for {@linkcode Kernels.layerNorm}).
   *
   * @default {ones}
   */
  readonly scale?: Tensor;
  /**
   * The shift, shaped as the scale.
   *
   * @default {zeros}
   */
  readonly bias?: Tensor;
  /**
   * Added to each variance before its square root.
   *
   * @default {1e-5}
   */
  readonly epsilon?: number;
}

/**
 * Options of {@linkcode Kernels.layerNorm}.
 *
 * @example Usage
 * ```ts
 * import type { LayerNormKernelOptions } from "./kernel_options.ts";
 * import { cpuDevice } from "./cpu/device.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const options: LayerNormKernelOptions = { beginNormAxis: 1, epsilon: 0 };
 * const x = Tensor.fromArray([[1, 3], [4, 8]], "float32");
 * const [y, mean] = cpuDevice.kernels.layerNorm(x, options);
 * assertEquals(y.toNested(), [[-1, 1], [-1, 1]]);
 * assertEquals(mean.toNested(), [2, 6]);
 * ```
 */
export interface LayerNormKernelOptions extends NormKernelOptions {
  /**
   * The first normalized dim: each row of X flattened to
   * `[prod(dims before it), prod(the rest)]` is normalized.
   *
   * @default {1}
   */
  readonly beginNormAxis?: number;
}

/**
 * Options of {@linkcode Kernels.groupNorm}.
 *
 * @example Usage
 * ```ts
 * import type { GroupNormKernelOptions } from "./kernel_options.ts";
 * import { cpuDevice } from "./cpu/device.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const options: GroupNormKernelOptions = { groups: 2, epsilon: 0 };
 * const x = Tensor.fromArray([[[1, 3], [4, 8]]], "float32");
 * const [y] = cpuDevice.kernels.groupNorm(x, options);
 * assertEquals(y.toNested(), [[[-1, 1], [-1, 1]]]);
 * ```
 */
export interface GroupNormKernelOptions extends NormKernelOptions {
  /** How many groups the channels are cut into. */
  readonly groups: number;
  /**
   * The channel is X's last dim rather than dim 1.
   *
   * @default {false}
   */
  readonly channelLast?: boolean;
}
