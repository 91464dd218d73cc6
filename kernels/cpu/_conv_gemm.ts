// The float32 convolution as products on the WASM SIMD gemm (wasm/gemm.ts):
// for each image and channel group, out[g] (OCG × OH·OW) = filter[g]
// (OCG × K) · patches (K × OH·OW), K = CG·KH·KW, in NCHW.
//
// The patch matrix (im2col) is never built row-major: the window module's
// `pack` (wasm/_window_module.ts) writes it straight into the layout
// `GemmKernel.packB` would give it, panels of NR output positions, each K
// rows of NR floats, from zero-padded copies of the group's input planes,
// so no tap is checked against the input's bounds.
//
// Layout in the convolution workspace (_conv_workspace.ts), each part
// 64-byte aligned: gemm scratch, the whole filter (OC × K, as
// `filter.data`), the group's packed input planes, its padded planes, the
// packed patch matrix, one group's result (OCG × OH·OW).

import type { WindowGeometry } from "../conv_geometry.ts";
import { aligned, reserve, windowKernels } from "./_conv_workspace.ts";
import { gemmScratchBytes, packedBBytes } from "./wasm/gemm.ts";

/**
 * Convolution of `x` by `f` into `out` (NCHW float32; `out` is
 * `n·oc·oh·ow` long) through the WASM gemm.
 *
 * @param x The input, `[N, C, H, W]`.
 * @param f The filter, `[OC, CG, KH, KW]`.
 * @param out The result, `[N, OC, OH, OW]`.
 * @param g The checked geometry.
 *
 * @example Usage
 * ```ts
 * import { convGemmFloat32 } from "./_conv_gemm.ts";
 * import { convGeometry } from "../conv_geometry.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([[[[1, 2]], [[3, 4]]]], "float32"); // [1, 2, 1, 2]
 * const f = Tensor.fromArray([[[[1]], [[10]]]], "float32"); // [1, 2, 1, 1]
 * const out = new Float32Array(2);
 * convGemmFloat32(x.data as Float32Array, f.data as Float32Array, out, convGeometry(x, f));
 * assertEquals([...out], [31, 42]);
 * ```
 */
export function convGemmFloat32(
  x: Float32Array,
  f: Float32Array,
  out: Float32Array,
  g: WindowGeometry,
): void {
  const { h, w, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl, cg } = g;
  const k = cg * kh * kw;
  const positions = oh * ow;
  // Each padded plane holds every position a tap reaches.
  const wp = (ow - 1) * sw + (kw - 1) * dw + 1;
  const hp = (oh - 1) * sh + (kh - 1) * dh + 1;
  const aAt = aligned(gemmScratchBytes());
  const rawAt = aligned(aAt + 4 * f.length);
  const paddedAt = aligned(rawAt + 4 * cg * h * w);
  const bAt = aligned(paddedAt + 4 * cg * hp * wp);
  const cAt = aligned(bAt + packedBBytes(k, positions));
  const gemm = reserve(cAt + 4 * g.ocg * positions);
  const window = windowKernels({ kh, kw, dw });
  const f32 = new Float32Array(gemm.memory.buffer);
  f32.set(f, aAt / 4);
  // The padding stays zero: every group writes the same interiors.
  f32.fill(0, paddedAt / 4, paddedAt / 4 + cg * hp * wp);
  const rows = Math.max(0, Math.min(h, hp - pt));
  const cols = Math.max(0, Math.min(w, wp - pl));
  const interior = paddedAt + 4 * (pt * wp + pl);
  const result = f32.subarray(cAt / 4, cAt / 4 + g.ocg * positions);
  for (let n = 0; n < g.n; n++) {
    for (let group = 0; group < g.groups; group++) {
      const plane = (n * g.c + group * cg) * h * w;
      f32.set(x.subarray(plane, plane + cg * h * w), rawAt / 4);
      for (let c = 0; c < cg; c++) {
        window.pad_rows(
          rawAt + 4 * c * h * w,
          interior + 4 * c * hp * wp,
          rows,
          cols,
          4 * w,
          4 * wp,
        );
      }
      window.pack(paddedAt, cg, 4 * hp * wp, bAt, oh, ow, 4 * wp, sh, sw, dh);
      gemm.computeRows({
        a: aAt + 4 * group * g.ocg * k,
        packedB: bAt,
        c: cAt,
        m: g.ocg,
        k,
        n: positions,
      }, { scratch: 0 });
      out.set(result, (n * g.oc + group * g.ocg) * positions);
    }
  }
}
