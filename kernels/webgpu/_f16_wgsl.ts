// WGSL for float16 tensors: conversions on bits and the 16-bit store.
//
// How float16 lives on the GPU: two elements per 32-bit word, element i in
// the low half of word i / 2 when i is even, the high half when odd (the
// byte order of a Float16Array). Kernels that compute read float16
// operands as `array<f16>` (`enable f16;`, so only where the device has
// shader-f16) and widen them to f32, which is exact; they compute in f32.
// Copies and casts read and write words and move or convert bits.
//
// Known gap: WGSL lets an implementation flush subnormal operands, and the
// f16 → f32 widening may count as an operation; llvmpipe keeps them (the
// tests run every float16 value through every unary kernel and the casts).
//
// Why results are rounded here, on integers: WGSL leaves the rounding of an
// f32 → f16 conversion to the implementation (either neighbour) and makes an
// out-of-range one indeterminate, and naga cannot bitcast between u32 and
// vec2<f16>. So every float16 result is rounded from the f32 bits by
// f16_bits_of_f32_bits: to nearest, ties to even, overflowing to ±Infinity
// from 65520 on and keeping subnormals, exactly as a Float16Array store.
//
// Why 16-bit results are written as words: two invocations writing the two
// halves of one word with a plain read-modify-write would race. A kernel
// either writes whole words (each invocation computes both halves) or
// stores one half with store_half (two atomics, each touching only its
// own half, so any interleaving leaves both halves right).

/**
 * The directive every kernel that declares an `f16` binding starts with.
 *
 * @example Usage
 * ```ts
 * import { ENABLE_F16 } from "./_f16_wgsl.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(ENABLE_F16, "enable f16;");
 * ```
 */
export const ENABLE_F16 = "enable f16;";

/**
 * The WGSL prelude of float16 kernels: `f32_to_f16` (f32 → f16 bits,
 * rounded to nearest even), `f16_to_f32` (f16 bits → f32, exact),
 * `f16_round` (an f32 rounded to float16 precision) and `half_of` (element
 * i's bits from its word). Integer arithmetic only: no float operation
 * that a compiler could flush or canonicalize.
 *
 * @example Usage
 * ```ts
 * import { F16_WGSL } from "./_f16_wgsl.ts";
 * import { assertStringIncludes } from "@std/assert";
 *
 * assertStringIncludes(F16_WGSL, "fn f32_to_f16(");
 * ```
 */
export const F16_WGSL: string = `
// NaN stays NaN (quiet, sign kept); from 65520 (halfway between 65504 and
// 2^16, where ties go to the even 2^16) on, ±Infinity; below 2^-14 the
// result is a multiple of 2^-24 (a subnormal), and at most 2^-25 it is ±0.
fn f16_bits_of_f32_bits(b: u32) -> u32 {
  let sign = (b >> 16u) & 0x8000u;
  let a = b & 0x7fffffffu;
  if (a > 0x7f800000u) { return sign | 0x7e00u; }
  if (a >= 0x477ff000u) { return sign | 0x7c00u; }
  var h: u32; var rest: u32; var half: u32;
  if (a >= 0x38800000u) {
    // Rebias the exponent (127 → 15) and drop 13 bits; a carry out of the
    // significand lands in the exponent, which is the right result.
    let r = a - 0x38000000u;
    h = r >> 13u; rest = r & 0x1fffu; half = 0x1000u;
  } else if (a > 0x33000000u) {
    // |x| = m · 2^(e - 150) = (m >> (126 - e)) · 2^-24, shift in 14 ..= 24.
    let shift = 126u - (a >> 23u);
    let m = (a & 0x7fffffu) | 0x800000u;
    h = m >> shift; rest = m & ((1u << shift) - 1u); half = 1u << (shift - 1u);
  } else {
    return sign;
  }
  if (rest > half || (rest == half && (h & 1u) == 1u)) { h += 1u; }
  return sign | h;
}
fn f32_bits_of_f16_bits(h: u32) -> u32 {
  let sign = (h & 0x8000u) << 16u;
  let e = (h >> 10u) & 0x1fu;
  let m = h & 0x3ffu;
  if (e == 0x1fu) { return sign | 0x7f800000u | (m << 13u); }
  if (e != 0u) { return sign | ((e + 112u) << 23u) | (m << 13u); }
  if (m == 0u) { return sign; }
  // A subnormal m · 2^-24 is a normal f32: its top bit becomes the hidden one.
  let top = 31u - countLeadingZeros(m);
  return sign | ((top + 103u) << 23u) | ((m << (23u - top)) & 0x7fffffu);
}
fn f32_to_f16(x: f32) -> u32 { return f16_bits_of_f32_bits(bitcast<u32>(x)); }
fn f16_to_f32(h: u32) -> f32 { return bitcast<f32>(f32_bits_of_f16_bits(h)); }
fn f16_round(x: f32) -> f32 { return f16_to_f32(f32_to_f16(x)); }
fn half_of(word: u32, i: u32) -> u32 { return (word >> ((i & 1u) * 16u)) & 0xffffu; }
`;

/**
 * WGSL for `store_half(i, h)`: writes the 16 bits `h` as element `i` of an
 * `array<atomic<u32>>` binding, leaving the other half of its word alone
 * even when another invocation writes that half at the same time.
 *
 * @param buffer The name of the `array<atomic<u32>>` binding.
 * @returns WGSL source of the function.
 *
 * @example Usage
 * ```ts
 * import { halfStoreWgsl } from "./_f16_wgsl.ts";
 * import { assertStringIncludes } from "@std/assert";
 *
 * assertStringIncludes(halfStoreWgsl("O"), "atomicOr(&O[i >> 1u]");
 * ```
 */
export function halfStoreWgsl(buffer: string): string {
  return `
fn store_half(i: u32, h: u32) {
  let shift = (i & 1u) * 16u;
  atomicAnd(&${buffer}[i >> 1u], ~(0xffffu << shift));
  atomicOr(&${buffer}[i >> 1u], h << shift);
}`;
}
