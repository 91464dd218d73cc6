// float32 2-D pooling on the GPU, with the CPU kernel's windows, divisors
// and special values (kernels/cpu/pool.ts) and its geometry checks.
//
// One invocation per output element walks its window: a max keeps the
// largest value (NaN if the window holds one, −FLT_MAX for an empty
// window), an average sums in f32 and divides once by the CPU's divisor
// (NaN for 0 / 0). An average over the whole image (global pooling, or an
// adaptive 1×1 output) is the reduce kernel's mean over H and W instead,
// whose workgroup tree keeps a large sum accurate.
//
// Invariants:
//   A max is exact (the same values are compared). An average agrees with
//   the CPU's float64 sum within TOLERANCE.pool2d_avg: an f32 sum of n
//   terms is within n·2^-24·Σ|x| of the exact one, and windows of more
//   than MAX_WINDOW taps that are not the whole image stay on the CPU
//   (poolFitsGpu), so n·2^-24 <= 2^-14.

import { poolGeometry, type WindowGeometry } from "../conv_geometry.ts";
import type { PoolKind } from "../kernel_kinds.ts";
import type { Pool2dKernelOptions } from "../kernel_options.ts";
import type { GpuBatch } from "./gpu_batch.ts";
import type { GpuTensor } from "./gpu_tensor.ts";
import { reduce } from "./reduce.ts";
import { transpose } from "./shape.ts";

/**
 * The most taps a window the GPU kernel walks may have: f32 sums of more
 * terms could leave the bound on the `pool2d` entry of GPU_KERNELS.
 *
 * @example Usage
 * ```ts
 * import { MAX_WINDOW } from "./pool.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(MAX_WINDOW * 2 ** -24, 2 ** -14);
 * ```
 */
export const MAX_WINDOW = 1024;

const WORKGROUP = 64;
const MAX_WORKGROUPS = 65535;

/**
 * Whether a pooling call's windows suit the GPU kernel: whole-image
 * averages, or windows of at most {@linkcode MAX_WINDOW} taps.
 *
 * @param kind `max` or `avg`.
 * @param shape X's dims.
 * @param options The window, resolved.
 * @returns Whether the GPU takes the call.
 *
 * @example Usage
 * ```ts
 * import { poolFitsGpu } from "./pool.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(poolFitsGpu("max", [1, 8, 64, 64], { ksize: [3, 3] }), true);
 * assertEquals(poolFitsGpu("avg", [1, 8, 64, 64], { ksize: [1, 1], adaptive: true }), true);
 * assertEquals(poolFitsGpu("max", [1, 8, 64, 64], { ksize: [1, 1], adaptive: true }), false);
 * ```
 */
export function poolFitsGpu(
  kind: PoolKind,
  shape: readonly number[],
  options: Pool2dKernelOptions,
): boolean {
  if (shape.length !== 4 || options.ksize.length !== 2) return false;
  const [h, w] = options.channelLast === true
    ? [shape[1], shape[2]]
    : [shape[2], shape[3]];
  if (kind === "avg" && wholeImage(h, w, options)) return true;
  const [kh, kw] = options.adaptive === true
    ? [Math.ceil(h / options.ksize[0]) + 1, Math.ceil(w / options.ksize[1]) + 1]
    : options.ksize;
  return kh * kw <= MAX_WINDOW;
}

// Whether the one output window is the whole image, unpadded.
function wholeImage(
  h: number,
  w: number,
  options: Pool2dKernelOptions,
): boolean {
  const [kh, kw] = options.ksize;
  if (options.adaptive === true) return kh === 1 && kw === 1;
  const p = options.paddings ?? [0, 0, 0, 0];
  return kh === h && kw === w && p.every((v) => v === 0);
}

/**
 * Max or average pooling of a float32 tensor on the GPU, with the CPU
 * kernel's rules (kernels/cpu/pool.ts).
 *
 * @param batch Where the dispatches go.
 * @param kind `max` or `avg`.
 * @param x The input, float32, rank 4.
 * @param options The window, resolved.
 * @returns A new GPU tensor of the result.
 * @throws {RangeError} If the window does not fit the padded input (the
 * CPU's message).
 * @throws {TypeError} If X is not float32.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { pool2d } from "./pool.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([[[[1, 2, 3, 4], [5, 6, 7, 8]]]], "float32"));
 *   const [y] = await batch.read([pool2d(batch, "max", x, { ksize: [2, 2], strides: [2, 2] })]);
 *   assertEquals(y.toNested(), [[[[6, 8]]]]);
 *   gpu.destroy();
 * }
 * ```
 */
export function pool2d(
  batch: GpuBatch,
  kind: PoolKind,
  x: GpuTensor,
  options: Pool2dKernelOptions,
): GpuTensor {
  const g = poolGeometry(x, options);
  if (x.dtype !== "float32") {
    throw new TypeError(`pool2d: the GPU kernel takes float32, got ${x.dtype}`);
  }
  if (g.channelLast) {
    const nchw = transpose(batch, x, [0, 3, 1, 2]);
    const y = pool2d(batch, kind, nchw, { ...options, channelLast: false });
    if (nchw !== x) nchw.release();
    const out = transpose(batch, y, [0, 2, 3, 1]);
    if (out !== y) y.release();
    return out;
  }
  if (kind === "avg" && wholeImage(g.h, g.w, options) && x.size > 0) {
    return reduce(batch, "mean", x, { dims: [2, 3], keepDim: true });
  }
  const out = batch.allocate("float32", [g.n, g.c, g.oh, g.ow]);
  if (out.size === 0) return out;
  const adaptive = options.adaptive === true;
  const exclusive = options.exclusive ?? true;
  const pipeline = batch.pipelines.get(
    { op: "pool2d", dtype: "float32", variant: kind },
    () => poolWgsl(kind),
  );
  batch.dispatch({
    pipeline,
    buffers: [x.buffer, out.buffer],
    params: poolParams(g, out.size, adaptive, exclusive || adaptive),
    workgroups: [
      Math.max(1, Math.min(MAX_WORKGROUPS, Math.ceil(out.size / WORKGROUP))),
    ],
  });
  return out;
}

function poolParams(
  g: WindowGeometry,
  size: number,
  adaptive: boolean,
  clipped: boolean,
): Uint32Array {
  return new Uint32Array([
    size,
    g.h,
    g.w,
    g.oh,
    g.ow,
    g.kh,
    g.kw,
    g.sh,
    g.sw,
    g.pt,
    g.pl,
    adaptive ? 1 : 0,
    clipped ? 1 : 0,
  ]);
}

// Output element e = (plane·OH + i)·OW + j. p: size, H, W, OH, OW, KH, KW,
// sh, sw, pt, pl, adaptive, clipped divisor (exclusive or adaptive).
function poolWgsl(kind: PoolKind): string {
  const start = kind === "max" ? "bitcast<f32>(0xff7fffffu)" : "0.0";
  const step = kind === "max"
    ? "if ((bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u) { nan = true; } else if (v > acc) { acc = v; }"
    : "acc = acc + v;";
  const result = kind === "max"
    ? "select(acc, bitcast<f32>(0x7fc00000u), nan)"
    : "select(acc / f32(divisor), bitcast<f32>(0x7fc00000u), divisor == 0)";
  return `
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read> X: array<f32>;
@group(0) @binding(2) var<storage, read_write> O: array<f32>;
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nw: vec3<u32>) {
  let size = p[0]; let H = i32(p[1]); let W = i32(p[2]);
  let OH = p[3]; let OW = p[4]; let KH = i32(p[5]); let KW = i32(p[6]);
  let sh = i32(p[7]); let sw = i32(p[8]); let pt = i32(p[9]); let pl = i32(p[10]);
  let adaptive = p[11] == 1u; let clipped = p[12] == 1u;
  for (var e = gid.x; e < size; e += nw.x * ${WORKGROUP}u) {
    let j = e % OW;
    let i = (e / OW) % OH;
    let plane = i32(e / (OW * OH)) * H * W;
    var y0: i32; var y1: i32; var x0: i32; var x1: i32;
    var padded = 0;
    if (adaptive) {
      y0 = i32((i * u32(H)) / OH);
      y1 = i32(((i + 1u) * u32(H) + OH - 1u) / OH);
      x0 = i32((j * u32(W)) / OW);
      x1 = i32(((j + 1u) * u32(W) + OW - 1u) / OW);
    } else {
      let ys = i32(i) * sh - pt; let ye = min(ys + KH, H + pt);
      let xs = i32(j) * sw - pl; let xe = min(xs + KW, W + pl);
      padded = (ye - ys) * (xe - xs);
      y0 = max(ys, 0); y1 = max(y0, min(ye, H));
      x0 = max(xs, 0); x1 = max(x0, min(xe, W));
    }
    var acc = ${start};
    var nan = false;
    for (var y = y0; y < y1; y++) {
      let row = plane + y * W;
      for (var x = x0; x < x1; x++) {
        let v = X[row + x];
        ${step}
      }
    }
    let divisor = select(padded, (y1 - y0) * (x1 - x0), clipped);
    O[e] = ${result};
  }
}`;
}
