// The float32 depthwise convolution (one input channel per group), NCHW:
// output channel o reads input channel floor(o / ocg) alone.
//
// Three ways, chosen from the strides and the filter's shape alone, so the
// same shapes always give the same bits:
//   unit stride across: WASM SIMD (wasm/_window_module.ts), four output
//     columns at a time over a zero-padded copy of each input plane in the
//     module's memory; f32 sums in tap order, one rounding per multiply and
//     per add, as the gemm's.
//   3×3 otherwise: output by output in float64, the nine weights in
//     locals; an output whose window lies inside the input sums its taps
//     with no checks, the few at the borders go through `edgeSum`.
//   any other size: tap by tap over a float64 plane of sums, the range of
//     output columns each tap reaches worked out once, so the inner loop
//     has no branch.
// The float64 ways round each output once when it is stored.
//
// The WASM way's layout in the convolution workspace (_conv_workspace.ts):
// the whole filter, one packed input plane, the zero-padded plane, one
// output plane.

import type { WindowGeometry } from "../conv_geometry.ts";
import { aligned, reserve, windowKernels } from "./_conv_workspace.ts";

/**
 * Depthwise convolution of `x` by `f` into `out` (all NCHW float32, `out`
 * `n·oc·oh·ow` long).
 *
 * @param x The input, `[N, C, H, W]`.
 * @param f The filter, `[OC, 1, KH, KW]`.
 * @param out The result, `[N, OC, OH, OW]`.
 * @param g The checked geometry; `g.cg` must be 1.
 *
 * @example Usage
 * ```ts
 * import { depthwiseFloat32 } from "./_depthwise.ts";
 * import { convGeometry } from "../conv_geometry.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([[[[1, 2, 3]], [[4, 5, 6]]]], "float32"); // [1, 2, 1, 3]
 * const f = Tensor.fromArray([[[[1, 1]]], [[[2, 0]]]], "float32"); // [2, 1, 1, 2]
 * const out = new Float32Array(4);
 * depthwiseFloat32(x.data as Float32Array, f.data as Float32Array, out, convGeometry(x, f, { groups: 2 }));
 * assertEquals([...out], [3, 5, 8, 10]);
 * ```
 */
export function depthwiseFloat32(
  x: Float32Array,
  f: Float32Array,
  out: Float32Array,
  g: WindowGeometry,
): void {
  if (g.sw === 1) depthwiseWasm(x, f, out, g);
  else if (g.kh === 3 && g.kw === 3) depthwise3x3(x, f, out, g);
  else depthwiseByTap(x, f, out, g);
}

function depthwiseWasm(
  x: Float32Array,
  f: Float32Array,
  out: Float32Array,
  g: WindowGeometry,
): void {
  const { h, w, oh, ow, kh, kw, sh, dh, dw, pt, pl, ocg } = g;
  // The padded plane holds every position a tap reaches: at unit stride
  // across, columns [−pl, ow + (kw − 1)·dw − pl), rows up to the last
  // output row's last tap.
  const wp = ow + (kw - 1) * dw;
  const hp = (oh - 1) * sh + (kh - 1) * dh + 1;
  const rawAt = aligned(4 * f.length);
  const paddedAt = aligned(rawAt + 4 * h * w);
  const outAt = aligned(paddedAt + 4 * hp * wp);
  const memory = reserve(outAt + 4 * oh * ow).memory;
  const kernel = windowKernels({ kh, kw, dw });
  const f32 = new Float32Array(memory.buffer);
  f32.set(f, 0);
  // The padding stays zero: every plane writes the same interior.
  f32.fill(0, paddedAt / 4, paddedAt / 4 + hp * wp);
  const rows = Math.max(0, Math.min(h, hp - pt));
  const cols = Math.max(0, Math.min(w, wp - pl));
  const interior = paddedAt + 4 * (pt * wp + pl);
  const result = f32.subarray(outAt / 4, outAt / 4 + oh * ow);
  for (let n = 0; n < g.n; n++) {
    for (let o = 0; o < g.oc; o++) {
      if (o % ocg === 0) {
        const plane = (n * g.c + o / ocg) * h * w;
        f32.set(x.subarray(plane, plane + h * w), rawAt / 4);
        kernel.pad_rows(rawAt, interior, rows, cols, 4 * w, 4 * wp);
      }
      kernel.depthwise(
        paddedAt,
        4 * o * kh * kw,
        outAt,
        oh,
        ow,
        4 * wp,
        sh,
        dh,
      );
      out.set(result, (n * g.oc + o) * oh * ow);
    }
  }
}

function depthwise3x3(
  x: Float32Array,
  f: Float32Array,
  out: Float32Array,
  g: WindowGeometry,
): void {
  const { h, w, oh, ow, sh, sw, dh, dw, pt, pl, ocg } = g;
  // Output columns [j0, j1) have all three taps inside the input.
  const j0 = Math.min(ow, Math.max(0, Math.ceil(pl / sw)));
  const j1 = Math.max(
    j0,
    Math.min(ow, Math.floor((w - 1 - 2 * dw + pl) / sw) + 1),
  );
  for (let n = 0; n < g.n; n++) {
    for (let o = 0; o < g.oc; o++) {
      const plane = (n * g.c + Math.floor(o / ocg)) * h * w;
      const k = o * 9;
      const w0 = f[k], w1 = f[k + 1], w2 = f[k + 2];
      const w3 = f[k + 3], w4 = f[k + 4], w5 = f[k + 5];
      const w6 = f[k + 6], w7 = f[k + 7], w8 = f[k + 8];
      for (let i = 0; i < oh; i++) {
        const y = i * sh - pt;
        const at = ((n * g.oc + o) * oh + i) * ow;
        const inside = y >= 0 && y + 2 * dh < h;
        if (inside) {
          const r0 = plane + y * w - pl, r1 = r0 + dh * w, r2 = r1 + dh * w;
          for (let j = j0; j < j1; j++) {
            const c = j * sw;
            out[at + j] = w0 * x[r0 + c] + w1 * x[r0 + c + dw] +
              w2 * x[r0 + c + 2 * dw] + w3 * x[r1 + c] + w4 * x[r1 + c + dw] +
              w5 * x[r1 + c + 2 * dw] + w6 * x[r2 + c] + w7 * x[r2 + c + dw] +
              w8 * x[r2 + c + 2 * dw];
          }
        }
        for (let j = 0; j < ow; j++) {
          if (inside && j === j0) j = j1;
          if (j < ow) out[at + j] = edgeSum(x, f, k, plane, i, j, g);
        }
      }
    }
  }
}

// The sum of output (i, j)'s taps that lie inside the input, in tap order.
function edgeSum(
  x: Float32Array,
  f: Float32Array,
  k: number,
  plane: number,
  i: number,
  j: number,
  g: WindowGeometry,
): number {
  let sum = 0;
  for (let a = 0; a < g.kh; a++) {
    const y = i * g.sh - g.pt + a * g.dh;
    if (y < 0 || y >= g.h) continue;
    for (let b = 0; b < g.kw; b++) {
      const xx = j * g.sw - g.pl + b * g.dw;
      if (xx >= 0 && xx < g.w) {
        sum += f[k + a * g.kw + b] * x[plane + y * g.w + xx];
      }
    }
  }
  return sum;
}

function depthwiseByTap(
  x: Float32Array,
  f: Float32Array,
  out: Float32Array,
  g: WindowGeometry,
): void {
  const { h, w, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl, ocg } = g;
  const sum = new Float64Array(oh * ow);
  // Per tap column b: the output columns [jLo[b], jHi[b]) whose input
  // column j·sw − pl + b·dw lies in [0, w).
  const jLo = new Int32Array(kw), jHi = new Int32Array(kw);
  for (let b = 0; b < kw; b++) {
    const shift = b * dw - pl;
    jLo[b] = Math.min(ow, Math.max(0, Math.ceil(-shift / sw)));
    jHi[b] = Math.max(
      jLo[b],
      Math.min(ow, Math.floor((w - 1 - shift) / sw) + 1),
    );
  }
  for (let n = 0; n < g.n; n++) {
    for (let o = 0; o < g.oc; o++) {
      sum.fill(0);
      const plane = (n * g.c + Math.floor(o / ocg)) * h * w;
      for (let a = 0; a < kh; a++) {
        for (let b = 0; b < kw; b++) {
          const wv = f[(o * kh + a) * kw + b];
          const lo = jLo[b], hi = jHi[b];
          const shift = b * dw - pl;
          for (let i = 0; i < oh; i++) {
            const y = i * sh - pt + a * dh;
            if (y < 0 || y >= h) continue;
            const row = plane + y * w + shift;
            const s0 = i * ow;
            if (sw === 1) {
              for (let j = lo; j < hi; j++) sum[s0 + j] += wv * x[row + j];
            } else {
              for (let j = lo; j < hi; j++) {
                sum[s0 + j] += wv * x[row + j * sw];
              }
            }
          }
        }
      }
      out.set(sum, (n * g.oc + o) * oh * ow);
    }
  }
}
