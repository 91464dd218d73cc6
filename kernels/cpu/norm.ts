// Normalizations on the CPU: batch normalization with given statistics,
// and layer, instance and group normalization, which compute their own.
//
// Everything is float64 inside: each statistic is a two-pass mean and
// biased variance (the mean, then the mean of squared deviations), and
// each result element `(x − mean) / sqrt(variance + epsilon) · scale +
// bias` is rounded once to X's dtype. Statistics come out in X's dtype,
// float32 for float16 X (as Paddle keeps them).

import { allocate } from "../allocate.ts";
import { formatShape, shapeSize } from "../_shape.ts";
import {
  groupNormGroups,
  instanceNormPlanes,
  layerNormRows,
} from "../norm_geometry.ts";
import type {
  BatchNormKernelOptions,
  GroupNormKernelOptions,
  LayerNormKernelOptions,
  NormKernelOptions,
} from "../kernel_options.ts";
import { type DType, isFloatDType } from "../dtype.ts";
import { Tensor } from "../tensor.ts";

type Floats = { [index: number]: number; readonly length: number };

/**
 * Batch normalization with given statistics, per channel c (dim 1, or the
 * last dim with `channelLast`; a rank-2 X has its channel last either
 * way): `(x − mean[c]) / sqrt(variance[c] + epsilon) · scale[c] + bias[c]`.
 *
 * @param x The input, of a float dtype, rank >= 2.
 * @param options The statistics, scale and bias (C elements each, any
 * float dtype), epsilon and the layout.
 * @returns The result, of X's dtype.
 * @throws {RangeError} If X's rank is below 2 or a parameter does not have
 * one element per channel.
 * @throws {TypeError} If X is not of a float dtype.
 *
 * @example Usage
 * ```ts
 * import { batchNorm } from "./norm.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([[1, 10], [3, 30]], "float32"); // [N, C]
 * const y = batchNorm(x, {
 *   mean: Tensor.fromArray([2, 20], "float32"),
 *   variance: Tensor.fromArray([4, 100], "float32"),
 *   epsilon: 0,
 * });
 * assertEquals(y.toNested(), [[-0.5, -1], [0.5, 1]]);
 * ```
 */
export function batchNorm(x: Tensor, options: BatchNormKernelOptions): Tensor {
  checkFloat("batch_norm", x);
  if (x.shape.length < 2) {
    throw new RangeError(
      `batch_norm: input ${formatShape(x.shape)} has rank below 2`,
    );
  }
  const last = options.channelLast === true || x.shape.length === 2;
  const c = x.shape[last ? x.shape.length - 1 : 1];
  const inner = last ? 1 : shapeSize(x.shape.slice(2));
  const eps = options.epsilon ?? 1e-5;
  const mean = perChannel("batch_norm", "mean", options.mean, x, c);
  const variance = perChannel("batch_norm", "variance", options.variance, x, c);
  const scale = perChannel("batch_norm", "scale", options.scale, x, c, 1);
  const bias = perChannel("batch_norm", "bias", options.bias, x, c, 0);
  const factor = new Float64Array(c);
  for (let k = 0; k < c; k++) {
    factor[k] = scale[k] / Math.sqrt(variance[k] + eps);
  }
  const xs = x.data as Floats;
  const out = allocate(x.dtype, x.size) as Floats;
  for (let i = 0; i < x.size;) {
    // One run of `inner` elements shares a channel.
    const k = Math.floor(i / inner) % c;
    const m = mean[k], f = factor[k], b = bias[k];
    for (const end = i + inner; i < end; i++) out[i] = (xs[i] - m) * f + b;
  }
  return new Tensor(x.dtype, x.shape, out as never);
}

/**
 * Layer normalization: X flattened to `[left, right]` at `beginNormAxis`,
 * each row normalized by its own mean and biased variance, then
 * `· scale[j] + bias[j]` for the row's element j.
 *
 * @param x The input, of a float dtype.
 * @param options Scale and bias (`right` elements each), epsilon, the
 * first normalized dim.
 * @returns `[Y, Mean, Variance]`: Y of X's shape, the statistics
 * `[left]`.
 * @throws {RangeError} If `beginNormAxis` is outside `[0, rank)` or the
 * scale or bias has the wrong size.
 * @throws {TypeError} If X is not of a float dtype.
 *
 * @example Usage
 * ```ts
 * import { layerNorm } from "./norm.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([[1, 3], [2, 6]], "float32");
 * const [y, mean, variance] = layerNorm(x, { epsilon: 0 });
 * assertEquals(y.toNested(), [[-1, 1], [-1, 1]]);
 * assertEquals([mean.toNested(), variance.toNested()], [[2, 4], [1, 4]]);
 * ```
 */
export function layerNorm(
  x: Tensor,
  options: LayerNormKernelOptions = {},
): Tensor[] {
  checkFloat("layer_norm", x);
  const { left, right } = layerNormRows(x.shape, options.beginNormAxis ?? 1);
  const scale = perRow("layer_norm", "scale", options.scale, x, right, 1);
  const bias = perRow("layer_norm", "bias", options.bias, x, right, 0);
  const stats = new NormStats(x, left, options.epsilon);
  const xs = x.data as Floats;
  const out = allocate(x.dtype, x.size) as Floats;
  for (let r = 0; r < left; r++) {
    const [m, inv] = stats.measure(xs, r * right, right, r);
    for (let j = 0, i = r * right; j < right; j++, i++) {
      out[i] = (xs[i] - m) * inv * scale[j] + bias[j];
    }
  }
  return [
    new Tensor(x.dtype, x.shape, out as never),
    ...stats.tensors([left], "variance"),
  ];
}

/**
 * Instance normalization of X `[N, C, ...]`: each (n, c) plane normalized
 * by its own mean and biased variance, then `· scale[c] + bias[c]`.
 *
 * @param x The input, of a float dtype, rank >= 2.
 * @param options Scale and bias (C elements each), epsilon.
 * @returns `[Y, SavedMean, SavedVariance]`: the statistics `[N·C]`, the
 * second as `1 / sqrt(variance + epsilon)`.
 * @throws {RangeError} If X's rank is below 2 or the scale or bias has the
 * wrong size.
 * @throws {TypeError} If X is not of a float dtype.
 *
 * @example Usage
 * ```ts
 * import { instanceNorm } from "./norm.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([[[0, 4]]], "float32"); // [1, 1, 2]
 * const [y, mean, inv] = instanceNorm(x, { epsilon: 0 });
 * assertEquals(y.toNested(), [[[-1, 1]]]);
 * assertEquals([mean.toNested(), inv.toNested()], [[2], [0.5]]);
 * ```
 */
export function instanceNorm(
  x: Tensor,
  options: NormKernelOptions = {},
): Tensor[] {
  checkFloat("instance_norm", x);
  const { n, c, plane } = instanceNormPlanes(x.shape);
  const scale = perChannel("instance_norm", "scale", options.scale, x, c, 1);
  const bias = perChannel("instance_norm", "bias", options.bias, x, c, 0);
  const stats = new NormStats(x, n * c, options.epsilon);
  const xs = x.data as Floats;
  const out = allocate(x.dtype, x.size) as Floats;
  for (let r = 0; r < n * c; r++) {
    const [m, inv] = stats.measure(xs, r * plane, plane, r);
    const s = scale[r % c] * inv, b = bias[r % c];
    for (let i = r * plane; i < (r + 1) * plane; i++) {
      out[i] = (xs[i] - m) * s + b;
    }
  }
  return [
    new Tensor(x.dtype, x.shape, out as never),
    ...stats.tensors([n * c], "inverse_std"),
  ];
}

/**
 * Group normalization: the C channels of each image cut into `groups`
 * groups, each group (its channels at every position) normalized by its
 * own mean and biased variance, then `· scale[c] + bias[c]`.
 *
 * @param x The input, of a float dtype, rank >= 2: `[N, C, ...]`, or
 * `[N, ..., C]` with `channelLast`.
 * @param options The group count, scale and bias (C elements each),
 * epsilon and the layout.
 * @returns `[Y, Mean, Variance]`: the statistics `[N, groups]`.
 * @throws {RangeError} If the groups do not divide C, X's rank is below 2,
 * or the scale or bias has the wrong size.
 * @throws {TypeError} If X is not of a float dtype.
 *
 * @example Usage
 * ```ts
 * import { groupNorm } from "./norm.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([[1, 3, 10, 30]], "float32"); // [1, 4]
 * const [y, mean] = groupNorm(x, { groups: 2, epsilon: 0 });
 * assertEquals(y.toNested(), [[-1, 1, -1, 1]]);
 * assertEquals(mean.toNested(), [[2, 20]]);
 * ```
 */
export function groupNorm(
  x: Tensor,
  options: GroupNormKernelOptions,
): Tensor[] {
  checkFloat("group_norm", x);
  const last = options.channelLast === true;
  const groups = options.groups;
  // width: channels per group; positions: elements per image and channel.
  const { n, c, width, positions } = groupNormGroups(x.shape, groups, last);
  const scale = perChannel("group_norm", "scale", options.scale, x, c, 1);
  const bias = perChannel("group_norm", "bias", options.bias, x, c, 0);
  const stats = new NormStats(x, n * groups, options.epsilon);
  const xs = x.data as Floats;
  const out = allocate(x.dtype, x.size) as Floats;
  if (!last) {
    // Group r is one contiguous run of width · positions elements.
    const len = width * positions;
    for (let r = 0; r < n * groups; r++) {
      const [m, inv] = stats.measure(xs, r * len, len, r);
      for (let k = 0; k < width; k++) {
        const ch = (r % groups) * width + k;
        const s = scale[ch] * inv, b = bias[ch];
        const start = r * len + k * positions;
        for (let i = start; i < start + positions; i++) {
          out[i] = (xs[i] - m) * s + b;
        }
      }
    }
  } else {
    // Group r of image b is `width` channels at each of `positions` rows.
    for (let r = 0; r < n * groups; r++) {
      const image = Math.floor(r / groups), c0 = (r % groups) * width;
      const at = (p: number) => (image * positions + p) * c + c0;
      const [m, inv] = stats.measureStrided(xs, at, positions, width, r);
      for (let p = 0; p < positions; p++) {
        for (let k = 0, i = at(p); k < width; k++, i++) {
          out[i] = (xs[i] - m) * scale[c0 + k] * inv + bias[c0 + k];
        }
      }
    }
  }
  return [
    new Tensor(x.dtype, x.shape, out as never),
    ...stats.tensors([n, groups], "variance"),
  ];
}

// The statistics of `count` groups of elements, kept as they are measured.
class NormStats {
  readonly #eps: number;
  readonly #dtype: DType;
  readonly #mean: Float64Array;
  readonly #variance: Float64Array;

  constructor(x: Tensor, count: number, epsilon = 1e-5) {
    this.#eps = epsilon;
    this.#dtype = x.dtype === "float16" ? "float32" : x.dtype;
    this.#mean = new Float64Array(count);
    this.#variance = new Float64Array(count);
  }

  // Mean and 1 / sqrt(variance + eps) of xs[start, start + len), stored as
  // group r's.
  measure(xs: Floats, start: number, len: number, r: number): [number, number] {
    let sum = 0;
    for (let i = start; i < start + len; i++) sum += xs[i];
    const mean = sum / len;
    let sq = 0;
    for (let i = start; i < start + len; i++) sq += (xs[i] - mean) ** 2;
    return this.#keep(r, mean, sq / len);
  }

  // The same over `rows` runs of `width` elements, run p at at(p).
  measureStrided(
    xs: Floats,
    at: (p: number) => number,
    rows: number,
    width: number,
    r: number,
  ): [number, number] {
    let sum = 0;
    for (let p = 0; p < rows; p++) {
      for (let k = 0, i = at(p); k < width; k++, i++) sum += xs[i];
    }
    const mean = sum / (rows * width);
    let sq = 0;
    for (let p = 0; p < rows; p++) {
      for (let k = 0, i = at(p); k < width; k++, i++) sq += (xs[i] - mean) ** 2;
    }
    return this.#keep(r, mean, sq / (rows * width));
  }

  #keep(r: number, mean: number, variance: number): [number, number] {
    this.#mean[r] = mean;
    this.#variance[r] = variance;
    return [mean, 1 / Math.sqrt(variance + this.#eps)];
  }

  // The mean and the variance (or 1 / sqrt(variance + eps)) as tensors.
  tensors(
    shape: readonly number[],
    second: "variance" | "inverse_std",
  ): [Tensor, Tensor] {
    const mean = allocate(this.#dtype, this.#mean.length) as Floats;
    const other = allocate(this.#dtype, this.#mean.length) as Floats;
    for (let r = 0; r < this.#mean.length; r++) {
      mean[r] = this.#mean[r];
      other[r] = second === "variance"
        ? this.#variance[r]
        : 1 / Math.sqrt(this.#variance[r] + this.#eps);
    }
    return [
      new Tensor(this.#dtype, shape, mean as never),
      new Tensor(this.#dtype, shape, other as never),
    ];
  }
}

function checkFloat(action: string, x: Tensor): void {
  if (!isFloatDType(x.dtype)) {
    throw new TypeError(`${action}: dtype "${x.dtype}" is not a float type`);
  }
}

// A parameter with one value per channel, as float64 (`fill` when absent).
function perChannel(
  action: string,
  name: string,
  t: Tensor | undefined,
  x: Tensor,
  c: number,
  fill = 0,
): Float64Array {
  return valuesOf(action, name, t, x, c, fill, "channel");
}

// A parameter with one value per element of a normalized row.
function perRow(
  action: string,
  name: string,
  t: Tensor | undefined,
  x: Tensor,
  size: number,
  fill: number,
): Float64Array {
  return valuesOf(action, name, t, x, size, fill, "normalized element");
}

function valuesOf(
  action: string,
  name: string,
  t: Tensor | undefined,
  x: Tensor,
  size: number,
  fill: number,
  per: string,
): Float64Array {
  if (t === undefined) return new Float64Array(size).fill(fill);
  if (t.size !== size) {
    throw new RangeError(
      `${action}: ${name} ${
        formatShape(t.shape)
      } does not have one element per ${per} of input ${
        formatShape(x.shape)
      } (${size})`,
    );
  }
  if (!isFloatDType(t.dtype)) {
    throw new TypeError(
      `${action}: ${name} dtype "${t.dtype}" is not a float type`,
    );
  }
  return Float64Array.from(t.data as Floats);
}
