// float32 batch normalization with given statistics on the GPU, as an
// elementwise affine map per channel: y = x · A[c] + B[c], where
// A = scale / sqrt(variance + epsilon) and B = bias − mean · A are worked
// out on the host in float64 (C values each, from the small statistics
// tensors) and uploaded as float32 once per set of statistics and batch.
//
// Invariants:
//   The CPU computes (x − mean) · A + bias in float64 and rounds once. Here
//   A and B are rounded to f32, then the product and the sum (or one fused
//   multiply-add): four roundings of at most 2^-24 of |x·A| + |B| each, so
//   the results agree within TOLERANCE.batch_norm, 2^-22 · (|x·A| + |B|).
//   A NaN x gives NaN and an infinite x ±∞ (NaN where A is 0), as the
//   CPU's formula does for the finite statistics of a real model.

import { formatShape, shapeSize } from "../_shape.ts";
import type { BatchNormKernelOptions } from "../kernel_options.ts";
import { Tensor } from "../tensor.ts";
import type { GpuBatch } from "./gpu_batch.ts";
import type { GpuTensor } from "./gpu_tensor.ts";

const WORKGROUP = 64;
const MAX_WORKGROUPS = 65535;

/**
 * The per-channel factor and shift of batch normalization, in float64:
 * `[A, B]` with `A = scale / sqrt(variance + epsilon)` and
 * `B = bias − mean · A`, so that `y = x · A + B`.
 *
 * @param options The statistics, scale, bias and epsilon.
 * @param channels C.
 * @returns `A` and `B`, C values each.
 * @throws {RangeError} If a parameter does not have C elements.
 *
 * @example Usage
 * ```ts
 * import { affineOf } from "./batch_norm.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const [a, b] = affineOf({
 *   mean: Tensor.fromArray([2], "float32"),
 *   variance: Tensor.fromArray([4], "float32"),
 *   epsilon: 0,
 * }, 1);
 * assertEquals([a[0], b[0]], [0.5, -1]);
 * ```
 */
export function affineOf(
  options: BatchNormKernelOptions,
  channels: number,
): [Float64Array, Float64Array] {
  const read = (t: Tensor | undefined, fill: number, name: string) => {
    if (t === undefined) return new Float64Array(channels).fill(fill);
    if (t.size !== channels) {
      throw new RangeError(
        `batch_norm: ${name} ${
          formatShape(t.shape)
        } does not have one element per channel (${channels})`,
      );
    }
    return Float64Array.from(t.data as Float32Array);
  };
  const mean = read(options.mean, 0, "mean");
  const variance = read(options.variance, 1, "variance");
  const scale = read(options.scale, 1, "scale");
  const bias = read(options.bias, 0, "bias");
  const eps = options.epsilon ?? 1e-5;
  const a = new Float64Array(channels), b = new Float64Array(channels);
  for (let c = 0; c < channels; c++) {
    a[c] = scale[c] / Math.sqrt(variance[c] + eps);
    b[c] = bias[c] - mean[c] * a[c];
  }
  return [a, b];
}

/**
 * Batch normalization of a float32 tensor on the GPU, per channel (dim 1,
 * or the last dim with `channelLast`; a rank-2 X has its channel last).
 *
 * @param batch Where the dispatch goes.
 * @param x The input, float32, rank >= 2.
 * @param options The statistics, scale and bias (host tensors), epsilon
 * and the layout.
 * @returns A new GPU tensor of X's shape.
 * @throws {RangeError} If X's rank is below 2 or a parameter does not
 * have one element per channel.
 * @throws {TypeError} If X is not float32.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { batchNorm } from "./batch_norm.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([[1, 10], [3, 30]], "float32"));
 *   const y = batchNorm(batch, x, {
 *     mean: Tensor.fromArray([2, 20], "float32"),
 *     variance: Tensor.fromArray([4, 100], "float32"),
 *     epsilon: 0,
 *   });
 *   assertEquals((await batch.read([y]))[0].toNested(), [[-0.5, -1], [0.5, 1]]);
 *   gpu.destroy();
 * }
 * ```
 */
export function batchNorm(
  batch: GpuBatch,
  x: GpuTensor,
  options: BatchNormKernelOptions,
): GpuTensor {
  if (x.dtype !== "float32") {
    throw new TypeError(
      `batch_norm: the GPU kernel takes float32, got ${x.dtype}`,
    );
  }
  if (x.shape.length < 2) {
    throw new RangeError(
      `batch_norm: input ${formatShape(x.shape)} has rank below 2`,
    );
  }
  const last = options.channelLast === true || x.shape.length === 2;
  const c = x.shape[last ? x.shape.length - 1 : 1];
  const inner = last ? 1 : shapeSize(x.shape.slice(2));
  const out = batch.allocate("float32", x.shape);
  if (out.size === 0) return out;
  const affine = affineOnGpu(batch, options, c);
  const vec4 = inner % 4 === 0;
  const pipeline = batch.pipelines.get(
    { op: "batch_norm", dtype: "float32", variant: vec4 ? "vec4" : "scalar" },
    () => affineWgsl(vec4),
  );
  const count = vec4 ? x.size / 4 : x.size;
  batch.dispatch({
    pipeline,
    buffers: [x.buffer, affine.buffer, out.buffer],
    params: new Uint32Array([count, vec4 ? inner / 4 : inner, c]),
    workgroups: [
      Math.max(1, Math.min(MAX_WORKGROUPS, Math.ceil(count / WORKGROUP))),
    ],
  });
  return out;
}

// The factors and shifts on the GPU, made once per set of statistics (a
// model's parameters, which never change) and batch: a model run again
// uploads nothing for its batch norms. Keyed by the mean tensor; the
// other operands and epsilon must be the same ones.
const AFFINES = new WeakMap<GpuBatch, WeakMap<Tensor, Affine>>();

interface Affine {
  readonly options: BatchNormKernelOptions;
  readonly tensor: GpuTensor;
}

function affineOnGpu(
  batch: GpuBatch,
  options: BatchNormKernelOptions,
  c: number,
): GpuTensor {
  let cache = AFFINES.get(batch);
  if (cache === undefined) AFFINES.set(batch, cache = new WeakMap());
  const known = cache.get(options.mean);
  const o = known?.options;
  if (
    o !== undefined && o.variance === options.variance &&
    o.scale === options.scale && o.bias === options.bias &&
    o.epsilon === options.epsilon
  ) {
    return known!.tensor;
  }
  const [a, b] = affineOf(options, c);
  const params = new Float32Array(2 * c);
  params.set(a);
  params.set(b, c);
  const tensor = batch.upload(new Tensor("float32", [2 * c], params));
  // Dropped with the statistics: the buffer goes back to the pool then.
  cache.set(options.mean, { options: { ...options }, tensor });
  return tensor;
}

// Element (or vec4) e has channel (e / inner) % C; the factors are
// AB[0, C), the shifts AB[C, 2C). p: count, inner, C.
function affineWgsl(vec4: boolean): string {
  const t = vec4 ? "vec4<f32>" : "f32";
  return `
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read> X: array<${t}>;
@group(0) @binding(2) var<storage, read> AB: array<f32>;
@group(0) @binding(3) var<storage, read_write> Y: array<${t}>;
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nw: vec3<u32>) {
  let count = p[0]; let inner = p[1]; let C = p[2];
  for (var e = gid.x; e < count; e += nw.x * ${WORKGROUP}u) {
    let c = (e / inner) % C;
    Y[e] = X[e] * AB[c] + AB[C + c];
  }
}`;
}
