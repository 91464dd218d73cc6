// float32 2-D convolution on the GPU, with the CPU kernel's semantics
// (kernels/cpu/conv.ts) and geometry checks (kernels/conv_geometry.ts).
//
// Two kernels, chosen from the filter's shape alone:
//   one input channel per group (depthwise): a direct kernel, one
//     invocation per output row, the taps' weights read once per row;
//     rows of whole vec4s at unit stride across are walked four columns
//     at a time with vec4 loads (depthwiseQuadsWgsl), which on llvmpipe
//     takes 12 ms where the column-by-column loop takes 18 (8×96×56×56);
//   any other: im2col into a patch buffer [images, G, K, OH·OW]
//     (K = C/G·KH·KW, zero where a tap falls in the padding), then the
//     matmul kernels (_matmul_wgsl.ts) multiply the filter, viewed as
//     [1, G, OC/G, K], by it: the product [images, G, OC/G, OH·OW] is the
//     NCHW result. On llvmpipe, where every storage load is emulated lane by
//     lane, the matmul's register blocks (16 multiply-adds a load) beat any
//     direct convolution loop (two a load).
// NHWC is transposed to NCHW and back on the GPU.
//
// Invariants:
//   Sums are float32, in tap order for the direct kernel and in k order
//   for the matmul: results agree with the CPU within TOLERANCE.conv2d,
//   not bit for bit.
//   The patch buffer is cut by images so that one part stays within
//   PATCH_BYTES; when one image's patches alone exceed the device's binding
//   limit, the call throws a RangeError before recording anything, and
//   the CPU runs it.

import { convGeometry, type WindowGeometry } from "../conv_geometry.ts";
import type { Conv2dKernelOptions } from "../kernel_options.ts";
import type { GpuBatch } from "./gpu_batch.ts";
import type { GpuTensor } from "./gpu_tensor.ts";
import { matmul } from "./matmul.ts";
import { concat, transpose } from "./shape.ts";

// The most bytes of patches one im2col dispatch writes: a batch of 8
// 56×56 images of 64 channels under a 3×3 filter (58 MB) goes in one.
const PATCH_BYTES = 64 * 2 ** 20;
const WORKGROUP = 64;
const MAX_WORKGROUPS = 65535;

/**
 * 2-D convolution of float32 tensors on the GPU, with the CPU kernel's
 * semantics (kernels/cpu/conv.ts): X `[N, C, H, W]` (NHWC with
 * `channelLast`) and a filter `[OC, C / groups, KH, KW]`.
 *
 * @param batch Where the dispatches go.
 * @param x The input, float32.
 * @param filter The filter, float32.
 * @param options Strides, `[top, bottom, left, right]` paddings,
 * dilations, groups and the layout.
 * @returns A new GPU tensor of the result.
 * @throws {RangeError} If the shapes and options disagree (the CPU's
 * message), or the patches of one image exceed the device's binding
 * limit.
 * @throws {TypeError} If an operand is not float32.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { conv2d } from "./conv.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]]], "float32"));
 *   const w = batch.upload(Tensor.fromArray([[[[1, 0], [0, 1]]]], "float32"));
 *   const [y] = await batch.read([conv2d(batch, x, w)]);
 *   assertEquals(y.toNested(), [[[[6, 8], [12, 14]]]]);
 *   gpu.destroy();
 * }
 * ```
 */
export function conv2d(
  batch: GpuBatch,
  x: GpuTensor,
  filter: GpuTensor,
  options: Conv2dKernelOptions = {},
): GpuTensor {
  const g = convGeometry(x, filter, options);
  if (x.dtype !== "float32") {
    throw new TypeError(`conv2d: the GPU kernel takes float32, got ${x.dtype}`);
  }
  if (g.channelLast) {
    const limit = batch.gpu.limits.maxStorageBufferBindingSize;
    checkPatches(g, limit);
    const nchw = transpose(batch, x, [0, 3, 1, 2]);
    const y = conv2d(batch, nchw, filter, { ...options, channelLast: false });
    if (nchw !== x) nchw.release();
    const out = transpose(batch, y, [0, 2, 3, 1]);
    if (out !== y) y.release();
    return out;
  }
  if (g.n * g.oc * g.oh * g.ow === 0) {
    return batch.allocate("float32", [g.n, g.oc, g.oh, g.ow]);
  }
  if (g.cg === 1) return depthwise(batch, x, filter, g);
  return im2colMatmul(batch, x, filter, g);
}

// Throws the RangeError that sends the call to the CPU when one image's
// patches exceed the binding limit.
function checkPatches(g: WindowGeometry, limit: number): number {
  if (g.cg === 1) return 0;
  const perImage = g.groups * g.cg * g.kh * g.kw * g.oh * g.ow * 4;
  if (perImage > limit) {
    throw new RangeError(
      `conv2d: one image's patches take ${perImage} bytes, above the GPU's ${limit}`,
    );
  }
  return perImage;
}

function im2colMatmul(
  batch: GpuBatch,
  x: GpuTensor,
  filter: GpuTensor,
  g: WindowGeometry,
): GpuTensor {
  const perImage = checkPatches(
    g,
    batch.gpu.limits.maxStorageBufferBindingSize,
  );
  const k = g.cg * g.kh * g.kw;
  const positions = g.oh * g.ow;
  const images = Math.max(1, Math.min(g.n, Math.floor(PATCH_BYTES / perImage)));
  const weights = filter.view([1, g.groups, g.ocg, k]);
  const pipeline = batch.pipelines.get(
    { op: "conv2d", dtype: "float32", variant: "im2col" },
    im2colWgsl,
  );
  const products: GpuTensor[] = [];
  for (let n0 = 0; n0 < g.n; n0 += images) {
    const count = Math.min(images, g.n - n0);
    const patches = batch.allocate("float32", [count, g.groups, k, positions]);
    // One invocation per output row of one patch row: count·G·K·OH lines.
    const lines = count * g.groups * k * g.oh;
    batch.dispatch({
      pipeline,
      buffers: [x.buffer, patches.buffer],
      params: new Uint32Array([
        lines,
        n0 * g.c * g.h * g.w,
        g.c,
        g.h,
        g.w,
        g.cg,
        g.kh,
        g.kw,
        g.oh,
        g.ow,
        g.sh,
        g.sw,
        g.dh,
        g.dw,
        g.pt,
        g.pl,
      ]),
      workgroups: [gridOf(lines)],
    });
    products.push(matmul(batch, weights, patches));
    patches.release();
  }
  const parts = products.map((t) => t.view([t.shape[0], g.oc, g.oh, g.ow]));
  if (parts.length === 1) return parts[0];
  const out = concat(batch, parts, 0);
  for (const product of products) product.release();
  return out;
}

function depthwise(
  batch: GpuBatch,
  x: GpuTensor,
  filter: GpuTensor,
  g: WindowGeometry,
): GpuTensor {
  const out = batch.allocate("float32", [g.n, g.oc, g.oh, g.ow]);
  const quads = rowQuads(g);
  const variant = quads
    ? `depthwise ${g.kh}×${g.kw} quads pl ${g.pl}`
    : `depthwise ${g.kh}×${g.kw}`;
  const pipeline = batch.pipelines.get(
    { op: "conv2d", dtype: "float32", variant },
    quads
      ? () => depthwiseQuadsWgsl(g.kh, g.kw, g.pl)
      : () => depthwiseWgsl(g.kh, g.kw),
  );
  const lines = g.n * g.oc * g.oh;
  batch.dispatch({
    pipeline,
    buffers: [x.buffer, filter.buffer, out.buffer],
    params: new Uint32Array([
      lines,
      g.c,
      g.h,
      g.w,
      g.oc,
      g.ocg,
      g.oh,
      g.ow,
      g.sh,
      g.sw,
      g.dh,
      g.dw,
      g.pt,
      g.pl,
    ]),
    workgroups: [gridOf(lines)],
  });
  return out;
}

// Whether the depthwise call can walk its rows four columns at a time
// with vec4 loads (depthwiseQuadsWgsl): unit stride and dilation across,
// rows of whole vec4s in and out, and every tap of a quad within the
// quads before, at and after it.
function rowQuads(g: WindowGeometry): boolean {
  return g.sw === 1 && g.dw === 1 && g.w % 4 === 0 && g.ow % 4 === 0 &&
    g.pl <= 4 && g.kw - g.pl <= 5;
}

function gridOf(lines: number): number {
  return Math.max(1, Math.min(MAX_WORKGROUPS, Math.ceil(lines / WORKGROUP)));
}

// Patch line `l` = ((image·G + group)·K + k)·OH + i writes patches
// [image, group, k, i·OW, (i + 1)·OW): tap (a, b) of channel c (k = (c·KH
// + a)·KW + b) of the group, at every output column j of output row i.
// p: lines, X's first element of the part, C, H, W, CG, KH, KW, OH, OW,
// sh, sw, dh, dw, pt, pl.
function im2colWgsl(): string {
  return `
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read> X: array<f32>;
@group(0) @binding(2) var<storage, read_write> P: array<f32>;
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nw: vec3<u32>) {
  let lines = p[0]; let x0 = p[1]; let C = p[2]; let H = p[3]; let W = p[4];
  let CG = p[5]; let KH = p[6]; let KW = p[7]; let OH = p[8]; let OW = p[9];
  let sh = p[10]; let sw = p[11]; let dh = p[12]; let dw = p[13];
  let pt = i32(p[14]); let pl = i32(p[15]);
  let K = CG * KH * KW;
  let groups = C / CG;
  for (var l = gid.x; l < lines; l += nw.x * ${WORKGROUP}u) {
    let i = l % OH;
    let row = l / OH;              // (image·G + group)·K + k
    let k = row % K;
    let ig = row / K;              // image·G + group
    let image = ig / groups;
    let c = (ig % groups) * CG + k / (KH * KW);
    let a = (k / KW) % KH;
    let b = k % KW;
    let y = i32(i * sh + a * dh) - pt;
    let out = row * OH * OW + i * OW;
    if (y < 0 || y >= i32(H)) {
      for (var j = 0u; j < OW; j++) { P[out + j] = 0.0; }
      continue;
    }
    let plane = x0 + (image * C + c) * H * W + u32(y) * W;
    for (var j = 0u; j < OW; j++) {
      let xx = i32(j * sw + b * dw) - pl;
      var v = 0.0;
      if (xx >= 0 && xx < i32(W)) { v = X[plane + u32(xx)]; }
      P[out + j] = v;
    }
  }
}`;
}

// Depthwise line `l` = (n·OC + o)·OH + i computes output row i of channel o
// of image n; the filter's KH·KW taps of channel o are read into registers
// once per line. p (here and in depthwiseQuadsWgsl): lines, C, H, W, OC,
// OCG, OH, OW, sh, sw, dh, dw, pt, pl.
function depthwiseWgsl(kh: number, kw: number): string {
  const taps = kh * kw;
  return `
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read> X: array<f32>;
@group(0) @binding(2) var<storage, read> F: array<f32>;
@group(0) @binding(3) var<storage, read_write> O: array<f32>;
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nw: vec3<u32>) {
  let lines = p[0]; let C = p[1]; let H = i32(p[2]); let W = i32(p[3]);
  let OC = p[4]; let OCG = p[5]; let OH = p[6]; let OW = p[7];
  let sh = i32(p[8]); let sw = i32(p[9]); let dh = i32(p[10]); let dw = i32(p[11]);
  let pt = i32(p[12]); let pl = i32(p[13]);
  var wt: array<f32, ${taps}>;
  for (var l = gid.x; l < lines; l += nw.x * ${WORKGROUP}u) {
    let i = i32(l % OH);
    let no = l / OH;
    let o = no % OC;
    let n = no / OC;
    for (var t = 0u; t < ${taps}u; t++) { wt[t] = F[o * ${taps}u + t]; }
    let plane = i32((n * C + o / OCG) * u32(H * W));
    let out = no * OH * OW + u32(i) * OW;
    for (var j = 0; j < i32(OW); j++) {
      var acc = 0.0;
      for (var a = 0; a < ${kh}; a++) {
        let y = i * sh - pt + a * dh;
        if (y < 0 || y >= H) { continue; }
        for (var b = 0; b < ${kw}; b++) {
          let xx = j * sw - pl + b * dw;
          if (xx >= 0 && xx < W) {
            acc = acc + wt[a * ${kw} + b] * X[plane + y * W + xx];
          }
        }
      }
      O[out + u32(j)] = acc;
    }
  }
}`;
}

// The depthwise line walked four output columns at a time (rowQuads says
// when): output quad q of a line reads, in each of its KH input rows, the
// vec4s at quads q − 1, q and q + 1 (zero outside the row), and tap b of
// output column 4q + t is element 4 + t − pl + b of those twelve. Each
// row's vec4s roll along the line, so a quad loads one vec4 per row.
function depthwiseQuadsWgsl(kh: number, kw: number, pl: number): string {
  const lines = [`
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read> X: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> F: array<f32>;
@group(0) @binding(3) var<storage, read_write> O: array<vec4<f32>>;
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nw: vec3<u32>) {
  let lines = p[0]; let C = p[1]; let H = i32(p[2]); let W4 = p[3] / 4u;
  let OC = p[4]; let OCG = p[5]; let OH = p[6]; let OW4 = p[7] / 4u;
  let sh = i32(p[8]); let dh = i32(p[10]); let pt = i32(p[12]);
  for (var l = gid.x; l < lines; l += nw.x * ${WORKGROUP}u) {
    let i = i32(l % OH);
    let no = l / OH;
    let o = no % OC;
    let n = no / OC;
    let plane = (n * C + o / OCG) * u32(H) * W4;
    let f = o * ${kh * kw}u;`];
  for (let t = 0; t < kh * kw; t++) lines.push(`    let w${t} = F[f + ${t}u];`);
  for (let a = 0; a < kh; a++) {
    lines.push(`    let y${a} = i * sh - pt + ${a} * dh;
    let in${a} = y${a} >= 0 && y${a} < H;
    let r${a} = plane + u32(max(y${a}, 0)) * W4;
    var left${a} = vec4<f32>(0.0);
    var mid${a} = vec4<f32>(0.0);
    if (in${a}) { mid${a} = X[r${a}]; }`);
  }
  lines.push(`    let out = no * OH * OW4 + u32(i) * OW4;
    for (var q = 0u; q < OW4; q++) {
      var acc = vec4<f32>(0.0);`);
  for (let a = 0; a < kh; a++) {
    lines.push(`      var right${a} = vec4<f32>(0.0);
      if (in${a} && q + 1u < W4) { right${a} = X[r${a} + q + 1u]; }
      {
        let v = array<f32, 12>(left${a}.x, left${a}.y, left${a}.z, left${a}.w,
          mid${a}.x, mid${a}.y, mid${a}.z, mid${a}.w,
          right${a}.x, right${a}.y, right${a}.z, right${a}.w);`);
    for (let b = 0; b < kw; b++) {
      const e = 4 - pl + b;
      lines.push(
        `        acc = acc + w${a * kw + b} * vec4<f32>(v[${e}], v[${
          e + 1
        }], v[${e + 2}], v[${e + 3}]);`,
      );
    }
    lines.push(`      }
      left${a} = mid${a};
      mid${a} = right${a};`);
  }
  lines.push(`      O[out + q] = acc;
    }
  }
}`);
  return lines.join("\n");
}
