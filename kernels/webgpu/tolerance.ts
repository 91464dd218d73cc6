// How far a WebGPU result may be from the CPU's: the rules every bound
// shares, and the bounds of the GPU kernel entries (gpu_kernels.ts, where
// each is argued) by the names the tests give them (docs/architecture.md §6,
// "Results across devices").
//
// Rules that hold for every op, whatever its bound:
//   NaN matches only NaN, and ±Infinity only itself: the kernels check
//   special values by bit pattern, so a compiler that assumes finite
//   values cannot change them.
//   A subnormal float32 may come out as a zero of the same sign or the
//   reverse (WGSL allows flushing subnormals), never as anything else.

import { GPU_KERNELS, type GpuBound, STRIDED_COPY } from "./gpu_kernels.ts";

// Kernels whose kinds are named after the kernel (`reduce_max`,
// `pool2d_max`): their kinds are binary kinds' names too.
const KIND_PREFIXED: ReadonlySet<string> = new Set(["reduce", "pool2d"]);

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

/**
 * The tolerance of every kernel the WebGPU kernels implement, for float32
 * (and integer and bool) results, derived from the entries of
 * `GPU_KERNELS`: a kind by its own name (`add`, `exp`, `less_than`), a
 * reduction or pooling as its op is named (`reduce_sum`, `pool2d_max`:
 * max and min are binary kinds too), any other kernel by its name in
 * snake_case (`matmul`, `uniform_random`, `batch_norm`), and `copy` for
 * the strided copy that the data-movement kernels run.
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
export const TOLERANCE: Readonly<Record<string, Tolerance>> = boundsOf(
  "float32",
);

/**
 * The tolerance of every float16 kernel the WebGPU kernels implement, by
 * the names {@linkcode TOLERANCE} uses (pow and the random fills of
 * float16 run on the CPU only).
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
export const TOLERANCE_F16: Readonly<Record<string, Tolerance>> = boundsOf(
  "float16",
);

// The GPU kernel entries' bounds for one width, by name.
function boundsOf(
  width: keyof GpuBound,
): Readonly<Record<string, Tolerance>> {
  const table: Record<string, Tolerance> = {};
  const put = (name: string, bound: GpuBound) => {
    const tolerance = bound[width];
    if (tolerance !== undefined) table[name] = tolerance;
  };
  put("copy", STRIDED_COPY);
  for (const [kernel, entry] of Object.entries(GPU_KERNELS)) {
    const bounds: GpuBound | Readonly<Record<string, GpuBound>> =
      entry.tolerance;
    if (isOneBound(bounds)) {
      put(snake(kernel), bounds);
      continue;
    }
    for (const [kind, bound] of Object.entries(bounds)) {
      put(KIND_PREFIXED.has(kernel) ? `${snake(kernel)}_${kind}` : kind, bound);
    }
  }
  return Object.freeze(table);
}

// A kernel's name as the tables name it: `gaussianRandom` is
// `gaussian_random`.
function snake(kernel: string): string {
  return kernel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

// A kernel's one bound has float32; a kind is never named so.
function isOneBound(
  bounds: GpuBound | Readonly<Record<string, GpuBound>>,
): bounds is GpuBound {
  return "float32" in bounds;
}

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
