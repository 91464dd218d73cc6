// How far a WebGPU result may be from the CPU's, per op: the one table the
// tests read (design.md §6, "Results across devices").
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

/** An allowed difference between a GPU value and the CPU's. */
export type Tolerance =
  /** The same float32 bits (or the same integer or bool). */
  | { readonly kind: "exact" }
  /** At most `ulps` float32 steps apart. */
  | { readonly kind: "ulp"; readonly ulps: number }
  /** `|gpu - cpu| <= atol + rtol · |cpu|`. */
  | { readonly kind: "close"; readonly rtol: number; readonly atol: number }
  /**
   * `|gpu - cpu| <= rtol · magnitude`, where magnitude is the sum of the
   * absolute values of the terms (the op on |inputs|): sums and products.
   */
  | { readonly kind: "scaled"; readonly rtol: number };

const EXACT: Tolerance = { kind: "exact" };

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
  copy: EXACT,
  // Data movement copies 32-bit words; cast computes on bits (cast.ts).
  transpose: EXACT,
  concat: EXACT,
  split: EXACT,
  slice: EXACT,
  gather: EXACT,
  cast: EXACT,
  add: EXACT,
  sub: EXACT,
  mul: EXACT,
  max: EXACT,
  min: EXACT,
  less_than: EXACT,
  less_equal: EXACT,
  greater_than: EXACT,
  greater_equal: EXACT,
  equal: EXACT,
  not_equal: EXACT,
  relu: EXACT,
  abs: EXACT,
  square: EXACT,
  floor: EXACT,
  ceil: EXACT,
  round: EXACT,
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
  const bits = u32[0];
  return bits >= 0x80000000 ? -(bits - 0x80000000) - 1 : bits;
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
    case "close":
      return diff <= tolerance.atol + tolerance.rtol * Math.abs(cpu);
    case "scaled":
      return diff <= tolerance.rtol * magnitude;
  }
}
