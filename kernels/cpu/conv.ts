// 2-D convolution and transposed convolution on the CPU, NCHW (NHWC is
// transposed to NCHW and back).
//
// How each call runs, chosen from the dtype and the filter's shape alone,
// so the same shapes always give the same bits:
//   float32, more than one input channel per group: im2col packed straight
//     into the WASM gemm's panel layout, then the WASM SIMD gemm
//     (_conv_gemm.ts); sums in float32, one rounding per multiply and add,
//     as any sgemm.
//   float32, one input channel per group (depthwise): a direct loop per
//     tap, summing in float64 and rounding once (_depthwise.ts).
//   float64 and float16, and every transposed convolution: a direct loop
//     summing in float64, rounded once to the dtype.

import { allocate } from "../allocate.ts";
import {
  convGeometry,
  convTransposeGeometry,
  type WindowGeometry,
} from "../conv_geometry.ts";
import type {
  Conv2dKernelOptions,
  Conv2dTransposeKernelOptions,
} from "../kernel_options.ts";
import { Tensor } from "../tensor.ts";
import { convGemmFloat32 } from "./_conv_gemm.ts";
import { depthwiseFloat32 } from "./_depthwise.ts";
import { transpose } from "./shape.ts";

type Floats = { [index: number]: number; readonly length: number };

/**
 * 2-D convolution: X `[N, C, H, W]` and a filter `[OC, C / groups, KH,
 * KW]` give `[N, OC, OH, OW]`; with `channelLast` X and the result are
 * NHWC (the filter stays OIHW, as Paddle keeps it). Padding is zeros.
 *
 * @param x The input, of a float dtype.
 * @param filter The filter, of X's dtype.
 * @param options Strides, `[top, bottom, left, right]` paddings,
 * dilations, groups and the layout.
 * @returns The result, of X's dtype.
 * @throws {RangeError} If the shapes and options disagree (channels and
 * groups, a window that does not fit), naming the shapes.
 * @throws {TypeError} If the operands are not of one float dtype.
 *
 * @example Usage
 * ```ts
 * import { conv2d } from "./conv.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]]], "float32");
 * const w = Tensor.fromArray([[[[1, 0], [0, 1]]]], "float32"); // x[i,j] + x[i+1,j+1]
 * assertEquals(conv2d(x, w).toNested(), [[[[6, 8], [12, 14]]]]);
 * ```
 */
export function conv2d(
  x: Tensor,
  filter: Tensor,
  options: Conv2dKernelOptions = {},
): Tensor {
  const g = convGeometry(x, filter, options);
  if (g.channelLast) {
    const nchw = conv2d(transpose(x, [0, 3, 1, 2]), filter, {
      ...options,
      channelLast: false,
    });
    return transpose(nchw, [0, 2, 3, 1]);
  }
  const out = allocate(x.dtype, g.n * g.oc * g.oh * g.ow);
  const shape = [g.n, g.oc, g.oh, g.ow];
  if (out.length === 0) return new Tensor(x.dtype, shape, out);
  if (x.dtype === "float32" && g.cg === 1) {
    depthwiseFloat32(
      x.data as Float32Array,
      filter.data as Float32Array,
      out as Float32Array,
      g,
    );
  } else if (x.dtype === "float32") {
    convGemmFloat32(
      x.data as Float32Array,
      filter.data as Float32Array,
      out as Float32Array,
      g,
    );
  } else {
    convDirect(x.data as Floats, filter.data as Floats, out as Floats, g);
  }
  return new Tensor(x.dtype, shape, out);
}

/**
 * 2-D transposed convolution (the gradient of {@linkcode conv2d} with
 * respect to its input): X `[N, C, H, W]` and a filter `[C, OC / groups,
 * KH, KW]` give `[N, OC, OH, OW]`, where each input element adds its
 * value times the filter into the window it reaches, less the paddings
 * cut off each side; `outputSize` keeps up to a stride less one more rows
 * and columns at the bottom and right.
 *
 * @param x The input, of a float dtype.
 * @param filter The filter, of X's dtype.
 * @param options Strides, `[top, bottom, left, right]` paddings (cut off
 * the full result), dilations, groups, the layout and the output size.
 * @returns The result, of X's dtype.
 * @throws {RangeError} If the shapes and options disagree, naming the
 * shapes.
 * @throws {TypeError} If the operands are not of one float dtype.
 *
 * @example Usage
 * ```ts
 * import { conv2dTranspose } from "./conv.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([[[[1, 2]]]], "float32"); // [1, 1, 1, 2]
 * const w = Tensor.fromArray([[[[1, 10]]]], "float32"); // [1, 1, 1, 2]
 * assertEquals(conv2dTranspose(x, w, { strides: [1, 2] }).toNested(), [[[[1, 10, 2, 20]]]]);
 * ```
 */
export function conv2dTranspose(
  x: Tensor,
  filter: Tensor,
  options: Conv2dTransposeKernelOptions = {},
): Tensor {
  const g = convTransposeGeometry(x, filter, options);
  if (g.channelLast) {
    const nchw = conv2dTranspose(transpose(x, [0, 3, 1, 2]), filter, {
      ...options,
      channelLast: false,
    });
    return transpose(nchw, [0, 2, 3, 1]);
  }
  const out = allocate(x.dtype, g.n * g.oc * g.oh * g.ow);
  if (out.length > 0) {
    convTransposeDirect(
      x.data as Floats,
      filter.data as Floats,
      out as Floats,
      g,
    );
  }
  return new Tensor(x.dtype, [g.n, g.oc, g.oh, g.ow], out);
}

// out[n, o, i, j] = Σ x[n, c, i·sh − pt + a·dh, j·sw − pl + b·dw] ·
// f[o, c − group start, a, b], in float64, rounded once by the store.
function convDirect(x: Floats, f: Floats, out: Floats, g: WindowGeometry) {
  const { h, w, oh, ow, kh, kw, cg, ocg } = g;
  const sum = new Float64Array(oh * ow);
  for (let n = 0; n < g.n; n++) {
    for (let o = 0; o < g.oc; o++) {
      sum.fill(0);
      const c0 = Math.floor(o / ocg) * cg;
      for (let c = 0; c < cg; c++) {
        const plane = ((n * g.c) + c0 + c) * h * w;
        for (let a = 0; a < kh; a++) {
          for (let b = 0; b < kw; b++) {
            const wv = f[((o * cg + c) * kh + a) * kw + b];
            for (let i = 0; i < oh; i++) {
              const y = i * g.sh - g.pt + a * g.dh;
              if (y < 0 || y >= h) continue;
              for (let j = 0; j < ow; j++) {
                const xx = j * g.sw - g.pl + b * g.dw;
                if (xx >= 0 && xx < w) {
                  sum[i * ow + j] += wv * x[plane + y * w + xx];
                }
              }
            }
          }
        }
      }
      const base = (n * g.oc + o) * oh * ow;
      for (let i = 0; i < sum.length; i++) out[base + i] = sum[i];
    }
  }
}

// Each x[n, c, i, j] adds x · f[c, o − group start, a, b] to
// out[n, o, i·sh − pt + a·dh, j·sw − pl + b·dw] where that is inside the
// result; sums in float64, rounded once by the store.
function convTransposeDirect(
  x: Floats,
  f: Floats,
  out: Floats,
  g: WindowGeometry,
) {
  const { h, w, oh, ow, kh, kw, cg, ocg } = g;
  const sum = new Float64Array(oh * ow);
  for (let n = 0; n < g.n; n++) {
    for (let o = 0; o < g.oc; o++) {
      sum.fill(0);
      const group = Math.floor(o / ocg);
      for (let c = group * cg; c < (group + 1) * cg; c++) {
        const plane = (n * g.c + c) * h * w;
        for (let a = 0; a < kh; a++) {
          for (let b = 0; b < kw; b++) {
            const wv = f[((c * ocg + o % ocg) * kh + a) * kw + b];
            for (let i = 0; i < h; i++) {
              const y = i * g.sh - g.pt + a * g.dh;
              if (y < 0 || y >= oh) continue;
              for (let j = 0; j < w; j++) {
                const xx = j * g.sw - g.pl + b * g.dw;
                if (xx >= 0 && xx < ow) {
                  sum[y * ow + xx] += wv * x[plane + i * w + j];
                }
              }
            }
          }
        }
      }
      const base = (n * g.oc + o) * oh * ow;
      for (let i = 0; i < sum.length; i++) out[base + i] = sum[i];
    }
  }
}
