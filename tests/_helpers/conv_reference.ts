/**
 * Plain references for the convolution, pooling and normalization tests,
 * written from the definitions, one output element at a time, in float64,
 * sharing no code with Rill's kernels: each output element is a sum over
 * the window that reaches it (the transposed convolution too, gathered
 * rather than scattered as the kernel does). Layout NCHW; tests of NHWC
 * transpose around them.
 *
 * @module
 */
import { Tensor } from "../../kernels/tensor.ts";

/** Values and dims. */
export interface Ref {
  /** Row-major values. */
  readonly data: ArrayLike<number>;
  /** Dims. */
  readonly shape: readonly number[];
}

/** A convolution's window. */
export interface RefConv {
  /** `[h, w]`. @default {[1, 1]} */
  strides?: readonly number[];
  /** `[top, bottom, left, right]`. @default {[0, 0, 0, 0]} */
  paddings?: readonly number[];
  /** `[h, w]`. @default {[1, 1]} */
  dilations?: readonly number[];
  /** @default {1} */
  groups?: number;
  /** A transposed convolution's `[h, w]`. @default {the smallest} */
  outputSize?: readonly number[];
}

/**
 * A reference's values as a tensor of a dtype (rounded once).
 *
 * @param r The reference.
 * @param dtype The dtype.
 * @returns The tensor.
 */
export function refTensor(r: Ref, dtype: "float32" | "float64"): Tensor {
  const data = dtype === "float32"
    ? Float32Array.from(r.data)
    : Float64Array.from(r.data);
  return new Tensor(dtype, r.shape, data);
}

/**
 * A float tensor's values as a reference.
 *
 * @param t A float tensor.
 * @returns Its values and dims.
 */
export function refOf(t: Tensor): Ref {
  return { data: Array.from(t.data as Float64Array), shape: t.shape };
}

/**
 * The elementwise absolute values, for the magnitude of a sum.
 *
 * @param r Values.
 * @returns |values|.
 */
export function refAbs(r: Ref): Ref {
  return { data: Array.from(r.data, Math.abs), shape: r.shape };
}

function at4(shape: readonly number[]) {
  const [, c, h, w] = shape;
  return (n: number, k: number, y: number, x: number) =>
    ((n * c + k) * h + y) * w + x;
}

/**
 * 2-D convolution, NCHW, zero padding.
 *
 * @param x `[N, C, H, W]`.
 * @param f `[OC, C / groups, KH, KW]`.
 * @param o The window.
 * @returns `[N, OC, OH, OW]`.
 */
export function refConv2d(x: Ref, f: Ref, o: RefConv = {}): Ref {
  const [n, c, h, w] = x.shape;
  const [oc, cg, kh, kw] = f.shape;
  const [sh, sw] = o.strides ?? [1, 1];
  const [dh, dw] = o.dilations ?? [1, 1];
  const [pt, pb, pl, pr] = o.paddings ?? [0, 0, 0, 0];
  const groups = o.groups ?? 1;
  const oh = Math.floor((h + pt + pb - dh * (kh - 1) - 1) / sh) + 1;
  const ow = Math.floor((w + pl + pr - dw * (kw - 1) - 1) / sw) + 1;
  const shape = [n, oc, oh, ow];
  const xi = at4(x.shape), fi = at4(f.shape), oi = at4(shape);
  const out = new Float64Array(n * oc * oh * ow);
  for (let b = 0; b < n; b++) {
    for (let o2 = 0; o2 < oc; o2++) {
      const g = Math.floor(o2 / (oc / groups));
      for (let i = 0; i < oh; i++) {
        for (let j = 0; j < ow; j++) {
          let s = 0;
          for (let k = 0; k < cg; k++) {
            for (let a = 0; a < kh; a++) {
              for (let e = 0; e < kw; e++) {
                const y = i * sh - pt + a * dh, xx = j * sw - pl + e * dw;
                if (y < 0 || y >= h || xx < 0 || xx >= w) continue;
                s += x.data[xi(b, g * cg + k, y, xx)] *
                  f.data[fi(o2, k, a, e)];
              }
            }
          }
          out[oi(b, o2, i, j)] = s;
        }
      }
    }
  }
  void c;
  return { data: out, shape };
}

/**
 * 2-D transposed convolution, NCHW: output (y, x) sums, over the input
 * positions (i, j) and taps (a, e) with `i·s − p + a·d = y`, input times
 * filter.
 *
 * @param x `[N, C, H, W]`.
 * @param f `[C, OC / groups, KH, KW]`.
 * @param o The window.
 * @returns `[N, OC, OH, OW]`.
 */
export function refConvTranspose(x: Ref, f: Ref, o: RefConv = {}): Ref {
  const [n, c, h, w] = x.shape;
  const [, ocg, kh, kw] = f.shape;
  const [sh, sw] = o.strides ?? [1, 1];
  const [dh, dw] = o.dilations ?? [1, 1];
  const [pt, pb, pl, pr] = o.paddings ?? [0, 0, 0, 0];
  const groups = o.groups ?? 1;
  const [oh, ow] = o.outputSize ?? [
    (h - 1) * sh - pt - pb + dh * (kh - 1) + 1,
    (w - 1) * sw - pl - pr + dw * (kw - 1) + 1,
  ];
  const oc = ocg * groups, cg = c / groups;
  const shape = [n, oc, oh, ow];
  const xi = at4(x.shape), fi = at4(f.shape), oi = at4(shape);
  const out = new Float64Array(n * oc * oh * ow);
  for (let b = 0; b < n; b++) {
    for (let o2 = 0; o2 < oc; o2++) {
      const g = Math.floor(o2 / ocg);
      for (let y = 0; y < oh; y++) {
        for (let xx = 0; xx < ow; xx++) {
          let s = 0;
          for (let k = g * cg; k < (g + 1) * cg; k++) {
            for (let a = 0; a < kh; a++) {
              const iy = y + pt - a * dh;
              if (iy % sh !== 0 || iy < 0 || iy / sh >= h) continue;
              for (let e = 0; e < kw; e++) {
                const ix = xx + pl - e * dw;
                if (ix % sw !== 0 || ix < 0 || ix / sw >= w) continue;
                s += x.data[xi(b, k, iy / sh, ix / sw)] *
                  f.data[fi(k, o2 % ocg, a, e)];
              }
            }
          }
          out[oi(b, o2, y, xx)] = s;
        }
      }
    }
  }
  return { data: out, shape };
}

/** A pooling's window, Paddle's attributes resolved. */
export interface RefPool {
  /** `[h, w]`. */
  ksize: readonly number[];
  /** @default {[1, 1]} */
  strides?: readonly number[];
  /** `[top, bottom, left, right]`. @default {[0, 0, 0, 0]} */
  paddings?: readonly number[];
  /** @default {false} */
  ceilMode?: boolean;
  /** @default {true} */
  exclusive?: boolean;
  /** @default {false} */
  adaptive?: boolean;
}

/**
 * 2-D pooling, NCHW, by Paddle's rules: windows placed by the top and
 * left paddings, clipped to the input; a non-exclusive average divides by
 * the window clipped to the input grown by the top (left) padding on both
 * sides; max is NaN when the window holds a NaN.
 *
 * @param kind `max` or `avg`.
 * @param x `[N, C, H, W]`.
 * @param o The window.
 * @returns `[N, C, OH, OW]`.
 */
export function refPool(kind: "max" | "avg", x: Ref, o: RefPool): Ref {
  const [n, c, h, w] = x.shape;
  const [kh, kw] = o.ksize;
  const [sh, sw] = o.strides ?? [1, 1];
  const [pt, pb, pl, pr] = o.paddings ?? [0, 0, 0, 0];
  const count = (size: number, k: number, p0: number, p1: number, s: number) =>
    (o.ceilMode
      ? Math.ceil((size - k + p0 + p1) / s)
      : Math.floor((size - k + p0 + p1) / s)) + 1;
  const [oh, ow] = o.adaptive
    ? [kh, kw]
    : [count(h, kh, pt, pb, sh), count(w, kw, pl, pr, sw)];
  const shape = [n, c, oh, ow];
  const out = new Float64Array(n * c * oh * ow);
  const xi = at4(x.shape), oi = at4(shape);
  for (let b = 0; b < n; b++) {
    for (let k = 0; k < c; k++) {
      for (let i = 0; i < oh; i++) {
        for (let j = 0; j < ow; j++) {
          let y0, y1, x0, x1, padded;
          if (o.adaptive) {
            y0 = Math.floor(i * h / oh);
            y1 = Math.ceil((i + 1) * h / oh);
            x0 = Math.floor(j * w / ow);
            x1 = Math.ceil((j + 1) * w / ow);
            padded = (y1 - y0) * (x1 - x0);
          } else {
            const ys = i * sh - pt, xs = j * sw - pl;
            const ye = Math.min(ys + kh, h + pt),
              xe = Math.min(xs + kw, w + pl);
            padded = (ye - ys) * (xe - xs);
            [y0, y1] = [Math.max(ys, 0), Math.min(ye, h)];
            [x0, x1] = [Math.max(xs, 0), Math.min(xe, w)];
          }
          const values: number[] = [];
          for (let y = y0; y < y1; y++) {
            for (let xx = x0; xx < x1; xx++) {
              values.push(x.data[xi(b, k, y, xx)]);
            }
          }
          let v: number;
          if (kind === "max") {
            v = values.some(Number.isNaN)
              ? NaN
              : Math.max(-3.4028234663852886e38, ...values);
          } else {
            const divisor = (o.exclusive ?? true) || o.adaptive
              ? values.length
              : padded;
            v = values.reduce((s, e) => s + e, 0) / divisor;
          }
          out[oi(b, k, i, j)] = v;
        }
      }
    }
  }
  return { data: out, shape };
}

/** Normalization parameters. */
export interface RefNorm {
  /** @default {ones} */
  scale?: ArrayLike<number>;
  /** @default {zeros} */
  bias?: ArrayLike<number>;
  /** @default {1e-5} */
  epsilon?: number;
}

/**
 * Batch normalization with given statistics, channel dim 1.
 *
 * @param x `[N, C, ...]`.
 * @param mean C means.
 * @param variance C variances.
 * @param o Scale, bias, epsilon.
 * @returns Y.
 */
export function refBatchNorm(
  x: Ref,
  mean: ArrayLike<number>,
  variance: ArrayLike<number>,
  o: RefNorm = {},
): Ref {
  const c = x.shape[1];
  const inner = x.shape.slice(2).reduce((p, d) => p * d, 1);
  const eps = o.epsilon ?? 1e-5;
  const data = Array.from(x.data, (v, i) => {
    const k = Math.floor(i / inner) % c;
    return ((v - mean[k]) / Math.sqrt(variance[k] + eps)) *
        (o.scale?.[k] ?? 1) + (o.bias?.[k] ?? 0);
  });
  return { data, shape: x.shape };
}

/** A normalization's output and statistics. */
export interface RefNormResult {
  /** The normalized values. */
  y: Ref;
  /** The means, one per group. */
  mean: number[];
  /** The biased variances, one per group. */
  variance: number[];
}

/**
 * Normalizes groups of elements: `groupOf(i)` is element i's group (or
 * -1), `paramOf(i)` its scale and bias index.
 */
function refNormalize(
  x: Ref,
  groups: number,
  groupOf: (i: number) => number,
  paramOf: (i: number) => number,
  o: RefNorm,
): RefNormResult {
  const members: number[][] = Array.from({ length: groups }, () => []);
  for (let i = 0; i < x.data.length; i++) members[groupOf(i)].push(i);
  const mean = members.map((m) =>
    m.reduce((s, i) => s + x.data[i], 0) / m.length
  );
  const variance = members.map((m, g) =>
    m.reduce((s, i) => s + (x.data[i] - mean[g]) ** 2, 0) / m.length
  );
  const eps = o.epsilon ?? 1e-5;
  const data = Array.from(x.data, (v, i) => {
    const g = groupOf(i), p = paramOf(i);
    return ((v - mean[g]) / Math.sqrt(variance[g] + eps)) *
        (o.scale?.[p] ?? 1) + (o.bias?.[p] ?? 0);
  });
  return { y: { data, shape: x.shape }, mean, variance };
}

/**
 * Layer normalization over the dims from `axis` on.
 *
 * @param x Any shape.
 * @param axis The first normalized dim.
 * @param o Scale and bias (one per normalized element), epsilon.
 * @returns Y and the statistics per row.
 */
export function refLayerNorm(
  x: Ref,
  axis: number,
  o: RefNorm = {},
): RefNormResult {
  const right = x.shape.slice(axis).reduce((p, d) => p * d, 1);
  const left = x.data.length / right;
  return refNormalize(
    x,
    left,
    (i) => Math.floor(i / right),
    (i) => i % right,
    o,
  );
}

/**
 * Instance normalization of `[N, C, ...]`: statistics per image and
 * channel.
 *
 * @param x `[N, C, ...]`.
 * @param o Scale, bias (one per channel), epsilon.
 * @returns Y and the statistics per (n, c).
 */
export function refInstanceNorm(x: Ref, o: RefNorm = {}): RefNormResult {
  const [n, c] = x.shape;
  const plane = x.data.length / (n * c);
  return refNormalize(
    x,
    n * c,
    (i) => Math.floor(i / plane),
    (i) => Math.floor(i / plane) % c,
    o,
  );
}

/**
 * Group normalization of `[N, C, ...]`.
 *
 * @param x `[N, C, ...]`.
 * @param groups Channel groups.
 * @param o Scale, bias (one per channel), epsilon.
 * @returns Y and the statistics per (n, group).
 */
export function refGroupNorm(
  x: Ref,
  groups: number,
  o: RefNorm = {},
): RefNormResult {
  const [n, c] = x.shape;
  const plane = x.data.length / (n * c);
  const channelOf = (i: number) => Math.floor(i / plane) % c;
  return refNormalize(
    x,
    n * groups,
    (i) =>
      Math.floor(i / (plane * c)) * groups +
      Math.floor(channelOf(i) / (c / groups)),
    channelOf,
    o,
  );
}

/**
 * Seeded uniform values in [lo, hi) (a 32-bit LCG), or integers.
 *
 * @param size How many.
 * @param seed The seed.
 * @param options Range; integers only.
 * @returns The values.
 */
export function seededValues(
  size: number,
  seed: number,
  options: { lo?: number; hi?: number; integers?: boolean } = {},
): number[] {
  const { lo = -1, hi = 1, integers = false } = options;
  let s = seed >>> 0;
  return Array.from({ length: size }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const v = lo + (hi - lo) * (s / 2 ** 32);
    return integers ? Math.floor(v) : Math.fround(v);
  });
}

/**
 * Transposes a 4-D reference by a permutation.
 *
 * @param r The values.
 * @param perm The permutation.
 * @returns The permuted values.
 */
export function refTranspose(r: Ref, perm: readonly number[]): Ref {
  const shape = perm.map((p) => r.shape[p]);
  const strides = [1, 1, 1, 1];
  for (let d = 2; d >= 0; d--) strides[d] = strides[d + 1] * r.shape[d + 1];
  const data = new Float64Array(r.data.length);
  let o = 0;
  for (let a = 0; a < shape[0]; a++) {
    for (let b = 0; b < shape[1]; b++) {
      for (let c = 0; c < shape[2]; c++) {
        for (let d = 0; d < shape[3]; d++) {
          const idx = [a, b, c, d];
          let src = 0;
          for (let k = 0; k < 4; k++) src += idx[k] * strides[perm[k]];
          data[o++] = r.data[src];
        }
      }
    }
  }
  return { data, shape };
}
