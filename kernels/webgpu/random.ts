// Random fills on the GPU: Philox4x32-10 in WGSL, with the CPU kernels'
// element-to-draw mapping (kernels/counter_random.ts), so a fill written
// here has the values kernels/cpu/fill.ts computes for the same key.
//
// Invariants:
//   One invocation per block of four elements (a grid-stride loop over
//   blocks): block b is Philox of the counter [b, 0, 0, 0] (a GPU buffer
//   holds fewer than 2^32 blocks, so the counter's high word is 0, as on
//   the CPU), word j is element 4b + j.
//   Uniform float32 is bit-identical to the CPU: u is exact in f32, and
//   `span * u` then `+ lo` are two correctly rounded f32 operations (WGSL
//   requires that of * and +), which the CPU reproduces with Math.fround.
//   The product passes through an xor with a parameter word that is always
//   0, so no compiler can fuse the two into one FMA (one rounding, which
//   the CPU does not do). A subnormal result may be flushed to zero.
//   Gaussian float32 agrees with the CPU within TOLERANCE.gaussian_random:
//   the angle is reduced to [-π/4, π/4] exactly (it is a multiple of
//   2π·2^-24) and its sine and cosine are polynomials, so the error does
//   not depend on the driver's sin and cos (WGSL bounds those only to
//   2^-11); ln(1 - u) for u <= 1/2 is the atanh series, since WGSL bounds
//   log near 1 only absolutely.

import type { CounterKey } from "../counter_random.ts";
import type { GpuBatch } from "./gpu_batch.ts";
import type { GpuTensor } from "./gpu_tensor.ts";
import { WORKGROUP, workgroups } from "./_strided_copy.ts";

/**
 * A float32 tensor of uniform samples in `[min, max)`, on the GPU: the same
 * bits as the CPU's `uniformRandom` for the same key.
 *
 * @param batch Where the dispatch goes.
 * @param shape The dims.
 * @param min The lower bound.
 * @param max The upper bound.
 * @param key The generator's key.
 * @returns A new float32 GPU tensor.
 * @throws {RangeError} If the tensor exceeds the device's limits, or the
 * bounds or their difference are not finite in float32.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { uniformFill } from "./random.ts";
 * import { uniformRandom } from "../cpu/fill.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const [t] = await batch.read([uniformFill(batch, [5], -1, 1, [7, 0])]);
 *   assertEquals(t.toNested(), uniformRandom([5], "float32", -1, 1, [7, 0]).toNested());
 *   gpu.destroy();
 * }
 * ```
 */
export function uniformFill(
  batch: GpuBatch,
  shape: readonly number[],
  min: number,
  max: number,
  key: CounterKey,
): GpuTensor {
  const lo = Math.fround(min);
  const span = Math.fround(Math.fround(max) - lo);
  if (!Number.isFinite(lo) || !Number.isFinite(span)) {
    throw new RangeError(
      `uniform_random: bounds ${min} and ${max} are not finite in float32`,
    );
  }
  return fill(batch, "uniform_random", UNIFORM_WGSL, shape, key, [lo, span]);
}

/**
 * A float32 tensor of normal samples, on the GPU: the CPU's
 * `gaussianRandom` for the same key, within `TOLERANCE.gaussian_random`.
 *
 * @param batch Where the dispatch goes.
 * @param shape The dims.
 * @param mean The distribution's mean.
 * @param std Its standard deviation.
 * @param key The generator's key.
 * @returns A new float32 GPU tensor.
 * @throws {RangeError} If the tensor exceeds the device's limits, or a
 * sample could leave the float32 range (`|mean| + 6·|std|` is not finite).
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { gaussianFill } from "./random.ts";
 * import { gaussianRandom } from "../cpu/fill.ts";
 * import { assert } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const [t] = await batch.read([gaussianFill(batch, [5], 0, 1, [7, 0])]);
 *   const cpu = gaussianRandom([5], "float32", 0, 1, [7, 0]);
 *   for (let i = 0; i < 5; i++) {
 *     assert(Math.abs(Number(t.item(i)) - Number(cpu.item(i))) < 1e-5);
 *   }
 *   gpu.destroy();
 * }
 * ```
 */
export function gaussianFill(
  batch: GpuBatch,
  shape: readonly number[],
  mean: number,
  std: number,
  key: CounterKey,
): GpuTensor {
  const [m, s] = [Math.fround(mean), Math.fround(std)];
  if (!(Math.fround(Math.abs(m) + 6 * Math.abs(s)) < Infinity)) {
    throw new RangeError(
      `gaussian_random: mean ${mean} and std ${std} leave the float32 range`,
    );
  }
  return fill(batch, "gaussian_random", GAUSSIAN_WGSL, shape, key, [m, s]);
}

// Records one fill. Parameters: p[0] = n, p[1..2] = the key, p[3..4] = the
// two float32 arguments, p[5] = 0 (the opaque zero of the uniform kernel).
function fill(
  batch: GpuBatch,
  op: string,
  wgsl: string,
  shape: readonly number[],
  key: CounterKey,
  args: readonly [number, number],
): GpuTensor {
  const out = batch.allocate("float32", shape);
  if (out.size === 0) return out;
  const params = new Uint32Array(6);
  params[0] = out.size;
  params[1] = key[0];
  params[2] = key[1];
  new Float32Array(params.buffer, 12, 2).set(args);
  const pipeline = batch.pipelines.get({ op, dtype: "float32" }, () => wgsl);
  batch.dispatch({
    pipeline,
    buffers: [out.buffer],
    params,
    workgroups: workgroups(Math.ceil(out.size / 4)),
  });
  return out;
}

// Philox4x32-10 on u32, as kernels/counter_random.ts.
const PHILOX_WGSL = `
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read_write> O: array<f32>;

fn mul_hi(a: u32, b: u32) -> u32 {
  let a_lo = a & 0xffffu; let a_hi = a >> 16u;
  let b_lo = b & 0xffffu; let b_hi = b >> 16u;
  let lohi = a_lo * b_hi; let hilo = a_hi * b_lo;
  let carry = (((a_lo * b_lo) >> 16u) + (lohi & 0xffffu) + (hilo & 0xffffu)) >> 16u;
  return a_hi * b_hi + (lohi >> 16u) + (hilo >> 16u) + carry;
}

fn philox(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
  var x = counter;
  var k = key;
  for (var r = 0u; r < 10u; r++) {
    if (r > 0u) { k += vec2<u32>(0x9e3779b9u, 0xbb67ae85u); }
    let hi0 = mul_hi(0xd2511f53u, x.x); let lo0 = 0xd2511f53u * x.x;
    let hi1 = mul_hi(0xcd9e8d57u, x.z); let lo1 = 0xcd9e8d57u * x.z;
    x = vec4<u32>(hi1 ^ x.y ^ k.x, lo1, hi0 ^ x.w ^ k.y, lo0);
  }
  return x;
}

// The [0, 1) float of a word: its top 24 bits times 2^-24, exact.
fn unit(w: u32) -> f32 { return f32(w >> 8u) * 5.9604644775390625e-8; }
`;

// Fills elements 4b..4b+3 (those below n) from block b's four words.
function blockLoop(body: string): string {
  return `
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) g: vec3<u32>,
        @builtin(num_workgroups) nw: vec3<u32>) {
  let n = p[0];
  let blocks = (n + 3u) / 4u;
  let key = vec2<u32>(p[1], p[2]);
  for (var b = g.x; b < blocks; b += nw.x * ${WORKGROUP}u) {
    let w = philox(vec4<u32>(b, 0u, 0u, 0u), key);
    let i = b * 4u;
${body}
  }
}`;
}

// element = f32(f32(span * u) + lo); the xor with p[5] (always 0) keeps the
// product rounded on its own.
const UNIFORM_WGSL = `${PHILOX_WGSL}
fn uniform_at(w: u32, lo: f32, span: f32, zero: u32) -> f32 {
  let product = bitcast<f32>(bitcast<u32>(span * unit(w)) ^ zero);
  return product + lo;
}
${
  blockLoop(`
    let lo = bitcast<f32>(p[3]); let span = bitcast<f32>(p[4]); let zero = p[5];
    for (var j = 0u; j < 4u; j++) {
      if (i + j < n) { O[i + j] = uniform_at(w[j], lo, span, zero); }
    }`)
}`;

// Box–Muller: words (0, 1) and (2, 3) each give a cosine and a sine sample.
// r = sqrt(-2 ln(1 - u1)); for u1 <= 1/2, ln(1 - u1) = 2 atanh(s) with
// s = -u1 / (2 - u1), |s| <= 1/3, summed to s^15 (the rest is below
// 2^-26 relative); beyond, log's relative bound applies (its argument is
// below 1/2). The angle is 2π·k·2^-24 for k the top 24 bits of u2: m, the
// nearest quarter turn, and the rest x in [-π/4, π/4]; sin and cos of x are
// their Taylor polynomials to x^9 and x^10 (truncation below 2e-9).
const GAUSSIAN_WGSL = `${PHILOX_WGSL}
fn radius(w: u32) -> f32 {
  let u = unit(w);
  if (u <= 0.5) {
    let s = -u / (2.0 - u);
    let s2 = s * s;
    let series = 1.0 + s2 * (1.0 / 3.0 + s2 * (1.0 / 5.0 + s2 * (1.0 / 7.0 +
      s2 * (1.0 / 9.0 + s2 * (1.0 / 11.0 + s2 * (1.0 / 13.0 + s2 / 15.0))))));
    return sqrt(-4.0 * s * series);
  }
  return sqrt(-2.0 * log(1.0 - u));
}

// (cos, sin) of 2π·k·2^-24, for k < 2^24.
fn turn(k: u32) -> vec2<f32> {
  let q = (k + 0x200000u) >> 22u;
  let x = f32(i32(k) - i32(q << 22u)) * 3.7450702829239286e-7;
  let x2 = x * x;
  let s = x * (1.0 + x2 * (-1.0 / 6.0 + x2 * (1.0 / 120.0 + x2 * (-1.0 / 5040.0 +
    x2 * (1.0 / 362880.0)))));
  let c = 1.0 + x2 * (-0.5 + x2 * (1.0 / 24.0 + x2 * (-1.0 / 720.0 +
    x2 * (1.0 / 40320.0 + x2 * (-1.0 / 3628800.0)))));
  switch (q & 3u) {
    case 0u: { return vec2<f32>(c, s); }
    case 1u: { return vec2<f32>(-s, c); }
    case 2u: { return vec2<f32>(-c, -s); }
    default: { return vec2<f32>(s, -c); }
  }
}
${
  blockLoop(`
    let mean = bitcast<f32>(p[3]); let sd = bitcast<f32>(p[4]);
    for (var j = 0u; j < 4u; j += 2u) {
      let r = radius(w[j]);
      let cs = turn(w[j + 1u] >> 8u);
      if (i + j < n) { O[i + j] = mean + sd * (r * cs.x); }
      if (i + j + 1u < n) { O[i + j + 1u] = mean + sd * (r * cs.y); }
    }`)
}`;
