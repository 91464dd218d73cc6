// Dtype conversion between float32, float16 and int32 on the GPU, bit for
// bit as the CPU's kernels/cpu/cast.ts (a typed-array store).
//
// Invariants:
//   Both directions compute on the bits with integer arithmetic only, so
//   no WGSL conversion (which saturates f32 → i32, and may round i32 → f32
//   either way) and no float operation (which may flush or canonicalize) is
//   involved.
//   float32 → int32 is ECMAScript's ToInt32: NaN, ±Infinity and |x| < 1
//   give 0; otherwise truncate toward zero and wrap modulo 2^32 (3e9 gives
//   -1294967296, as Int32Array.set does).
//   int32 → float32 rounds to nearest, ties to even (exact for |v| ≤ 2^24);
//   0 gives +0.
//   float32 → float16 rounds to nearest even, ±Infinity from 65520 on, as
//   a Float16Array store (_f16_wgsl.ts); float16 → float32 is exact.
//   int32 → float16 goes through float32: exact up to 2^24, and beyond that
//   both the double and the single rounding give ±Infinity, so the result
//   is the CPU's. float16 → int32 truncates (|x| ≤ 65504: no wrap); NaN and
//   ±Infinity give 0.
//   A float16 result is written a word (two elements) per invocation.

import type { DType } from "../dtype.ts";
import type { GpuBatch } from "./gpu_batch.ts";
import type { GpuDType, GpuTensor } from "./gpu_tensor.ts";
import { F16_WGSL } from "./_f16_wgsl.ts";

const WORKGROUP = 256;
const MAX_WORKGROUPS = 65535;

/**
 * The conversions the GPU runs, as `[from, to]`; any other runs on the CPU.
 *
 * @example Usage
 * ```ts
 * import { GPU_CAST } from "./cast.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(GPU_CAST.slice(0, 2), [["float32", "int32"], ["int32", "float32"]]);
 * assertEquals(GPU_CAST.length, 6);
 * ```
 */
export const GPU_CAST: readonly (readonly [DType, DType])[] = [
  ["float32", "int32"],
  ["int32", "float32"],
  ["float32", "float16"],
  ["float16", "float32"],
  ["float16", "int32"],
  ["int32", "float16"],
];

// The WGSL function converting one element's bits, per conversion.
const CONVERT: Record<string, string> = {
  "float32 int32": "f32_to_i32",
  "int32 float32": "i32_to_f32",
  "float32 float16": "f16_bits_of_f32_bits",
  "float16 float32": "f32_bits_of_f16_bits",
  "float16 int32": "f16_to_i32",
  "int32 float16": "i32_to_f16",
};

/**
 * Whether the GPU converts `from` to `to`.
 *
 * @param from The source dtype.
 * @param to The target dtype.
 * @returns `true` for float32 ↔ int32, float32 ↔ float16 and float16 ↔
 * int32.
 *
 * @example Usage
 * ```ts
 * import { gpuCasts } from "./cast.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(gpuCasts("int32", "float32"), true);
 * assertEquals(gpuCasts("float32", "bool"), false);
 * ```
 */
export function gpuCasts(from: DType, to: DType): boolean {
  return GPU_CAST.some(([f, t]) => f === from && t === to);
}

/**
 * Converts between float32, float16 and int32, exactly as the CPU does.
 *
 * @param batch Where the dispatch goes.
 * @param x A float32, float16 or int32 tensor.
 * @param dtype Another of the three.
 * @returns A new GPU tensor of `dtype` and x's shape.
 * @throws {TypeError} If the conversion is not in {@linkcode GPU_CAST}.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { cast } from "./cast.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([-1.7, 2.5, NaN, 3e9], "float32"));
 *   const [y] = await batch.read([cast(batch, x, "int32")]);
 *   assertEquals(y.toNested(), [-1, 2, 0, -1294967296]);
 *   gpu.destroy();
 * }
 * ```
 */
export function cast(batch: GpuBatch, x: GpuTensor, dtype: DType): GpuTensor {
  if (!gpuCasts(x.dtype, dtype)) {
    throw new TypeError(
      `cast: no GPU kernel from "${x.dtype}" to "${dtype}"`,
    );
  }
  const to = dtype as GpuDType;
  const out = batch.allocate(to, x.shape);
  if (out.size === 0) return out;
  const convert = CONVERT[`${x.dtype} ${to}`];
  const pipeline = batch.pipelines.get(
    { op: "cast", dtype: x.dtype, variant: to },
    () => castWgsl(convert, [x.dtype === "float16", to === "float16"]),
  );
  const steps = to === "float16" ? Math.ceil(out.size / 2) : out.size;
  batch.dispatch({
    pipeline,
    buffers: [x.buffer, out.buffer],
    params: new Uint32Array([out.size]),
    workgroups: [
      Math.max(1, Math.min(MAX_WORKGROUPS, Math.ceil(steps / WORKGROUP))),
    ],
  });
  return out;
}

// The conversions on bits; `convert` names the one the kernel calls.
// float16 elements are halves of words: read with half_of, and written a
// word per step when the result is float16.
function castWgsl(
  convert: string,
  [fromHalves, toHalves]: [boolean, boolean],
): string {
  const element = fromHalves ? "half_of(X[i >> 1u], i)" : "X[i]";
  const loop = toHalves
    ? `
  for (var w = g.x; w < (n + 1u) / 2u; w += nw.x * ${WORKGROUP}u) {
    let i = 2u * w;
    var high = 0u;
    if (i + 1u < n) { high = ${convert}(X[i + 1u]); }
    O[w] = ${convert}(X[i]) | (high << 16u);
  }`
    : `
  for (var i = g.x; i < n; i += nw.x * ${WORKGROUP}u) {
    O[i] = ${convert}(${element});
  }`;
  return `
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read> X: array<u32>;
@group(0) @binding(2) var<storage, read_write> O: array<u32>;
${F16_WGSL}

// ToInt32 of a float32's bits: |x| = m · 2^(e - 23) with m the 24-bit
// significand, so the truncated magnitude is m shifted right (e < 23) or
// left (e >= 23, dropping bits above 2^32: the wrap), and the sign negates
// modulo 2^32.
fn f32_to_i32(bits: u32) -> u32 {
  let biased = (bits >> 23u) & 0xffu;
  if (biased == 0xffu || biased < 127u) { return 0u; } // NaN, ±Inf, |x| < 1
  let e = biased - 127u;
  let m = (bits & 0x7fffffu) | 0x800000u;
  var mag = 0u;
  if (e <= 23u) { mag = m >> (23u - e); }
  else if (e < 55u) { mag = m << (e - 23u); }
  return select(mag, 0u - mag, (bits >> 31u) == 1u);
}

// The float32 bits nearest an int32, ties to even: keep the top 24 bits of
// the magnitude and round on the rest. A carry out of the significand
// (m = 2^24) lands in the exponent field, which is the right result.
fn i32_to_f32(bits: u32) -> u32 {
  let negative = (bits >> 31u) == 1u;
  let mag = select(bits, 0u - bits, negative); // 2^31 stays 2^31 as u32
  if (mag == 0u) { return 0u; }
  let top = 31u - countLeadingZeros(mag);
  var m = mag;
  if (top <= 23u) {
    m = mag << (23u - top);
  } else {
    let shift = top - 23u;
    m = mag >> shift;
    let rest = mag & ((1u << shift) - 1u);
    let half = 1u << (shift - 1u);
    if (rest > half || (rest == half && (m & 1u) == 1u)) { m += 1u; }
  }
  let magnitude = ((top + 127u) << 23u) + (m - 0x800000u);
  return select(magnitude, magnitude | 0x80000000u, negative);
}

fn i32_to_f16(bits: u32) -> u32 { return f16_bits_of_f32_bits(i32_to_f32(bits)); }

// Truncation of a float16: |x| = m · 2^(e - 25) with m the 11-bit
// significand and e the biased exponent (15 is 2^0); at most 65504, so no
// wrap.
fn f16_to_i32(h: u32) -> u32 {
  let e = (h >> 10u) & 0x1fu;
  if (e == 0x1fu || e < 15u) { return 0u; } // NaN, ±Inf, |x| < 1
  let m = (h & 0x3ffu) | 0x400u;
  var mag = 0u;
  if (e <= 25u) { mag = m >> (25u - e); } else { mag = m << (e - 25u); }
  return select(mag, 0u - mag, (h >> 15u) == 1u);
}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) g: vec3<u32>,
        @builtin(num_workgroups) nw: vec3<u32>) {
  let n = p[0];${loop}
}`;
}
