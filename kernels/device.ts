// The kernel catalog: every tensor kernel a device offers, by name and
// signature, plus the closed sets of kinds the table-driven kernels accept.
//
// A device implements all of Kernels. The CPU device (kernels/cpu/device.ts)
// is the reference; a GPU device implements the entries it can and takes the
// CPU's function for the rest, so a fallback is a table entry, not a branch.

import type { CounterKey } from "./counter_random.ts";
import type { DType, Scalar } from "./dtype.ts";
import type { Tensor } from "./tensor.ts";

/** Arithmetic kinds of {@linkcode Kernels.binary}. */
export type BinaryKind =
  | "add"
  | "sub"
  | "mul"
  | "div"
  | "max"
  | "min"
  | "pow"
  | "mod"
  | "floordiv";

/** Comparison kinds of {@linkcode Kernels.compare}; all return bool. */
export type CompareKind =
  | "less_than"
  | "less_equal"
  | "greater_than"
  | "greater_equal"
  | "equal"
  | "not_equal";

/** Kinds of {@linkcode Kernels.logical}. */
export type LogicalKind = "and" | "or" | "xor";

/** Kinds of {@linkcode Kernels.unary}. */
export type UnaryKind =
  | "relu"
  | "sigmoid"
  | "tanh"
  | "exp"
  | "log"
  | "sqrt"
  | "abs"
  | "square"
  | "sin"
  | "cos"
  | "floor"
  | "ceil"
  | "round"
  | "reciprocal";

/** Kinds of {@linkcode Kernels.reduce}. */
export type ReduceKind = "sum" | "mean" | "max" | "min" | "prod";

/**
 * Every binary kind.
 *
 * @example Usage
 * ```ts
 * import { BINARY_KINDS } from "./device.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(BINARY_KINDS.includes("floordiv"), true);
 * ```
 */
export const BINARY_KINDS: readonly BinaryKind[] = [
  "add",
  "sub",
  "mul",
  "div",
  "max",
  "min",
  "pow",
  "mod",
  "floordiv",
];

/**
 * Every comparison kind.
 *
 * @example Usage
 * ```ts
 * import { COMPARE_KINDS } from "./device.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(COMPARE_KINDS.length, 6);
 * ```
 */
export const COMPARE_KINDS: readonly CompareKind[] = [
  "less_than",
  "less_equal",
  "greater_than",
  "greater_equal",
  "equal",
  "not_equal",
];

/**
 * Every logical kind.
 *
 * @example Usage
 * ```ts
 * import { LOGICAL_KINDS } from "./device.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(LOGICAL_KINDS, ["and", "or", "xor"]);
 * ```
 */
export const LOGICAL_KINDS: readonly LogicalKind[] = ["and", "or", "xor"];

/**
 * Every unary kind.
 *
 * @example Usage
 * ```ts
 * import { UNARY_KINDS } from "./device.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(UNARY_KINDS.includes("reciprocal"), true);
 * ```
 */
export const UNARY_KINDS: readonly UnaryKind[] = [
  "relu",
  "sigmoid",
  "tanh",
  "exp",
  "log",
  "sqrt",
  "abs",
  "square",
  "sin",
  "cos",
  "floor",
  "ceil",
  "round",
  "reciprocal",
];

/**
 * Every reduction kind.
 *
 * @example Usage
 * ```ts
 * import { REDUCE_KINDS } from "./device.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(REDUCE_KINDS, ["sum", "mean", "max", "min", "prod"]);
 * ```
 */
export const REDUCE_KINDS: readonly ReduceKind[] = [
  "sum",
  "mean",
  "max",
  "min",
  "prod",
];

/**
 * Kinds of {@linkcode Kernels.activation}: Paddle's parameterized
 * activations (`gelu_tanh` is gelu with `approximate`).
 */
export type ActivationKind =
  | "gelu"
  | "gelu_tanh"
  | "swish"
  | "hard_swish"
  | "hard_sigmoid"
  | "leaky_relu"
  | "relu6"
  | "elu"
  | "clip"
  | "thresholded_relu";

/**
 * The parameters each activation kind takes, in the order
 * {@linkcode Kernels.activation} reads them: Paddle's attribute names.
 *
 * @example Usage
 * ```ts
 * import { ACTIVATION_PARAMS } from "./device.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(ACTIVATION_PARAMS.hard_swish, ["threshold", "scale", "offset"]);
 * assertEquals(ACTIVATION_PARAMS.gelu, []);
 * ```
 */
export const ACTIVATION_PARAMS: Readonly<
  Record<ActivationKind, readonly string[]>
> = {
  gelu: [],
  gelu_tanh: [],
  swish: ["beta"],
  hard_swish: ["threshold", "scale", "offset"],
  hard_sigmoid: ["slope", "offset"],
  leaky_relu: ["alpha"],
  relu6: ["threshold"],
  elu: ["alpha"],
  clip: ["min", "max"],
  thresholded_relu: ["threshold", "value"],
};

/**
 * Every activation kind.
 *
 * @example Usage
 * ```ts
 * import { ACTIVATION_KINDS } from "./device.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(ACTIVATION_KINDS.includes("gelu_tanh"), true);
 * ```
 */
export const ACTIVATION_KINDS: readonly ActivationKind[] = Object.keys(
  ACTIVATION_PARAMS,
) as ActivationKind[];

/** Options of {@linkcode Kernels.reduce}. */
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

/** Options of {@linkcode Kernels.mul2d}. */
export interface Mul2dKernelOptions {
  /**
   * Computes the large float32 products.
   *
   * @default {the WASM SIMD kernel, one thread}
   */
  readonly gemmFloat32?: Float32Gemm;
}

/** Options of {@linkcode Kernels.matmul}. */
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
 */
export type SplitKernelOptions = { readonly num: number } | {
  readonly sections: readonly number[];
};

/** Kinds of {@linkcode Kernels.pool2d}. */
export type PoolKind = "max" | "avg";

/**
 * Every pooling kind.
 *
 * @example Usage
 * ```ts
 * import { POOL_KINDS } from "./device.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(POOL_KINDS, ["max", "avg"]);
 * ```
 */
export const POOL_KINDS: readonly PoolKind[] = ["max", "avg"];

/**
 * The window geometry of {@linkcode Kernels.conv2d} and
 * {@linkcode Kernels.pool2d}, already resolved: explicit paddings on all
 * four sides (a padding algorithm or two-value paddings are the op's to
 * resolve).
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

/** Options of {@linkcode Kernels.conv2d}. */
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

/** Options of {@linkcode Kernels.conv2dTranspose}. */
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

/** Options of {@linkcode Kernels.pool2d}. */
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

/** Options of {@linkcode Kernels.batchNorm}. */
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

/** The cells of {@linkcode Kernels.rnn}: Paddle's `rnn` modes. */
export type RnnMode = "LSTM" | "GRU" | "RNN_TANH" | "RNN_RELU";

/** Options of {@linkcode Kernels.rnn}. */
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

/** Options of the normalizations that compute their own statistics. */
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

/** Options of {@linkcode Kernels.layerNorm}. */
export interface LayerNormKernelOptions extends NormKernelOptions {
  /**
   * The first normalized dim: each row of X flattened to
   * `[prod(dims before it), prod(the rest)]` is normalized.
   *
   * @default {1}
   */
  readonly beginNormAxis?: number;
}

/** Options of {@linkcode Kernels.groupNorm}. */
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

/**
 * Every kernel, by name. Shapes broadcast as NumPy; an `axis` of -1 is
 * NumPy's rule and `axis >= 0` is Fluid's (see kernels/broadcast.ts).
 */
export interface Kernels {
  /** Elementwise arithmetic; mixed dtypes promote (see `promoteTypes`). */
  readonly binary: (
    kind: BinaryKind,
    x: Tensor,
    y: Tensor,
    axis?: number,
  ) => Tensor;
  /** Elementwise comparison, computed in the promoted dtype; returns bool. */
  readonly compare: (
    kind: CompareKind,
    x: Tensor,
    y: Tensor,
    axis?: number,
  ) => Tensor;
  /** Elementwise logic on truthiness (nonzero is true); returns bool. */
  readonly logical: (kind: LogicalKind, x: Tensor, y: Tensor) => Tensor;
  /** Elementwise negation of truthiness; returns bool. */
  readonly logicalNot: (x: Tensor) => Tensor;
  /** Elementwise math functions. */
  readonly unary: (kind: UnaryKind, x: Tensor) => Tensor;
  /** `x * scale + bias`, or `(x + bias) * scale`. */
  readonly scale: (
    x: Tensor,
    scale: number,
    bias?: number,
    biasAfterScale?: boolean,
  ) => Tensor;
  /** Converts to another dtype as C casts do. */
  readonly cast: (x: Tensor, dtype: DType) => Tensor;
  /** Reduces dims with sum, mean, max, min or prod. */
  readonly reduce: (
    kind: ReduceKind,
    x: Tensor,
    options?: ReduceKernelOptions,
  ) => Tensor;
  /** Softmax along one axis. */
  readonly softmax: (x: Tensor, axis?: number) => Tensor;
  /** Elementwise sum of same-shape tensors (the `sum` op). */
  readonly addN: (xs: readonly Tensor[]) => Tensor;
  /** The mean of all elements, shape `[1]`. */
  readonly mean: (x: Tensor) => Tensor;
  /** Fluid's `mul`: both operands flattened to matrices, then multiplied. */
  readonly mul2d: (
    x: Tensor,
    y: Tensor,
    xNumColDims?: number,
    yNumColDims?: number,
    options?: Mul2dKernelOptions,
  ) => Tensor;
  /** Batched matrix product with broadcast batch dims. */
  readonly matmul: (
    x: Tensor,
    y: Tensor,
    options?: MatmulKernelOptions,
  ) => Tensor;
  /** Same data, new dims (-1 infers one dim, 0 copies X's). */
  readonly reshape: (x: Tensor, shape: readonly number[]) => Tensor;
  /** Permutes dims. */
  readonly transpose: (x: Tensor, axes: readonly number[]) => Tensor;
  /** Joins tensors along an existing axis. */
  readonly concat: (xs: readonly Tensor[], axis?: number) => Tensor;
  /** Joins tensors along a new axis. */
  readonly stack: (xs: readonly Tensor[], axis?: number) => Tensor;
  /** Cuts a tensor into parts along an axis. */
  readonly split: (
    x: Tensor,
    axis: number,
    options: SplitKernelOptions,
  ) => Tensor[];
  /** Cuts a tensor into `num` parts whose sizes differ by at most 1. */
  readonly splitNearEqual: (x: Tensor, num: number, axis?: number) => Tensor[];
  /** A box of X; starts and ends clamp as Python slices do. */
  readonly slice: (
    x: Tensor,
    axes: readonly number[],
    starts: readonly number[],
    ends: readonly number[],
  ) => Tensor;
  /** Picks slices of X along an axis by index. */
  readonly gather: (x: Tensor, index: Tensor, axis?: number) => Tensor;
  /** A tensor with every element `value`. */
  readonly fill: (
    shape: readonly number[],
    dtype: DType,
    value: Scalar,
  ) => Tensor;
  /** `[start, start + step, ...)` up to `end`. */
  readonly range: (
    start: number | bigint,
    end: number | bigint,
    step: number | bigint,
    dtype: DType,
  ) => Tensor;
  /**
   * Uniform samples in `[min, max)`; element i is drawn from the
   * counter-based generator at `key` and position i, so every device gives
   * the same values (float32: the same bits).
   */
  readonly uniformRandom: (
    shape: readonly number[],
    dtype: DType,
    min: number,
    max: number,
    key: CounterKey,
  ) => Tensor;
  /**
   * Normal samples (Box–Muller on pairs of positions) from the
   * counter-based generator at `key`; devices agree within the tolerance
   * table's `gaussian_random` entry.
   */
  readonly gaussianRandom: (
    shape: readonly number[],
    dtype: DType,
    mean: number,
    std: number,
    key: CounterKey,
  ) => Tensor;
  /**
   * 2-D convolution (Paddle's conv2d and depthwise_conv2d): X
   * `[N, C, H, W]` (NHWC with `channelLast`) and a filter
   * `[Cout, C / groups, KH, KW]` give `[N, Cout, OH, OW]` (or NHWC), where
   * `OH = floor((H + top + bottom − dilation·(KH − 1) − 1) / stride) + 1`.
   */
  readonly conv2d: (
    x: Tensor,
    filter: Tensor,
    options?: Conv2dKernelOptions,
  ) => Tensor;
  /**
   * The transposed convolution (conv2d's gradient with respect to its
   * input): X `[N, C, H, W]` and a filter `[C, Cout / groups, KH, KW]`.
   */
  readonly conv2dTranspose: (
    x: Tensor,
    filter: Tensor,
    options?: Conv2dTransposeKernelOptions,
  ) => Tensor;
  /** Max or average over windows of X's last two (NHWC: middle two) dims. */
  readonly pool2d: (
    kind: PoolKind,
    x: Tensor,
    options: Pool2dKernelOptions,
  ) => Tensor;
  /**
   * Batch normalization with given statistics:
   * `(x − mean) / sqrt(variance + epsilon) · scale + bias` per channel.
   */
  readonly batchNorm: (x: Tensor, options: BatchNormKernelOptions) => Tensor;
  /**
   * Layer normalization: `[Y, Mean, Variance]`, the statistics one per
   * normalized row (the variance is the biased one).
   */
  readonly layerNorm: (x: Tensor, options?: LayerNormKernelOptions) => Tensor[];
  /**
   * Instance normalization of `[N, C, ...]`: `[Y, SavedMean,
   * SavedVariance]`, the statistics `[N·C]`, the second as
   * `1 / sqrt(variance + epsilon)`.
   */
  readonly instanceNorm: (x: Tensor, options?: NormKernelOptions) => Tensor[];
  /**
   * Group normalization: `[Y, Mean, Variance]`, the statistics
   * `[N, groups]` (the variance is the biased one).
   */
  readonly groupNorm: (x: Tensor, options: GroupNormKernelOptions) => Tensor[];
  /**
   * A multi-layer LSTM, GRU or simple RNN over time-major X `[T, B, I]`
   * (Paddle's `rnn` at inference, layout as runtime/ops/rnn.ts states):
   * `[Out, ...State]`, Out `[T, B, D·H]` and each state like its
   * PreState `[L·D, B, H]`. Precondition: the shapes fit the options.
   */
  readonly rnn: (
    x: Tensor,
    preStates: readonly Tensor[],
    weights: readonly Tensor[],
    options: RnnKernelOptions,
  ) => Tensor[];
  /**
   * Paddle's parameterized activations, elementwise; `params` as
   * `ACTIVATION_PARAMS` lists them. Float inputs keep their dtype; others
   * compute as float32.
   */
  readonly activation: (
    kind: ActivationKind,
    x: Tensor,
    params?: readonly number[],
  ) => Tensor;
  /** X repeated to a larger shape, NumPy's `broadcast_to`. */
  readonly broadcastTo: (x: Tensor, shape: readonly number[]) => Tensor;
  /** The position of the first largest element along an axis, dropped. */
  readonly argMax: (x: Tensor, axis: number, dtype: DType) => Tensor;
  /** The k largest (or smallest) elements along an axis, and positions. */
  readonly topK: (
    x: Tensor,
    k: number,
    axis?: number,
    largest?: boolean,
  ) => Tensor[];
  /** One-hot rows of `depth` for integer positions, as a new last dim. */
  readonly oneHot: (
    x: Tensor,
    depth: number,
    dtype: DType,
    allowOutOfRange?: boolean,
  ) => Tensor;
}

/**
 * A place kernels run: a name for logs and errors, and its kernel table.
 *
 * @example Usage
 * ```ts
 * import type { Device } from "./device.ts";
 * import { cpuDevice } from "./cpu/device.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const device: Device = cpuDevice;
 * const x = Tensor.fromArray([1, 2], "float32");
 * assertEquals(device.kernels.binary("add", x, x, -1).toNested(), [2, 4]);
 * ```
 */
export interface Device {
  /** A short name: `cpu`, `webgpu`. */
  readonly name: string;
  /** The kernels this device runs. */
  readonly kernels: Kernels;
}
