// float32 transposed 2-D convolution on the GPU, with the CPU kernel's
// semantics (kernels/cpu/conv.ts) and geometry checks
// (kernels/conv_geometry.ts): the adjoint of conv2d's im2col.
//
//   1. A matmul (_matmul_wgsl.ts through matmul.ts): the filter
//      [C, OC/G, KH, KW], viewed as [1, G, C/G, K] with K = OC/G·KH·KW and
//      transposed, times X viewed as [N, G, C/G, H·W], gives the columns
//      [N, G, K, H·W]: what each input position adds to each tap of each
//      result channel.
//   2. col2im as a gather: one invocation per result element
//      (n, o, y, x) adds the columns of the taps (a, b) that reach it,
//      those with y + top − a·dh a multiple of the stride below H·stride
//      (and the same across). A gather, not a scatter: no two invocations
//      write one element, so no atomics, and the order is fixed.
// NHWC is transposed to NCHW and back on the GPU.
//
// Invariants:
//   Sums are float32: C/G terms in the matmul, then at most KH·KW partial
//   sums in tap order; results agree with the CPU within
//   TOLERANCE.conv2d_transpose, not bit for bit.
//   The columns are cut by images so that one part stays within
//   COLUMN_BYTES; when one image's columns alone exceed the device's
//   binding limit, or X is empty while the result is not, the call throws
//   a RangeError before recording anything and the CPU runs it.

import {
  convTransposeGeometry,
  type WindowGeometry,
} from "../conv_geometry.ts";
import type { Conv2dTransposeKernelOptions } from "../kernel_options.ts";
import type { GpuBatch } from "./gpu_batch.ts";
import type { GpuTensor } from "./gpu_tensor.ts";
import { matmul } from "./matmul.ts";
import { concat, slice, transpose } from "./shape.ts";

// The most bytes of columns one matmul writes (as conv.ts's patches).
const COLUMN_BYTES = 64 * 2 ** 20;
const WORKGROUP = 64;
const MAX_WORKGROUPS = 65535;

/**
 * Transposed 2-D convolution of float32 tensors on the GPU: X
 * `[N, C, H, W]` (NHWC with `channelLast`) and a filter
 * `[C, OC / groups, KH, KW]` give `[N, OC, OH, OW]` (or NHWC).
 *
 * @param batch Where the dispatches go.
 * @param x The input, float32.
 * @param filter The filter, float32.
 * @param options Strides, `[top, bottom, left, right]` paddings,
 * dilations, groups, the layout and the output size.
 * @returns A new GPU tensor of the result.
 * @throws {RangeError} If the shapes and options disagree (the CPU's
 * message), one image's columns exceed the device's binding limit, or X
 * is empty and the result is not.
 * @throws {TypeError} If an operand is not float32.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { conv2dTranspose } from "./conv_transpose.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([[[[1, 2]]]], "float32"));
 *   const w = batch.upload(Tensor.fromArray([[[[1, 10]]]], "float32"));
 *   const y = conv2dTranspose(batch, x, w, { strides: [1, 2] });
 *   assertEquals((await batch.read([y]))[0].toNested(), [[[[1, 10, 2, 20]]]]);
 *   gpu.destroy();
 * }
 * ```
 */
export function conv2dTranspose(
  batch: GpuBatch,
  x: GpuTensor,
  filter: GpuTensor,
  options: Conv2dTransposeKernelOptions = {},
): GpuTensor {
  const g = convTransposeGeometry(x, filter, options);
  if (x.dtype !== "float32") {
    throw new TypeError(
      `conv2d_transpose: the GPU kernel takes float32, got ${x.dtype}`,
    );
  }
  const perImage = g.groups * g.ocg * g.kh * g.kw * g.h * g.w * 4;
  const limit = batch.gpu.limits.maxStorageBufferBindingSize;
  if (perImage > limit) {
    throw new RangeError(
      `conv2d_transpose: one image's columns take ${perImage} bytes, above the GPU's ${limit}`,
    );
  }
  const outSize = g.n * g.oc * g.oh * g.ow;
  if (x.size === 0 && outSize > 0) {
    throw new RangeError(
      "conv2d_transpose: an empty input gives zeros, which the CPU writes",
    );
  }
  if (g.channelLast) {
    const nchw = transpose(batch, x, [0, 3, 1, 2]);
    const y = conv2dTranspose(batch, nchw, filter, {
      ...options,
      channelLast: false,
    });
    if (nchw !== x) nchw.release();
    const out = transpose(batch, y, [0, 2, 3, 1]);
    if (out !== y) y.release();
    return out;
  }
  if (outSize === 0) return batch.allocate("float32", [g.n, g.oc, g.oh, g.ow]);
  const images = Math.max(1, Math.floor(COLUMN_BYTES / perImage));
  if (images >= g.n) return columnsThenGather(batch, x, filter, g);
  const parts: GpuTensor[] = [];
  for (let n0 = 0; n0 < g.n; n0 += images) {
    const part = slice(batch, x, [0], [n0], [Math.min(g.n, n0 + images)]);
    parts.push(
      columnsThenGather(batch, part, filter, { ...g, n: part.shape[0] }),
    );
    part.release();
  }
  const out = concat(batch, parts, 0);
  for (const part of parts) part.release();
  return out;
}

// Steps 1 and 2 (see the top) for the g.n images of NCHW `x`.
function columnsThenGather(
  batch: GpuBatch,
  x: GpuTensor,
  filter: GpuTensor,
  g: WindowGeometry,
): GpuTensor {
  const k = g.ocg * g.kh * g.kw;
  const columns = matmul(
    batch,
    filter.view([1, g.groups, g.cg, k]),
    x.view([g.n, g.groups, g.cg, g.h * g.w]),
    { transposeX: true },
  );
  const out = batch.allocate("float32", [g.n, g.oc, g.oh, g.ow]);
  const pipeline = batch.pipelines.get(
    { op: "conv2d_transpose", dtype: "float32", variant: "col2im" },
    col2imWgsl,
  );
  batch.dispatch({
    pipeline,
    buffers: [columns.buffer, out.buffer],
    params: new Uint32Array([
      out.size,
      g.oc,
      g.oh,
      g.ow,
      g.h,
      g.w,
      g.ocg,
      g.kh,
      g.kw,
      g.sh,
      g.sw,
      g.dh,
      g.dw,
      g.pt,
      g.pl,
    ]),
    workgroups: grid(out.size),
  });
  columns.release();
  return out;
}

function grid(count: number): [number, number] {
  const groups = Math.ceil(count / WORKGROUP);
  const x = Math.min(groups, MAX_WORKGROUPS);
  return [x, Math.ceil(groups / x)];
}

// p: [elements, OC, OH, OW, H, W, OC/G, KH, KW, sh, sw, dh, dw, top,
// left]. Columns: [N, G, K, H·W] with K = OC/G·KH·KW, tap (o % OC/G, a, b)
// at row (o % OC/G · KH + a) · KW + b. Output (n, o, y, x) takes input row
// i = (y + top − a·dh) / sh when that is a whole number in [0, H), and
// column j likewise.
function col2imWgsl(): string {
  return `
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read> Cols: array<f32>;
@group(0) @binding(2) var<storage, read_write> Y: array<f32>;
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nw: vec3<u32>) {
  let e = gid.x + gid.y * nw.x * ${WORKGROUP}u;
  if (e >= p[0]) { return; }
  let OC = p[1]; let OH = p[2]; let OW = p[3]; let H = i32(p[4]); let W = i32(p[5]);
  let ocg = p[6]; let KH = p[7]; let KW = p[8];
  let sh = i32(p[9]); let sw = i32(p[10]); let dh = i32(p[11]); let dw = i32(p[12]);
  let xo = i32(e % OW); let yo = i32((e / OW) % OH);
  let o = (e / (OW * OH)) % OC; let n = e / (OW * OH * OC);
  let K = ocg * KH * KW;
  let hw = u32(H * W);
  // The first column row of this image, group and result channel.
  let base = ((n * (OC / ocg) + o / ocg) * K + (o % ocg) * KH * KW) * hw;
  var sum = 0.0;
  for (var a = 0u; a < KH; a++) {
    let t = yo + i32(p[13]) - i32(a) * dh;
    if (t < 0 || t % sh != 0 || t / sh >= H) { continue; }
    let i = t / sh;
    for (var b = 0u; b < KW; b++) {
      let u = xo + i32(p[14]) - i32(b) * dw;
      if (u < 0 || u % sw != 0 || u / sw >= W) { continue; }
      sum += Cols[base + (a * KW + b) * hw + u32(i * W + u / sw)];
    }
  }
  Y[e] = sum;
}`;
}
