// Paddle's parameterized activations on the GPU: one WGSL expression per
// ActivationKind fed to the elementwise map templates, with the CPU's
// semantics (kernels/cpu/activation.ts).
//
// Invariants:
//   float32 and float16 only (float16 computes in f32 and rounds once);
//   the parameters travel as f32 bits after the size (p[1], p[2], ...),
//   in ACTIVATION_PARAMS order, so one pipeline serves every value.
//   NaN and ±Infinity are decided on bits (_ieee_wgsl.ts) before any
//   builtin sees them, and give what the CPU's formulas give (gelu and
//   swish of -Infinity are NaN, as in Paddle).
//   Where the CPU's formula would cancel in f32, the expression computes
//   the same function another way: elu's e^x - 1 as a Taylor polynomial
//   near 0, swish and gelu_tanh's x / (1 + e^t) as x·e^(-t/2)·e^(-t/2)
//   once 1 + e^t is e^t in f32 (t > 80; WGSL's division is accurate only
//   for divisors up to 2^126, and e^(-t) alone may be subnormal where the
//   product is not), and gelu's negative tail through erfc.
//
// gelu's erf: for |z| < 1 the positive series of kernels/cpu/activation.ts
// (12 terms: the 13th is below 2^-30 of the sum), else Laplace's continued
// fraction for erfc from depth 25 (within 2e-8 of its limit from z = 1
// on). In f32 the error is dominated by e^(-x²/2): x² rounds once
// (relative 2^-24, so about 2^-25·x² absolute in the exponent) and WGSL's
// exp adds its own; an f32 model of the kernel with an exact exp stays
// within 1.5e-5 of the float64 gelu down to x = -13, where gelu leaves the
// normal float32 range.

import type { ActivationKind } from "../kernel_kinds.ts";
import type { GpuBatch } from "./gpu_batch.ts";
import type { GpuTensor } from "./gpu_tensor.ts";
import { mapDispatch } from "./_elementwise_template.ts";
import { mapVec4Dispatch, vec4Fits } from "./_elementwise_vec4.ts";

// Functions the expressions call; `p` and the IEEE prelude come first.
const FUNCTIONS = `
fn prm(k: u32) -> f32 { return bitcast<f32>(p[k]); }
// erf(a), 0 <= a < 1; gauss = e^(-a²).
fn erf_series(a: f32, gauss: f32) -> f32 {
  let two_a2 = 2.0 * a * a;
  var term = a;
  var sum = a;
  for (var n = 0; n < 12; n++) {
    term = term * two_a2 / f32(2 * n + 3);
    sum += term;
  }
  return 1.1283791670955126 * gauss * sum;
}
// erfc(a), a >= 1 finite; gauss = e^(-a²).
fn erfc_fraction(a: f32, gauss: f32) -> f32 {
  let s = 2.0 * a * a;
  var f = s + 101.0;
  for (var n = 25; n > 0; n--) {
    f = s + f32(4 * n - 3) - f32((2 * n - 1) * 2 * n) / f;
  }
  return 1.1283791670955126 * a * gauss / f;
}
fn f_gelu(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  if (is_inf(x)) { return select(x, nan_f32(), is_neg(x)); }
  let z = x * 0.7071067811865476;
  let a = f_abs(z);
  let gauss = f_exp(-0.5 * (x * x));
  if (a < 1.0) {
    return 0.5 * x * (1.0 + with_sign_of(erf_series(a, gauss), z));
  }
  if (gauss == 0.0) { return select(x, with_sign_of(0.0, x), is_neg(x)); }
  let tail = erfc_fraction(a, gauss);
  if (is_neg(x)) { return 0.5 * x * tail; }
  return x * (1.0 - 0.5 * tail);
}
// x / (1 + e^t) for t > 80, where it is x·e^(-t): by halves, since e^(-t)
// alone leaves the normal range (and may flush) before the product does.
fn tiny_quotient(x: f32, t: f32) -> f32 {
  let half = f_exp(-0.5 * t);
  return x * half * half;
}
fn f_gelu_tanh(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  if (is_inf(x)) { return select(x, nan_f32(), is_neg(x)); }
  let t = -1.5957691216057308 * (x + 0.044715 * x * x * x);
  if (is_inf(t)) { return select(x, with_sign_of(0.0, x), t > 0.0); }
  if (t > 80.0) { return tiny_quotient(x, t); }
  return x / (1.0 + f_exp(t));
}
fn f_swish(x: f32, beta: f32) -> f32 {
  if (is_nan(x) || is_nan(beta)) { return x + beta; }
  if (is_inf(x)) {
    let grows = beta != 0.0 && (beta > 0.0) != is_neg(x);
    return select(nan_f32(), x, grows);
  }
  let t = -beta * x;
  if (t > 80.0) { return tiny_quotient(x, t); }
  return x / (1.0 + f_exp(t));
}
// e^x - 1 for x < 0, without the cancellation near 0.
fn f_expm1_neg(x: f32) -> f32 {
  if (x > -0.5) {
    return x * (1.0 + x * (0.5 + x * (0.16666666666666666 + x * (0.041666666666666664
      + x * (0.008333333333333333 + x * (0.001388888888888889
      + x * (0.0001984126984126984 + x * (0.0000248015873015873
      + x * 0.0000027557319223985893))))))));
  }
  return f_exp(x) - 1.0;
}
`;

const EXPRESSIONS: Readonly<Record<ActivationKind, string>> = {
  gelu: "f_gelu(a)",
  gelu_tanh: "f_gelu_tanh(a)",
  swish: "f_swish(a, prm(1u))",
  hard_swish: "a * f_min(f_max(a + prm(3u), 0.0), prm(1u)) / prm(2u)",
  hard_sigmoid: "f_max(0.0, f_min(1.0, prm(1u) * a + prm(2u)))",
  leaky_relu: "select(prm(1u) * a, a, a > 0.0)",
  relu6: "f_min(f_max(a, 0.0), prm(1u))",
  elu: "select(a, prm(1u) * f_expm1_neg(a), a < 0.0)",
  clip: "select(select(a, prm(2u), a > prm(2u)), prm(1u), a < prm(1u))",
  thresholded_relu: "select(prm(2u), a, a > prm(1u))",
};

/**
 * A parameterized activation of a float32 or float16 tensor, as the CPU's
 * `activation`.
 *
 * @param batch Where the dispatch goes.
 * @param kind The activation.
 * @param x A float32 or float16 tensor.
 * @param params The kind's parameters, as `ACTIVATION_PARAMS` lists them.
 * @returns A new GPU tensor of x's dtype and shape.
 * @throws {TypeError} If x is not a float tensor or the kind is unknown.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { activation } from "./activation.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([-4, 2, NaN], "float32"));
 *   const [y] = await batch.read([activation(batch, "leaky_relu", x, [0.5])]);
 *   assertEquals(y.toNested(), [-2, 2, NaN]);
 *   gpu.destroy();
 * }
 * ```
 */
export function activation(
  batch: GpuBatch,
  kind: ActivationKind,
  x: GpuTensor,
  params: readonly number[] = [],
): GpuTensor {
  const expr = EXPRESSIONS[kind] as string | undefined;
  const dtype = x.dtype;
  if (expr === undefined || (dtype !== "float32" && dtype !== "float16")) {
    throw new TypeError(`${kind}: no GPU kernel for dtype "${dtype}"`);
  }
  const words = new Uint32Array(Float32Array.from(params).buffer);
  const kernel = [kind, dtype, expr, "map", FUNCTIONS] as const;
  return vec4Fits(x.size, [x])
    ? mapVec4Dispatch(batch, [...kernel], x, [...words])
    : mapDispatch(batch, [...kernel], x, [...words]);
}
