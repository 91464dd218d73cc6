// How far a WebGPU result may be from the CPU's, per op: the one table the
// tests read (docs/architecture.md §6, "Results across devices").
//
// Rules that hold for every op, whatever its entry:
//   NaN matches only NaN, and ±Infinity only itself: the kernels check
//   special values by bit pattern, so a compiler that assumes finite
//   values cannot change them.
//   A subnormal float32 may come out as a zero of the same sign or the
//   reverse (WGSL allows flushing subnormals), never as anything else.
// Where the bounds come from: WGSL's accuracy table (div 2.5 ULP; exp and
// exp2 3 + 2·|x| ULP; log absolute 2^-21 on [0.5, 2], else 3 ULP; sqrt as
// 1/inverseSqrt) and, for sums, the standard bound of a float32 sum of n
// terms, n·2^-24 · Σ|term| (2^-14 covers n ≤ 1024; beyond, the blocked
// order keeps the error far below the bound).
//
// float16 (TOLERANCE_F16) is computed in f32 and rounded once to float16,
// exactly as a Float16Array store (kernels/webgpu/_f16_wgsl.ts); the CPU
// computes in float64 and rounds once. So:
//   exact   add, sub, mul, max, min, comparisons, scale and the exact
//           functions: an exactly rounded f32 result of float16 operands,
//           rounded to float16, is the exactly rounded float16 result
//           (f32 has 24 bits >= 2·11 + 2), and scale rounds its product to
//           float16 before adding, as the CPU does; copies and casts move
//           or convert bits.
//   1 step  div, reciprocal, sqrt, exp, sigmoid, tanh, softmax: their f32
//           error (at most 3e-5 relative, see above) is far below half a
//           float16 step (2^-11 relative), so rounding can only land on the
//           neighbouring float16. Measured on llvmpipe: 0 steps for div,
//           reciprocal, sqrt and tanh, 1 for exp, sigmoid and softmax, over
//           every float16 input (2^16) or 2^20 random pairs.
//   2 steps log: WGSL's absolute 2^-21 on [0.5, 2] is one float16 step of
//           the smallest results there (log(1 - 2^-11) ≈ -2^-11); measured
//           1 over every float16 input.
//   scaled  sums, means and matmul: the f32 sum's 2^-14 · magnitude plus
//           one float16 step of the result (at most 2^-10 · magnitude):
//           2^-9 · magnitude. Measured: 5.7e-4 · magnitude (one step, after
//           cancellation) for a 1000×7·7×33 product.
// float16 overflow: a result is ±Infinity on both devices, since both round
// the same way from 65520 on, except where the f32 error itself could
// straddle 65520; for div and reciprocal no quotient of float16 values
// comes closer than 2^-12 (relative) to it, exp was checked at every input, and pow (where
// it could) stays on the CPU. A sum or product whose exact value lies
// within its accumulation error of 65520 may round either way, as a
// float32 one near 3.4e38 may.

import { COMPARE_KINDS } from "../device.ts";

/** An allowed difference between a GPU value and the CPU's. */
export type Tolerance =
  /** The same float32 bits (or the same integer or bool). */
  | { readonly kind: "exact" }
  /** At most `ulps` float32 steps apart. */
  | { readonly kind: "ulp"; readonly ulps: number }
  /** At most `ulps` float16 steps apart (float16 results). */
  | { readonly kind: "ulp16"; readonly ulps: number }
  /** `|gpu - cpu| <= atol + rtol · |cpu|`. */
  | { readonly kind: "close"; readonly rtol: number; readonly atol: number }
  /**
   * `|gpu - cpu| <= rtol · magnitude`, where magnitude is the sum of the
   * absolute values of the terms (the op on |inputs|): sums and products.
   */
  | { readonly kind: "scaled"; readonly rtol: number };

const EXACT: Tolerance = { kind: "exact" };

// The ops exactly rounded in WGSL as on the CPU, in both float widths:
// copies, casts on bits, add, subtract, multiply, min/max, comparisons and
// the unary ops that only move bits or round to an integer.
const EXACTLY_ROUNDED: Readonly<Record<string, Tolerance>> = Object.fromEntries(
  [
    "copy",
    "transpose",
    "concat",
    "split",
    "slice",
    "gather",
    "cast",
    "add",
    "sub",
    "mul",
    "max",
    "min",
    ...COMPARE_KINDS,
    "relu",
    "abs",
    "square",
    "floor",
    "ceil",
    "round",
  ].map((op) => [op, EXACT]),
);

/**
 * The tolerance of every op the WebGPU kernels implement, by op name
 * (elementwise kinds, unary kinds, `scale`, `matmul`, `reduce_*`,
 * `softmax`, `copy`, the data-movement ops, `cast` and the random fills).
 *
 * @example Usage
 * ```ts
 * import { TOLERANCE } from "./tolerance.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(TOLERANCE.add, { kind: "exact" });
 * assertEquals(TOLERANCE.matmul.kind, "scaled");
 * ```
 */

export const TOLERANCE: Readonly<Record<string, Tolerance>> = {
  // Data movement copies 32-bit words; cast computes on bits (cast.ts).
  ...EXACTLY_ROUNDED,
  // Two roundings (multiply, then add) as on the CPU; a compiler may fuse
  // them into one FMA, which is at most one step off.
  scale: { kind: "ulp", ulps: 1 },
  div: { kind: "ulp", ulps: 3 },
  reciprocal: { kind: "ulp", ulps: 3 },
  sqrt: { kind: "ulp", ulps: 4 },
  exp: { kind: "close", rtol: 3e-5, atol: 0 },
  log: { kind: "close", rtol: 4e-7, atol: 2 ** -21 },
  sigmoid: { kind: "close", rtol: 3e-5, atol: 0 },
  tanh: { kind: "close", rtol: 3e-5, atol: 0 },
  pow: { kind: "close", rtol: 6e-5, atol: 0 },
  matmul: { kind: "scaled", rtol: 2 ** -14 },
  reduce_sum: { kind: "scaled", rtol: 2 ** -14 },
  reduce_mean: { kind: "scaled", rtol: 2 ** -14 },
  reduce_max: EXACT,
  reduce_min: EXACT,
  softmax: { kind: "close", rtol: 3e-5, atol: 1e-9 },
  // Random fills draw the same words on both devices (counter_random.ts);
  // uniform float32 rounds as the CPU does, step by step.
  uniform_random: EXACT,
  // Box–Muller in f32 (webgpu/random.ts): the radius within about 8 ULP
  // (the atanh series or log, 3 ULP; sqrt, 4.5), the cosine and sine within
  // 3e-7 absolute (exact reduction, polynomials), times a radius of at most
  // 5.8: magnitude = |mean| + 6·|std|.
  gaussian_random: { kind: "scaled", rtol: 2e-6 },
};

/**
 * The tolerance of every float16 op the WebGPU kernels implement, by the
 * names {@linkcode TOLERANCE} uses (pow and the random fills of float16 run
 * on the CPU only).
 *
 * @example Usage
 * ```ts
 * import { TOLERANCE_F16 } from "./tolerance.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(TOLERANCE_F16.scale, { kind: "exact" });
 * assertEquals(TOLERANCE_F16.exp, { kind: "ulp16", ulps: 1 });
 * ```
 */
export const TOLERANCE_F16: Readonly<Record<string, Tolerance>> = {
  ...EXACTLY_ROUNDED,
  scale: EXACT,
  div: { kind: "ulp16", ulps: 1 },
  reciprocal: { kind: "ulp16", ulps: 1 },
  sqrt: { kind: "ulp16", ulps: 1 },
  exp: { kind: "ulp16", ulps: 1 },
  log: { kind: "ulp16", ulps: 2 },
  sigmoid: { kind: "ulp16", ulps: 1 },
  tanh: { kind: "ulp16", ulps: 1 },
  softmax: { kind: "ulp16", ulps: 1 },
  matmul: { kind: "scaled", rtol: 2 ** -9 },
  reduce_sum: { kind: "scaled", rtol: 2 ** -9 },
  reduce_mean: { kind: "scaled", rtol: 2 ** -9 },
  reduce_max: EXACT,
  reduce_min: EXACT,
};

/**
 * An op's tolerance for results of a dtype: {@linkcode TOLERANCE_F16} for
 * float16, {@linkcode TOLERANCE} for the rest.
 *
 * @param op The op's name in the tables.
 * @param dtype The result's (or, for comparisons, the operands') dtype.
 * @returns The tolerance, or undefined when the GPU has no such kernel.
 *
 * @example Usage
 * ```ts
 * import { toleranceOf } from "./tolerance.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(toleranceOf("scale", "float32"), { kind: "ulp", ulps: 1 });
 * assertEquals(toleranceOf("scale", "float16"), { kind: "exact" });
 * assertEquals(toleranceOf("pow", "float16"), undefined);
 * ```
 */
export function toleranceOf(op: string, dtype: string): Tolerance | undefined {
  return (dtype === "float16" ? TOLERANCE_F16 : TOLERANCE)[op];
}

/** The smallest normal float32. */
export const MIN_NORMAL_F32: number = 2 ** -126;

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/**
 * How many float32 steps separate two values (both rounded to float32).
 *
 * @param a A value.
 * @param b Another value.
 * @returns The number of float32 values between them, +1; 0 when equal
 * (+0 and -0 are 1 apart); Infinity when either is NaN.
 *
 * @example Usage
 * ```ts
 * import { ulpDistance } from "./tolerance.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(ulpDistance(1, 1 + 2 ** -23), 1);
 * assertEquals(ulpDistance(-0, 0), 1);
 * ```
 */
export function ulpDistance(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return Infinity;
  return Math.abs(ordered(a) - ordered(b));
}

// Float32 bits mapped to integers that increase with the value; -0 sits
// one below +0.
function ordered(v: number): number {
  f32[0] = v;
  return signMagnitudeOrder(u32[0], 0x80000000);
}

// Sign-magnitude bits (sign bit `sign`) as a two's-complement-like order.
function signMagnitudeOrder(bits: number, sign: number): number {
  return bits >= sign ? -(bits - sign) - 1 : bits;
}

const f16 = new Float16Array(1);
const u16 = new Uint16Array(f16.buffer);

/**
 * How many float16 steps separate two values (both rounded to float16).
 *
 * @param a A value.
 * @param b Another value.
 * @returns The number of float16 values between them, +1; 0 when equal
 * (+0 and -0 are 1 apart); Infinity when either is NaN.
 *
 * @example Usage
 * ```ts
 * import { ulpDistance16 } from "./tolerance.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(ulpDistance16(1, 1 + 2 ** -10), 1);
 * assertEquals(ulpDistance16(65504, Infinity), 1);
 * assertEquals(ulpDistance16(2 ** -24, -(2 ** -24)), 3);
 * ```
 */
export function ulpDistance16(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return Infinity;
  return Math.abs(ordered16(a) - ordered16(b));
}

function ordered16(v: number): number {
  f16[0] = v;
  return signMagnitudeOrder(u16[0], 0x8000);
}

/**
 * Whether a GPU value is within an op's tolerance of the CPU's.
 *
 * @param tolerance The op's entry of {@linkcode TOLERANCE}.
 * @param gpu The GPU's value.
 * @param cpu The CPU's value.
 * @param magnitude For `scaled`: the op on the inputs' absolute values.
 * @returns `true` when the values agree.
 *
 * @example Usage
 * ```ts
 * import { TOLERANCE, withinTolerance } from "./tolerance.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(withinTolerance(TOLERANCE.add, NaN, NaN), true);
 * assertEquals(withinTolerance(TOLERANCE.exp, Infinity, 3e38), false);
 * assertEquals(withinTolerance(TOLERANCE.matmul, 1.00001, 1, 10), true);
 * ```
 */
export function withinTolerance(
  tolerance: Tolerance,
  gpu: number,
  cpu: number,
  magnitude = 0,
): boolean {
  if (Number.isNaN(gpu) || Number.isNaN(cpu)) {
    return Number.isNaN(gpu) && Number.isNaN(cpu);
  }
  if (!Number.isFinite(gpu) || !Number.isFinite(cpu)) return gpu === cpu;
  if (Object.is(gpu, cpu)) return true;
  // A flushed subnormal: either side may be any zero or subnormal.
  if (
    Math.abs(gpu) < MIN_NORMAL_F32 && Math.abs(cpu) < MIN_NORMAL_F32 &&
    (gpu !== 0 || cpu !== 0)
  ) {
    return true;
  }
  const diff = Math.abs(gpu - cpu);
  switch (tolerance.kind) {
    case "exact":
      return false;
    case "ulp":
      return ulpDistance(gpu, cpu) <= tolerance.ulps;
    case "ulp16":
      return ulpDistance16(gpu, cpu) <= tolerance.ulps;
    case "close":
      return diff <= tolerance.atol + tolerance.rtol * Math.abs(cpu);
    case "scaled":
      return diff <= tolerance.rtol * magnitude;
  }
}
