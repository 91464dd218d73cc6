// The float32 depthwise convolution (one input channel per group), NCHW:
// output channel o reads input channel floor(o / ocg) alone.
//
// Tap by tap: for each of the KH·KW taps, every output element whose tap
// lands inside the input adds weight · input. The range of output columns
// a tap reaches is computed once per tap, so the inner loop has no
// branch; the plane's sums are float64 and each is rounded once when
// stored, so the result does not depend on the order of the taps.

import type { WindowGeometry } from "../conv_geometry.ts";

/**
 * Depthwise convolution of `x` by `f` into `out` (all NCHW float32, `out`
 * zero-filled and `n·oc·oh·ow` long).
 *
 * @param x The input, `[N, C, H, W]`.
 * @param f The filter, `[OC, 1, KH, KW]`.
 * @param out The result, `[N, OC, OH, OW]`.
 * @param g The checked geometry; `g.cg` must be 1.
 */
export function depthwiseFloat32(
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
              for (let j = lo; j < hi; j++) sum[s0 + j] += wv * x[row + j * sw];
            }
          }
        }
      }
      out.set(sum, (n * g.oc + o) * oh * ow);
    }
  }
}
