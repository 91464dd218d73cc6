// The device: a place kernels run, and the catalog of every tensor kernel it
// offers, by name and signature (Kernels). The kinds the table-driven kernels
// take are in kernels/kernel_kinds.ts, the kernels' option bags in
// kernels/kernel_options.ts.
//
// Invariants: a device implements all of Kernels. The CPU device
// (kernels/cpu/device.ts) is the reference; a GPU device implements the
// entries it can and takes the CPU's function for the rest, so a fallback is
// a table entry, not a branch.

import type { CounterKey } from "./counter_random.ts";
import type { DType, Scalar } from "./dtype.ts";
import type {
  ActivationKind,
  BinaryKind,
  CompareKind,
  LogicalKind,
  PoolKind,
  ReduceKind,
  UnaryKind,
} from "./kernel_kinds.ts";
import type {
  BatchNormKernelOptions,
  Conv2dKernelOptions,
  Conv2dTransposeKernelOptions,
  GroupNormKernelOptions,
  LayerNormKernelOptions,
  MatmulKernelOptions,
  Mul2dKernelOptions,
  NormKernelOptions,
  Pool2dKernelOptions,
  ReduceKernelOptions,
  RnnKernelOptions,
  SplitKernelOptions,
} from "./kernel_options.ts";
import type { Tensor } from "./tensor.ts";

/**
 * Every kernel, by name. Shapes broadcast as NumPy; an `axis` of -1 is
 * NumPy's rule and `axis >= 0` is Fluid's (see kernels/broadcast.ts).
 *
 * @example Usage
 * ```ts
 * import type { Kernels } from "./device.ts";
 * import { cpuDevice } from "./cpu/device.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const kernels: Kernels = cpuDevice.kernels;
 * const x = Tensor.fromArray([[1, 2], [3, 4]], "float32");
 * assertEquals(kernels.transpose(x, [1, 0]).toNested(), [[1, 3], [2, 4]]);
 * ```
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
