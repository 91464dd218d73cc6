// WGSL functions that give float32 results with the CPU's special values
// (kernels/cpu/alu.ts: JS Math on float64, rounded once).
//
// Why bit patterns: WGSL lets a compiler assume that floats are finite, so
// `x != x`, `max`, `min`, `pow`, `log` and `tanh` may do anything with NaN
// or infinity. Every function here decides NaN, ±Infinity and ±0 from
// `bitcast<u32>` first and only hands finite, in-domain values to a builtin.
// NaN and Infinity are made from bits read from a private variable, so no
// constant expression ever evaluates to one (that is a compile error).
//
// Known gap: WGSL may flush subnormal inputs to zero; such inputs may give
// another answer than the CPU's (log of a subnormal gives -Infinity).

/**
 * The WGSL prelude every float32 elementwise kernel includes.
 *
 * @example Usage
 * ```ts
 * import { IEEE_WGSL } from "./_ieee_wgsl.ts";
 * import { assertStringIncludes } from "@std/assert";
 *
 * assertStringIncludes(IEEE_WGSL, "fn is_nan(");
 * ```
 */
export const IEEE_WGSL: string = `
var<private> NAN_BITS: u32 = 0x7fc00000u;
var<private> INF_BITS: u32 = 0x7f800000u;
fn nan_f32() -> f32 { return bitcast<f32>(NAN_BITS); }
fn inf_f32(negative: bool) -> f32 {
  return bitcast<f32>(select(INF_BITS, INF_BITS | 0x80000000u, negative));
}
fn is_nan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
fn is_inf(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }
fn is_neg(x: f32) -> bool { return (bitcast<u32>(x) & 0x80000000u) != 0u; }
fn f_abs(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) & 0x7fffffffu); }
fn with_sign_of(v: f32, s: f32) -> f32 {
  return bitcast<f32>((bitcast<u32>(v) & 0x7fffffffu) | (bitcast<u32>(s) & 0x80000000u));
}
// Math.max: NaN wins; +0 beats -0 (the AND of the bits of equal values).
fn f_max(a: f32, b: f32) -> f32 {
  if (is_nan(a) || is_nan(b)) { return nan_f32(); }
  if (a > b) { return a; }
  if (b > a) { return b; }
  return bitcast<f32>(bitcast<u32>(a) & bitcast<u32>(b));
}
fn f_min(a: f32, b: f32) -> f32 {
  if (is_nan(a) || is_nan(b)) { return nan_f32(); }
  if (a < b) { return a; }
  if (b < a) { return b; }
  return bitcast<f32>(bitcast<u32>(a) | bitcast<u32>(b));
}
fn f_compare(a: f32, b: f32, result: bool, if_nan: bool) -> u32 {
  if (is_nan(a) || is_nan(b)) { return select(0u, 1u, if_nan); }
  return select(0u, 1u, result);
}
fn f_relu(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  return select(0.0, x, x > 0.0);
}
// Beyond ±88.72284 the float32 result is +Infinity or rounds to zero.
fn f_exp(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  if (x > 88.72284) { return inf_f32(false); }
  if (x < -104.0) { return 0.0; }
  return exp(x);
}
fn f_log(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  if (x == 0.0) { return inf_f32(true); }
  if (is_neg(x)) { return nan_f32(); }
  if (is_inf(x)) { return x; }
  return log(x);
}
fn f_sqrt(x: f32) -> f32 {
  if (is_nan(x) || x == 0.0 || (is_inf(x) && !is_neg(x))) { return x; }
  if (is_neg(x)) { return nan_f32(); }
  return sqrt(x);
}
fn f_sigmoid(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  return 1.0 / (1.0 + f_exp(-x));
}
// Below 0.5 a Taylor polynomial (relative error < 1e-7) avoids the
// cancellation of 1 - 2/(e^2x + 1); above 10 tanh rounds to ±1.
fn f_tanh(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  let a = f_abs(x);
  var t = 1.0;
  if (a < 0.5) {
    let s = a * a;
    t = a * (1.0 + s * (-0.33333333333 + s * (0.13333333333 + s * (-0.053968253968
      + s * (0.021869488536 + s * (-0.0088632355299 + s * 0.0035921280366))))));
  } else if (a < 10.0) {
    t = 1.0 - 2.0 / (exp(2.0 * a) + 1.0);
  }
  return with_sign_of(t, x);
}
fn f_round(x: f32) -> f32 {
  if (is_nan(x) || is_inf(x)) { return x; }
  let t = trunc(x);
  if (f_abs(x - t) >= 0.5) { return t + with_sign_of(1.0, x); }
  return t;
}
fn f_floor(x: f32) -> f32 {
  if (is_nan(x) || is_inf(x)) { return x; }
  return floor(x);
}
fn f_ceil(x: f32) -> f32 {
  if (is_nan(x) || is_inf(x)) { return x; }
  return ceil(x);
}
fn is_odd_integer(b: f32) -> bool {
  // Every float32 of magnitude >= 2^24 is even.
  return trunc(b) == b && f_abs(b) < 16777216.0 && (i32(b) & 1) != 0;
}
// Math.pow's special cases (ECMAScript), then exp2(b · log2|a|) with the
// sign of an odd integer power; small integer powers multiply instead.
fn f_pow(a: f32, b: f32) -> f32 {
  if (is_nan(b)) { return b; }
  if (b == 0.0) { return 1.0; }
  if (is_nan(a)) { return a; }
  let aa = f_abs(a);
  let odd = is_odd_integer(b);
  if (is_inf(b)) {
    if (aa == 1.0) { return nan_f32(); }
    return select(0.0, inf_f32(false), (aa > 1.0) == (b > 0.0));
  }
  if (a == 0.0 || is_inf(a)) {
    let big = (b > 0.0) == is_inf(a);
    let negative = is_neg(a) && odd;
    if (big) { return inf_f32(negative); }
    return select(0.0, -0.0, negative);
  }
  if (is_neg(a) && trunc(b) != b) { return nan_f32(); }
  var r: f32;
  if (trunc(b) == b && f_abs(b) <= 64.0) {
    r = 1.0;
    var base = aa;
    var e = u32(f_abs(b));
    loop {
      if ((e & 1u) != 0u) { r = r * base; }
      e = e >> 1u;
      if (e == 0u) { break; }
      base = base * base;
    }
    if (b < 0.0) { r = 1.0 / r; }
  } else {
    let l = b * log2(aa);
    if (l >= 128.0) { r = inf_f32(false); }
    else if (l < -150.0) { r = 0.0; }
    else { r = exp2(l); }
  }
  if (is_neg(a) && odd) { return -r; }
  return r;
}
`;
