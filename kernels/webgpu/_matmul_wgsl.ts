// WGSL sources of the matmul kernels (kernels/webgpu/matmul.ts chooses).
//
// Every kernel computes, for batch z (workgroup_id.z), C[z] = alpha · A · B
// with A at element offset p[5 + 2z] ([M, K] row-major), B at p[6 + 2z]
// ([K, N]) and C at (p[4] + z)·M·N. Parameters: p[0] = M, p[1] = K,
// p[2] = N, p[3] = alpha's bits, p[4] = the first batch of this dispatch.
// Out-of-range rows and columns are clamped on load (so every load is in
// bounds) and skipped on store.
//
// Why register blocks: on llvmpipe every storage load of a non-uniform
// address is emulated lane by lane, so loads, not FMAs, set the speed.
// An invocation that keeps an R×(4·V) block of C in registers loads R + 4V
// vec4s per 4 steps of k for 16·R·V multiply-adds; 8×8 measured about twice
// 4×4 at 1024², and shared-memory tiles no faster than registers alone.
//
// float16: A and B are read as f16 (vec4<f16> in the vec4 kernel) and
// widened to f32, which is exact, so products and sums are f32 as for
// float32; each element of C is rounded once to float16 on bits
// (_f16_wgsl.ts). The vec4 kernel writes a vec4 of C as two whole words;
// the others write single halves with store_half (a 4-wide block of an odd
// N may share a word with its neighbour's).

import { ENABLE_F16, F16_WGSL, halfStoreWgsl } from "./_f16_wgsl.ts";

/** The dtypes the matmul kernels take. */
export type MatmulDType = "float32" | "float16";

/** The shape of a register-blocked kernel. */
export interface BlockShape {
  /** Rows of C per invocation. */
  readonly rows: number;
  /** vec4 columns of C per invocation. */
  readonly vec4s: number;
  /** Workgroup size in x (columns) and y (rows). */
  readonly workgroup: readonly [number, number];
}

// The bindings, and `ld_a(i)`, `ld_b(i)` (element or vec4 i of A or B, in
// f32) and `store_c(i, v)` (element or vec4 i of C).
function header(dtype: MatmulDType, vec4: boolean): string {
  const f = vec4 ? "vec4<f32>" : "f32";
  if (dtype === "float32") {
    return `
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read> A: array<${f}>;
@group(0) @binding(2) var<storage, read> B: array<${f}>;
@group(0) @binding(3) var<storage, read_write> C: array<${f}>;
fn ld_a(i: u32) -> ${f} { return A[i]; }
fn ld_b(i: u32) -> ${f} { return B[i]; }
fn store_c(i: u32, v: ${f}) { C[i] = v; }
`;
  }
  const h = vec4 ? "vec4<f16>" : "f16";
  const store = vec4
    ? `C[i] = vec2<u32>(f32_to_f16(v.x) | (f32_to_f16(v.y) << 16u),
                     f32_to_f16(v.z) | (f32_to_f16(v.w) << 16u));`
    : "store_half(i, f32_to_f16(v));";
  return `${ENABLE_F16}
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read> A: array<${h}>;
@group(0) @binding(2) var<storage, read> B: array<${h}>;
@group(0) @binding(3) var<storage, read_write> C: array<${
    vec4 ? "vec2<u32>" : "atomic<u32>"
  }>;
${F16_WGSL}
${vec4 ? "" : halfStoreWgsl("C")}
fn ld_a(i: u32) -> ${f} { return ${f}(A[i]); }
fn ld_b(i: u32) -> ${f} { return ${f}(B[i]); }
fn store_c(i: u32, v: ${f}) { ${store} }
`;
}

/**
 * The register-blocked vec4 kernel: K and N must be multiples of 4, so
 * every row of A and B starts on a vec4.
 *
 * @param block The block and workgroup shape.
 * @param dtype The operands' and result's dtype.
 * @returns WGSL source with entry point `main`.
 *
 * @example Usage
 * ```ts
 * import { blockedVec4Wgsl } from "./_matmul_wgsl.ts";
 * import { assertStringIncludes } from "@std/assert";
 *
 * const code = blockedVec4Wgsl({ rows: 8, vec4s: 2, workgroup: [8, 4] });
 * assertStringIncludes(code, "@workgroup_size(8, 4)");
 * ```
 */
export function blockedVec4Wgsl(
  block: BlockShape,
  dtype: MatmulDType = "float32",
): string {
  const { rows: R, vec4s: V, workgroup: [wx, wy] } = block;
  const lines = [header(dtype, true)];
  lines.push(`@compute @workgroup_size(${wx}, ${wy})
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  let M = p[0]; let K = p[1]; let N = p[2]; let alpha = bitcast<f32>(p[3]);
  let k4 = K / 4u; let n4 = N / 4u;
  let z = g.z;
  let a0 = p[5u + 2u * z] / 4u; let b0 = p[6u + 2u * z] / 4u;
  let c0 = (p[4] + z) * M * n4;
  let row = g.y * ${R}u; let col = g.x * ${V}u;
  if (row >= M || col >= n4) { return; }`);
  for (let i = 0; i < R; i++) {
    lines.push(`  let ra${i} = a0 + min(row + ${i}u, M - 1u) * k4;`);
  }
  for (let j = 0; j < V; j++) {
    lines.push(`  let cb${j} = b0 + min(col + ${j}u, n4 - 1u);`);
    for (let i = 0; i < R; i++) {
      lines.push(`  var acc${i}_${j} = vec4<f32>(0.0);`);
    }
  }
  lines.push(`  for (var kk = 0u; kk < k4; kk++) {`);
  for (let i = 0; i < R; i++) lines.push(`    let a${i} = ld_a(ra${i} + kk);`);
  lines.push(`    let kb = kk * 4u * n4;`);
  for (let q = 0; q < 4; q++) {
    for (let j = 0; j < V; j++) {
      lines.push(`    let b${q}_${j} = ld_b(cb${j} + kb + ${q}u * n4);`);
    }
  }
  for (let i = 0; i < R; i++) {
    for (let j = 0; j < V; j++) {
      lines.push(
        `    acc${i}_${j} = acc${i}_${j} + a${i}.x * b0_${j} + a${i}.y * b1_${j}` +
          ` + a${i}.z * b2_${j} + a${i}.w * b3_${j};`,
      );
    }
  }
  lines.push(`  }`);
  for (let i = 0; i < R; i++) {
    for (let j = 0; j < V; j++) {
      lines.push(
        `  if (row + ${i}u < M && col + ${j}u < n4) {` +
          ` store_c(c0 + (row + ${i}u) * n4 + col + ${j}u, acc${i}_${j} * alpha); }`,
      );
    }
  }
  lines.push(`}`);
  return lines.join("\n");
}

/**
 * The register-blocked scalar kernel for any M, K, N: each invocation
 * computes a 4×4 block with scalar loads.
 *
 * @param dtype The operands' and result's dtype.
 * @returns WGSL source with entry point `main`, workgroup 8×8.
 *
 * @example Usage
 * ```ts
 * import { blockedScalarWgsl } from "./_matmul_wgsl.ts";
 * import { assertStringIncludes } from "@std/assert";
 *
 * assertStringIncludes(blockedScalarWgsl(), "fn main");
 * ```
 */
export function blockedScalarWgsl(dtype: MatmulDType = "float32"): string {
  const lines = [header(dtype, false)];
  lines.push(`@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  let M = p[0]; let K = p[1]; let N = p[2]; let alpha = bitcast<f32>(p[3]);
  let z = g.z;
  let a0 = p[5u + 2u * z]; let b0 = p[6u + 2u * z]; let c0 = (p[4] + z) * M * N;
  let row = g.y * 4u; let col = g.x * 4u;
  if (row >= M || col >= N) { return; }
  var acc: array<vec4<f32>, 4>;`);
  for (let i = 0; i < 4; i++) {
    lines.push(`  let ra${i} = a0 + min(row + ${i}u, M - 1u) * K;`);
    lines.push(`  let cb${i} = b0 + min(col + ${i}u, N - 1u);`);
  }
  lines.push(`  for (var k = 0u; k < K; k++) {
    let b = vec4<f32>(ld_b(cb0 + k * N), ld_b(cb1 + k * N), ld_b(cb2 + k * N), ld_b(cb3 + k * N));`);
  for (let i = 0; i < 4; i++) {
    lines.push(`    acc[${i}] = acc[${i}] + ld_a(ra${i} + k) * b;`);
  }
  lines.push(`  }
  for (var i = 0u; i < 4u; i++) {
    for (var j = 0u; j < 4u; j++) {
      if (row + i < M && col + j < N) {
        store_c(c0 + (row + i) * N + col + j, acc[i][j] * alpha);
      }
    }
  }
}`);
  return lines.join("\n");
}

/**
 * The simple kernel for tiny products: one output per invocation.
 *
 * @param dtype The operands' and result's dtype.
 * @returns WGSL source with entry point `main`, workgroup 64.
 *
 * @example Usage
 * ```ts
 * import { simpleWgsl } from "./_matmul_wgsl.ts";
 * import { assertStringIncludes } from "@std/assert";
 *
 * assertStringIncludes(simpleWgsl(), "@workgroup_size(64)");
 * ```
 */
export function simpleWgsl(dtype: MatmulDType = "float32"): string {
  return header(dtype, false) + `
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  let M = p[0]; let K = p[1]; let N = p[2]; let alpha = bitcast<f32>(p[3]);
  let z = g.z;
  if (g.x >= M * N) { return; }
  let i = g.x / N; let j = g.x % N;
  let a = p[5u + 2u * z] + i * K; let b = p[6u + 2u * z] + j;
  var acc = 0.0;
  for (var k = 0u; k < K; k++) { acc = acc + ld_a(a + k) * ld_b(b + k * N); }
  store_c((p[4] + z) * M * N + g.x, acc * alpha);
}`;
}

/**
 * Swaps the last two dims of a stack of [R, C] matrices: params p[0] = R,
 * p[1] = C, p[2] = element count; binding 1 in, binding 2 out.
 *
 * @returns WGSL source with entry point `main`, workgroup 256.
 *
 * @example Usage
 * ```ts
 * import { transposeWgsl } from "./_matmul_wgsl.ts";
 * import { assertStringIncludes } from "@std/assert";
 *
 * assertStringIncludes(transposeWgsl(), "fn main");
 * ```
 */
export function transposeWgsl(): string {
  return `
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read> X: array<u32>;
@group(0) @binding(2) var<storage, read_write> Y: array<u32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>,
        @builtin(num_workgroups) n: vec3<u32>) {
  let R = p[0]; let C = p[1]; let total = p[2];
  for (var o = g.x; o < total; o += n.x * 256u) {
    let m = o / (R * C); let r = o % (R * C);
    let c = r / R; let i = r % R;
    Y[o] = X[m * R * C + i * C + c];
  }
}`;
}
