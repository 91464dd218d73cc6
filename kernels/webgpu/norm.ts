// float32 layer, instance and group normalization on the GPU: one kernel
// family that measures each group's mean and biased variance and then
// writes `(x − mean) · 1/sqrt(variance + epsilon) · scale + bias` for the
// group's elements, with the CPU's shapes, statistics outputs and
// defaults (kernels/cpu/norm.ts).
//
// Invariants:
//   One workgroup of WORKGROUP invocations per group, all in one dispatch:
//   each invocation sums a strided share of the group, a tree in
//   workgroup memory folds the shares (the mean), the same again for the
//   squared deviations from that mean (the variance, two passes as on the
//   CPU), then the workgroup writes the group's results. Many short
//   groups (at most EACH_MAX_LEN elements, at least EACH_MIN_GROUPS of
//   them) take one invocation each instead, summing in sequence. The
//   order is fixed by the shape, so a result is reproducible.
//   Every op is a walk of `groups` groups of `len` elements, element k of
//   group r at (r / aMod)·aOuter + (r % aMod)·aInner + (k / aW)·aRow +
//   k % aW, with the scale and bias at (r % pMod)·pStride + (k / pDiv) % pW
//   (Layout below); layer and instance norm and NCHW group norm read
//   contiguous runs, NHWC group norm `width` channels at each position.
//   A group whose variance is not finite (a NaN or infinite x) gives NaN
//   results, as the CPU's float64 formula does; an empty group gives NaN
//   statistics and no results.
//   The bound against the CPU is argued at GPU_KERNELS.layerNorm.

import { formatShape } from "../_shape.ts";
import {
  groupNormGroups,
  instanceNormPlanes,
  layerNormRows,
} from "../norm_geometry.ts";
import type { GpuBatch } from "./gpu_batch.ts";
import type { GpuTensor } from "./gpu_tensor.ts";
import {
  NORM_WORKGROUP,
  normEachWgsl,
  normVec4Wgsl,
  normWgsl,
} from "./_norm_wgsl.ts";

const WORKGROUP = NORM_WORKGROUP;
const MAX_WORKGROUPS = 65535;
// Groups this short, this many, are walked one invocation each (a
// sequential f32 sum of at most 256 terms stays within 2^-16 of its
// magnitude, inside the bound of GPU_KERNELS.layerNorm).
const EACH_MAX_LEN = 256;
const EACH_MIN_GROUPS = 1024;

/** The scale, bias and epsilon of a normalization on the GPU. */
export interface GpuNormOptions {
  /**
   * The scale, float32, on the GPU.
   *
   * @default {ones}
   */
  readonly scale?: GpuTensor;
  /**
   * The shift, float32, on the GPU.
   *
   * @default {zeros}
   */
  readonly bias?: GpuTensor;
  /**
   * Added to each variance before its square root.
   *
   * @default {1e-5}
   */
  readonly epsilon?: number;
}

/** Options of {@linkcode layerNorm}. */
export interface GpuLayerNormOptions extends GpuNormOptions {
  /**
   * The first normalized dim.
   *
   * @default {1}
   */
  readonly beginNormAxis?: number;
}

/** Options of {@linkcode groupNorm}. */
export interface GpuGroupNormOptions extends GpuNormOptions {
  /** How many groups the channels are cut into. */
  readonly groups: number;
  /**
   * The channel is X's last dim rather than dim 1.
   *
   * @default {false}
   */
  readonly channelLast?: boolean;
}

// Where a group's elements and their scale and bias are (see the top).
interface Layout {
  readonly groups: number;
  readonly len: number;
  readonly at: readonly [number, number, number, number, number];
  readonly param: readonly [number, number, number, number];
  readonly paramSize: number;
}

/**
 * Layer normalization on the GPU: X flattened to `[left, right]` at
 * `beginNormAxis`, each row normalized, then `· scale[j] + bias[j]`.
 *
 * @param batch Where the dispatch goes.
 * @param x The input, float32.
 * @param options Scale and bias (`right` elements each), epsilon, the
 * first normalized dim.
 * @returns `[Y, Mean, Variance]`, the statistics `[left]`.
 * @throws {RangeError} If `beginNormAxis` is outside `[0, rank)` or the
 * scale or bias has the wrong size.
 * @throws {TypeError} If X is not float32.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { layerNorm } from "./norm.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([[1, 3], [2, 6]], "float32"));
 *   const [y, mean] = await batch.read(layerNorm(batch, x, { epsilon: 0 }));
 *   assertEquals([y.toNested(), mean.toNested()], [[[-1, 1], [-1, 1]], [2, 4]]);
 *   gpu.destroy();
 * }
 * ```
 */
export function layerNorm(
  batch: GpuBatch,
  x: GpuTensor,
  options: GpuLayerNormOptions = {},
): GpuTensor[] {
  checkFloat32("layer_norm", x);
  const { left, right } = layerNormRows(x.shape, options.beginNormAxis ?? 1);
  const layout: Layout = {
    groups: left,
    len: right,
    at: [1, right, 0, Math.max(right, 1), 0],
    param: [1, 0, 1, Math.max(right, 1)],
    paramSize: right,
  };
  return normalize(batch, "layer_norm", x, options, layout, [left], false);
}

/**
 * Instance normalization on the GPU of X `[N, C, ...]`: each (n, c) plane
 * normalized, then `· scale[c] + bias[c]`.
 *
 * @param batch Where the dispatch goes.
 * @param x The input, float32, rank >= 2.
 * @param options Scale and bias (C elements each), epsilon.
 * @returns `[Y, SavedMean, SavedVariance]`: the statistics `[N·C]`, the
 * second as `1 / sqrt(variance + epsilon)`.
 * @throws {RangeError} If X's rank is below 2 or the scale or bias has the
 * wrong size.
 * @throws {TypeError} If X is not float32.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { instanceNorm } from "./norm.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([[[0, 4]]], "float32"));
 *   const [y, , inv] = await batch.read(instanceNorm(batch, x, { epsilon: 0 }));
 *   assertEquals([y.toNested(), inv.toNested()], [[[[-1, 1]]], [0.5]]);
 *   gpu.destroy();
 * }
 * ```
 */
export function instanceNorm(
  batch: GpuBatch,
  x: GpuTensor,
  options: GpuNormOptions = {},
): GpuTensor[] {
  checkFloat32("instance_norm", x);
  const { n, c, plane } = instanceNormPlanes(x.shape);
  const layout: Layout = {
    groups: n * c,
    len: plane,
    at: [1, plane, 0, Math.max(plane, 1), 0],
    param: [c, 1, Math.max(plane, 1), 1],
    paramSize: c,
  };
  return normalize(batch, "instance_norm", x, options, layout, [n * c], true);
}

/**
 * Group normalization on the GPU: the C channels of each image cut into
 * `groups` groups, each normalized, then `· scale[c] + bias[c]`.
 *
 * @param batch Where the dispatch goes.
 * @param x The input, float32, rank >= 2: `[N, C, ...]`, or `[N, ..., C]`
 * with `channelLast`.
 * @param options The group count, scale and bias (C elements each),
 * epsilon and the layout.
 * @returns `[Y, Mean, Variance]`: the statistics `[N, groups]`.
 * @throws {RangeError} If the groups do not divide C, X's rank is below 2,
 * or the scale or bias has the wrong size.
 * @throws {TypeError} If X is not float32.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { groupNorm } from "./norm.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([[1, 3, 10, 30]], "float32"));
 *   const [y, mean] = await batch.read(
 *     groupNorm(batch, x, { groups: 2, epsilon: 0 }),
 *   );
 *   assertEquals([y.toNested(), mean.toNested()], [[[-1, 1, -1, 1]], [[2, 20]]]);
 *   gpu.destroy();
 * }
 * ```
 */
export function groupNorm(
  batch: GpuBatch,
  x: GpuTensor,
  options: GpuGroupNormOptions,
): GpuTensor[] {
  checkFloat32("group_norm", x);
  const last = options.channelLast === true;
  const g = options.groups;
  const { n, c, width, positions } = groupNormGroups(x.shape, g, last);
  const len = width * positions;
  const layout: Layout = last
    ? {
      groups: n * g,
      len,
      at: [g, positions * c, width, width, c],
      param: [g, width, 1, width],
      paramSize: c,
    }
    : {
      groups: n * g,
      len,
      at: [1, len, 0, Math.max(len, 1), 0],
      param: [g, width, Math.max(positions, 1), width],
      paramSize: c,
    };
  return normalize(batch, "group_norm", x, options, layout, [n, g], false);
}

// Checks the parameters and records the one dispatch. `inverse`: the
// second statistic is 1 / sqrt(variance + epsilon) rather than the
// variance.
function normalize(
  batch: GpuBatch,
  op: string,
  x: GpuTensor,
  options: GpuNormOptions,
  layout: Layout,
  statShape: readonly number[],
  inverse: boolean,
): GpuTensor[] {
  const scale = checkParam(op, "scale", options.scale, x, layout.paramSize);
  const bias = checkParam(op, "bias", options.bias, x, layout.paramSize);
  const y = batch.allocate("float32", x.shape);
  const mean = batch.allocate("float32", statShape);
  const second = batch.allocate("float32", statShape);
  if (layout.groups === 0) return [y, mean, second];
  const eps = new Uint32Array(Float32Array.of(options.epsilon ?? 1e-5).buffer);
  const variant = variantOf(layout);
  const pipeline = batch.pipelines.get(
    { op: "norm", dtype: "float32", variant },
    variant === "strided"
      ? normWgsl
      : variant === "each"
      ? normEachWgsl
      : () => normVec4Wgsl(variant === "rows4"),
  );
  batch.dispatch({
    pipeline,
    buffers: [
      x.buffer,
      (scale ?? x).buffer,
      (bias ?? x).buffer,
      y.buffer,
      mean.buffer,
      second.buffer,
    ],
    params: new Uint32Array([
      layout.groups,
      layout.len,
      ...layout.at,
      ...layout.param,
      scale === undefined ? 0 : 1,
      bias === undefined ? 0 : 1,
      inverse ? 1 : 0,
      eps[0],
    ]),
    workgroups: variant === "each"
      ? grid(Math.ceil(layout.groups / WORKGROUP))
      : grid(layout.groups),
  });
  return [y, mean, second];
}

// Which kernel walks a layout: "each" gives each of many short groups one
// invocation (layer_norm [28672, 56]: 60–85 ms on llvmpipe where a
// workgroup per row, mostly idle, takes 140–200; a row of 768 is faster
// by workgroup, 30 ms against 60), "rows4" reads a contiguous group and its
// scale and bias as vec4s (layer norm, a row a multiple of 4), "planes4"
// reads a contiguous group as vec4s with one scale per 4 elements
// (instance norm and NCHW group norm, planes a multiple of 4), "strided"
// any layout an element at a time. On llvmpipe the vec4 walks take about
// a third of the strided one's time ([8, 64, 56, 56]).
function variantOf(
  layout: Layout,
): "each" | "rows4" | "planes4" | "strided" {
  if (layout.len <= EACH_MAX_LEN && layout.groups >= EACH_MIN_GROUPS) {
    return "each";
  }
  const [aMod, , aInner] = layout.at;
  const [, , pDiv, pW] = layout.param;
  if (aMod !== 1 || aInner !== 0 || layout.len % 4 !== 0) return "strided";
  if (pDiv === 1 && pW === layout.len) return "rows4";
  return pDiv % 4 === 0 ? "planes4" : "strided";
}

function checkFloat32(op: string, x: GpuTensor): void {
  if (x.dtype !== "float32") {
    throw new TypeError(`${op}: the GPU kernel takes float32, got ${x.dtype}`);
  }
}

function checkParam(
  op: string,
  name: string,
  t: GpuTensor | undefined,
  x: GpuTensor,
  size: number,
): GpuTensor | undefined {
  if (t === undefined) return undefined;
  if (t.dtype !== "float32") {
    throw new TypeError(`${op}: ${name} must be float32, got ${t.dtype}`);
  }
  if (t.size !== size) {
    throw new RangeError(
      `${op}: ${name} ${formatShape(t.shape)} does not have ${size} elements` +
        ` for input ${formatShape(x.shape)}`,
    );
  }
  return t;
}

function grid(count: number): [number, number] {
  const x = Math.min(count, MAX_WORKGROUPS);
  return [x, Math.ceil(count / x)];
}
