// The WGSL of the normalization kernels (norm.ts, which states the
// layout walk and the parameters): a workgroup per group walking any
// layout, or contiguous groups as vec4s, or one invocation per group.
//
// Invariants: every variant takes the same parameter words and bindings
// (p, X, S, B, Y, M, V; S and B read as vec4s by the rows walk) and
// writes a non-finite group's results as NaN.

import { IEEE_WGSL } from "./_ieee_wgsl.ts";

/** Invocations per workgroup of every variant. */
export const NORM_WORKGROUP = 64;
const WORKGROUP = NORM_WORKGROUP;

// The sum of the workgroup's shares in `part`, in a fixed tree; called in
// uniform control flow.
const TREE_WGSL = `
fn tree(l: u32) -> f32 {
  workgroupBarrier();
  for (var s = ${WORKGROUP / 2}u; s > 0u; s = s >> 1u) {
    if (l < s) { part[l] = part[l] + part[l + s]; }
    workgroupBarrier();
  }
  let v = part[0];
  workgroupBarrier();
  return v;
}`;

// p: [groups, len, aMod, aOuter, aInner, aW, aRow, pMod, pStride, pDiv,
// pW, has scale, has bias, second is the inverse, epsilon's bits].
// Workgroups past the last group (the 2-D grid rounds up) redo the last
// group and write the same values; `r` is uniform in the workgroup, so
// the barriers are in uniform control flow.
/**
 * The strided walk: a workgroup per group, any layout an element at a
 * time.
 *
 * @returns WGSL source with entry point `main`.
 *
 * @example Usage
 * ```ts
 * import { normWgsl } from "./_norm_wgsl.ts";
 * import { assertStringIncludes } from "@std/assert";
 *
 * assertStringIncludes(normWgsl(), "fn main");
 * ```
 */
export function normWgsl(): string {
  return `
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read> X: array<f32>;
@group(0) @binding(2) var<storage, read> S: array<f32>;
@group(0) @binding(3) var<storage, read> B: array<f32>;
@group(0) @binding(4) var<storage, read_write> Y: array<f32>;
@group(0) @binding(5) var<storage, read_write> M: array<f32>;
@group(0) @binding(6) var<storage, read_write> V: array<f32>;
${IEEE_WGSL}
var<workgroup> part: array<f32, ${WORKGROUP}>;
fn at(r: u32, k: u32) -> u32 {
  return (r / p[2]) * p[3] + (r % p[2]) * p[4] + (k / p[5]) * p[6] + k % p[5];
}
fn param(r: u32, k: u32) -> u32 { return (r % p[7]) * p[8] + (k / p[9]) % p[10]; }
${TREE_WGSL}
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) w: vec3<u32>,
        @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
  let r = min(w.x + w.y * nw.x, p[0] - 1u);
  let n = p[1];
  var s = 0.0;
  for (var k = l; k < n; k += ${WORKGROUP}u) { s += X[at(r, k)]; }
  part[l] = s;
  let mean = select(nan_f32(), tree(l) / f32(n), n > 0u);
  var q = 0.0;
  for (var k = l; k < n; k += ${WORKGROUP}u) {
    let d = X[at(r, k)] - mean;
    q += d * d;
  }
  part[l] = q;
  let variance = select(nan_f32(), tree(l) / f32(n), n > 0u);
  let finite = !is_nan(variance) && !is_inf(variance) && !is_nan(mean) && !is_inf(mean);
  let inv = select(nan_f32(), 1.0 / sqrt(variance + bitcast<f32>(p[14])), finite);
  if (l == 0u) {
    M[r] = mean;
    V[r] = select(variance, inv, p[13] == 1u);
  }
  for (var k = l; k < n; k += ${WORKGROUP}u) {
    let i = at(r, k); let j = param(r, k);
    let sc = select(1.0, S[j], p[11] == 1u);
    let b = select(0.0, B[j], p[12] == 1u);
    Y[i] = select(nan_f32(), (X[i] - mean) * inv * sc + b, finite);
  }
}`;
}

// The contiguous walks (norm.ts, variantOf) with the parameters of normWgsl: group
// r is the vec4s [r·len/4, (r + 1)·len/4); `rows` reads the scale and bias
// as vec4s at the same offset in the row, else one of each per vec4 (the
// plane's, pDiv a multiple of 4).
/**
 * The contiguous walks as vec4s, a workgroup per group.
 *
 * @param rows Read the scale and bias as vec4s at the row's offset
 * (layer norm), else one of each per vec4.
 * @returns WGSL source with entry point `main`.
 *
 * @example Usage
 * ```ts
 * import { normVec4Wgsl } from "./_norm_wgsl.ts";
 * import { assertStringIncludes } from "@std/assert";
 *
 * assertStringIncludes(normVec4Wgsl(true), "array<vec4<f32>>");
 * ```
 */
export function normVec4Wgsl(rows: boolean): string {
  const pt = rows ? "vec4<f32>" : "f32";
  const param = rows ? "q" : "(r % p[7]) * p[8] + ((4u * q) / p[9]) % p[10]";
  return `
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read> X: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> S: array<${pt}>;
@group(0) @binding(3) var<storage, read> B: array<${pt}>;
@group(0) @binding(4) var<storage, read_write> Y: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> M: array<f32>;
@group(0) @binding(6) var<storage, read_write> V: array<f32>;
${IEEE_WGSL}
var<workgroup> part: array<f32, ${WORKGROUP}>;
${TREE_WGSL}
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) w: vec3<u32>,
        @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
  let r = min(w.x + w.y * nw.x, p[0] - 1u);
  let n = p[1]; let n4 = n / 4u; let base = r * n4;
  var s = vec4<f32>(0.0);
  for (var q = l; q < n4; q += ${WORKGROUP}u) { s += X[base + q]; }
  part[l] = (s.x + s.y) + (s.z + s.w);
  let mean = select(nan_f32(), tree(l) / f32(n), n > 0u);
  var d2 = vec4<f32>(0.0);
  for (var q = l; q < n4; q += ${WORKGROUP}u) {
    let d = X[base + q] - vec4<f32>(mean);
    d2 += d * d;
  }
  part[l] = (d2.x + d2.y) + (d2.z + d2.w);
  let variance = select(nan_f32(), tree(l) / f32(n), n > 0u);
  let finite = !is_nan(variance) && !is_inf(variance) && !is_nan(mean) && !is_inf(mean);
  let inv = select(nan_f32(), 1.0 / sqrt(variance + bitcast<f32>(p[14])), finite);
  if (l == 0u) {
    M[r] = mean;
    V[r] = select(variance, inv, p[13] == 1u);
  }
  for (var q = l; q < n4; q += ${WORKGROUP}u) {
    let j = ${param};
    let sc = select(${pt}(1.0), S[j], p[11] == 1u);
    let b = select(${pt}(0.0), B[j], p[12] == 1u);
    let y = (X[base + q] - vec4<f32>(mean)) * inv * sc + b;
    Y[base + q] = select(vec4<f32>(nan_f32()), y, finite);
  }
}`;
}

// One invocation per group (variantOf's "each"), in sequence, with the
// parameters and bindings of normWgsl.
/**
 * One invocation per group, summing in sequence.
 *
 * @returns WGSL source with entry point `main`.
 *
 * @example Usage
 * ```ts
 * import { normEachWgsl } from "./_norm_wgsl.ts";
 * import { assertStringIncludes } from "@std/assert";
 *
 * assertStringIncludes(normEachWgsl(), "fn main");
 * ```
 */
export function normEachWgsl(): string {
  return `
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read> X: array<f32>;
@group(0) @binding(2) var<storage, read> S: array<f32>;
@group(0) @binding(3) var<storage, read> B: array<f32>;
@group(0) @binding(4) var<storage, read_write> Y: array<f32>;
@group(0) @binding(5) var<storage, read_write> M: array<f32>;
@group(0) @binding(6) var<storage, read_write> V: array<f32>;
${IEEE_WGSL}
fn at(r: u32, k: u32) -> u32 {
  return (r / p[2]) * p[3] + (r % p[2]) * p[4] + (k / p[5]) * p[6] + k % p[5];
}
fn param(r: u32, k: u32) -> u32 { return (r % p[7]) * p[8] + (k / p[9]) % p[10]; }
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nw: vec3<u32>) {
  let r = gid.x + gid.y * nw.x * ${WORKGROUP}u;
  if (r >= p[0]) { return; }
  let n = p[1];
  var s = 0.0;
  for (var k = 0u; k < n; k++) { s += X[at(r, k)]; }
  let mean = select(nan_f32(), s / f32(n), n > 0u);
  var q = 0.0;
  for (var k = 0u; k < n; k++) {
    let d = X[at(r, k)] - mean;
    q += d * d;
  }
  let variance = select(nan_f32(), q / f32(n), n > 0u);
  let finite = !is_nan(variance) && !is_inf(variance) && !is_nan(mean) && !is_inf(mean);
  let inv = select(nan_f32(), 1.0 / sqrt(variance + bitcast<f32>(p[14])), finite);
  M[r] = mean;
  V[r] = select(variance, inv, p[13] == 1u);
  for (var k = 0u; k < n; k++) {
    let i = at(r, k); let j = param(r, k);
    let sc = select(1.0, S[j], p[11] == 1u);
    let b = select(0.0, B[j], p[12] == 1u);
    Y[i] = select(nan_f32(), (X[i] - mean) * inv * sc + b, finite);
  }
}`;
}
