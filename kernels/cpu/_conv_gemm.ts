// The float32 convolution as products on the WASM SIMD gemm (wasm/gemm.ts):
// for each image and channel group, out[g] (OCG × OH·OW) = filter[g]
// (OCG × K) · patches (K × OH·OW), K = CG·KH·KW, in NCHW.
//
// The patch matrix (im2col) is never built row-major: it is written
// straight into the layout `GemmKernel.packB` would give it, panels of NR
// output positions, each K rows of NR floats, zero past the last position.
// So the gemm reads the input's values once, with no copy in between.
//
// The workspace is one module-level WebAssembly memory with its kernel,
// made on first use and grown to the largest call (never shrunk), as
// `matmulFloat32` keeps its own; calls run one at a time on a thread, so
// nothing else uses it during a call. Its layout, each part 64-byte
// aligned: gemm scratch, the whole filter (OC × K, as `filter.data`), one
// packed patch matrix, one group's result (OCG × OH·OW).

import type { WindowGeometry } from "../conv_geometry.ts";
import { NR } from "./wasm/_gemm_module.ts";
import { GemmKernel, gemmScratchBytes, packedBBytes } from "./wasm/gemm.ts";

const PAGE_BYTES = 65536;

let workspace: GemmKernel | undefined;

/**
 * Convolution of `x` by `f` into `out` (NCHW float32; `out` is
 * `n·oc·oh·ow` long) through the WASM gemm.
 *
 * @param x The input, `[N, C, H, W]`.
 * @param f The filter, `[OC, CG, KH, KW]`.
 * @param out The result, `[N, OC, OH, OW]`.
 * @param g The checked geometry.
 */
export function convGemmFloat32(
  x: Float32Array,
  f: Float32Array,
  out: Float32Array,
  g: WindowGeometry,
): void {
  const k = g.cg * g.kh * g.kw;
  const positions = g.oh * g.ow;
  const at = (bytes: number) => Math.ceil(bytes / 64) * 64;
  const aAt = at(gemmScratchBytes());
  const bAt = at(aAt + 4 * f.length);
  const cAt = at(bAt + packedBBytes(k, positions));
  const end = cAt + 4 * g.ocg * positions;

  workspace ??= new GemmKernel(new WebAssembly.Memory({ initial: 1 }));
  const memory = workspace.memory;
  const missing = Math.ceil(end / PAGE_BYTES) -
    memory.buffer.byteLength / PAGE_BYTES;
  if (missing > 0) memory.grow(missing);
  // Read after growing: a grown memory has a new buffer.
  const f32 = new Float32Array(memory.buffer);
  f32.set(f, aAt / 4);
  const result = f32.subarray(cAt / 4, cAt / 4 + g.ocg * positions);
  for (let n = 0; n < g.n; n++) {
    for (let group = 0; group < g.groups; group++) {
      const plane = (n * g.c + group * g.cg) * g.h * g.w;
      packPatches(x, plane, f32, bAt / 4, g);
      workspace.computeRows({
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

// Writes the patch matrix of one image's channel group (its first element
// at x[plane]) into dst from dst[at], packed: panel p holds positions
// [p·NR, p·NR + NR) as K rows of NR floats, row (c·KH + a)·KW + b being
// tap (a, b) of channel c; taps outside the input and lanes past the last
// position are zero.
//
// For one panel and one tap, the lanes' source offsets within a channel
// plane are the same for every channel: they are worked out once, and the
// channel loop only adds the plane size. When the panel's positions lie in
// one output row and the tap is inside the input for all of them, the
// lanes read consecutive elements (stride sw) without checks.
function packPatches(
  x: Float32Array,
  plane: number,
  dst: Float32Array,
  at: number,
  g: WindowGeometry,
): void {
  const { h, w, ow, kh, kw, sh, sw, dh, dw, pt, pl, cg } = g;
  const positions = g.oh * ow;
  const k = cg * kh * kw;
  const hw = h * w;
  const tapStride = kh * kw * NR; // from channel c to c + 1 in a panel
  const rows = new Int32Array(NR), cols = new Int32Array(NR);
  const offsets = new Int32Array(NR);
  for (let p0 = 0, panel = at; p0 < positions; p0 += NR, panel += k * NR) {
    const lanes = Math.min(NR, positions - p0);
    for (let l = 0; l < NR; l++) {
      const q = p0 + Math.min(l, lanes - 1);
      rows[l] = Math.floor(q / ow) * sh - pt;
      cols[l] = (q % ow) * sw - pl;
    }
    const oneRow = lanes === NR && rows[0] === rows[NR - 1];
    for (let a = 0; a < kh; a++) {
      for (let b = 0; b < kw; b++) {
        let d = panel + (a * kw + b) * NR;
        const y0 = rows[0] + a * dh, x0 = cols[0] + b * dw;
        if (
          oneRow && y0 >= 0 && y0 < h && x0 >= 0 &&
          x0 + (NR - 1) * sw < w
        ) {
          let s = plane + y0 * w + x0;
          if (sw === 1 && NR === 8) {
            for (let c = 0; c < cg; c++, s += hw, d += tapStride) {
              dst[d] = x[s];
              dst[d + 1] = x[s + 1];
              dst[d + 2] = x[s + 2];
              dst[d + 3] = x[s + 3];
              dst[d + 4] = x[s + 4];
              dst[d + 5] = x[s + 5];
              dst[d + 6] = x[s + 6];
              dst[d + 7] = x[s + 7];
            }
          } else {
            for (let c = 0; c < cg; c++, s += hw, d += tapStride) {
              for (let l = 0; l < NR; l++) dst[d + l] = x[s + l * sw];
            }
          }
          continue;
        }
        for (let l = 0; l < NR; l++) {
          const y = rows[l] + a * dh, xx = cols[l] + b * dw;
          offsets[l] = l < lanes && y >= 0 && y < h && xx >= 0 && xx < w
            ? y * w + xx
            : -1;
        }
        for (let c = 0, s = plane; c < cg; c++, s += hw, d += tapStride) {
          for (let l = 0; l < NR; l++) {
            const o = offsets[l];
            dst[d + l] = o < 0 ? 0 : x[s + o];
          }
        }
      }
    }
  }
}
