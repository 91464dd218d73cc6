// The fast path of the elementwise kernels (kernels/webgpu/elementwise.ts
// chooses it): an invocation reads and writes four elements as one
// vec4, with no index arithmetic, when each operand is either walked
// contiguously (same shape as the output after coalescing) or a single
// element broadcast to every lane. Everything else takes the general
// templates of _elementwise_template.ts.
//
// Invariants:
//   Only 32-bit elements (float32, int32, bool as u32) take this path;
//   float16 packs two elements per word and keeps the general templates.
//   Each lane computes the kind's scalar expression through the same
//   `lane` function, so the four results are exactly those of the general
//   templates: NaN, ±Infinity and ±0 through _ieee_wgsl.ts per lane.
//   The last quad may run past the tensor's size: its extra lanes read and
//   write the buffers' padding. That is only done when every buffer holds
//   whole quads (vec4Fits), which the pool's 256-byte size classes always
//   give; elements past the size are never read back, and a tensor owns
//   its whole buffer, so the padding belongs to no one.
//   A grid-stride loop over quads, as in the general templates, keeps any
//   size within WebGPU's 65535-workgroup limit.

import { planBroadcast } from "../broadcast.ts";
import type { GpuBatch } from "./gpu_batch.ts";
import type { GpuDType, GpuTensor } from "./gpu_tensor.ts";
import { coalesce, type Kernel, WGSL_TYPE } from "./_elementwise_template.ts";
import { IEEE_WGSL } from "./_ieee_wgsl.ts";

// 64 invocations of four elements each: on llvmpipe 64, 128 and 256
// measured alike (10 same-shape adds of 4M float32 in one submit, best 14–20
// ms an add on a shared 2-core machine), and 64 leaves more workgroups to
// spread over its threads for small tensors.
const WORKGROUP = 64;
const MAX_WORKGROUPS = 65535;

/**
 * How a vec4 kernel reads an operand: four consecutive elements per quad,
 * or its single element in all four lanes.
 */
export type Vec4Read = "quad" | "splat";

/** A binary op's vec4 plan: the broadcast shape and how to read x and y. */
export interface Vec4Plan {
  /** The output's shape (the operands' broadcast shape). */
  readonly shape: readonly number[];
  /** How the kernel reads x and y. */
  readonly reads: readonly [Vec4Read, Vec4Read];
}

/**
 * Whether a binary op may take the vec4 path, and how it reads each
 * operand: null when the broadcast needs index arithmetic (after
 * coalescing, more than one dim or a stride other than 0 and 1), when an
 * operand is float16, or when a buffer does not hold whole quads.
 *
 * @param x The first operand.
 * @param y The second operand, of x's dtype.
 * @param axis -1 for NumPy broadcasting, else Fluid's axis.
 * @returns The plan, or null for the general template.
 * @throws {RangeError} If the shapes do not broadcast.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { vec4Plan } from "./_elementwise_vec4.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const m = batch.upload(Tensor.zeros([2, 3], "float32"));
 *   const s = batch.upload(Tensor.scalar(1, "float32"));
 *   const r = batch.upload(Tensor.zeros([3], "float32"));
 *   assertEquals(vec4Plan(m, m, -1)?.reads, ["quad", "quad"]);
 *   assertEquals(vec4Plan(s, m, -1), { shape: [2, 3], reads: ["splat", "quad"] });
 *   assertEquals(vec4Plan(m, r, -1), null); // rows: index arithmetic
 *   gpu.destroy();
 * }
 * ```
 */
export function vec4Plan(
  x: GpuTensor,
  y: GpuTensor,
  axis: number,
): Vec4Plan | null {
  if (x.dtype === "float16" || y.dtype === "float16") return null;
  const plan = planBroadcast(x.shape, y.shape, axis);
  const [dims, xs, ys] = coalesce(plan.shape, plan.xStrides, plan.yStrides);
  if (dims.length !== 1 || xs[0] > 1 || ys[0] > 1) return null;
  const read = (stride: number): Vec4Read => stride === 1 ? "quad" : "splat";
  const reads: [Vec4Read, Vec4Read] = [read(xs[0]), read(ys[0])];
  // A splat reads one element, which every non-empty buffer holds.
  const quads = [x, y].filter((_, i) => reads[i] === "quad");
  if (!vec4Fits(dims[0], quads)) return null;
  return { shape: plan.shape, reads };
}

/**
 * Whether every tensor's buffer holds the whole quads that cover `size`
 * elements of 4 bytes (the vec4 kernels touch the last quad entirely).
 *
 * @param size The output's element count.
 * @param tensors The operands (the output's buffer is a new size class).
 * @returns True when the vec4 path may read them.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { vec4Fits } from "./_elementwise_vec4.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.zeros([5], "float32"));
 *   assertEquals(vec4Fits(5, [x]), true); // 256 bytes hold 2 quads
 *   gpu.destroy();
 * }
 * ```
 */
export function vec4Fits(size: number, tensors: readonly GpuTensor[]): boolean {
  const bytes = Math.ceil(size / 4) * 16;
  return tensors.every((t) => t.dtype !== "float16" && t.buffer.size >= bytes);
}

/**
 * Records `out = expr(a, b)` four elements per invocation, reading x and y
 * as {@linkcode vec4Plan} chose.
 *
 * @param batch Where the dispatch goes.
 * @param kernel The op, dtype (of x and y, not float16) and expression.
 * @param operands x, y and their plan.
 * @param outDType The result's dtype (float32, int32 or bool).
 * @returns The new GPU tensor of the plan's shape.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { binaryVec4Dispatch, vec4Plan } from "./_elementwise_vec4.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([1, 2, 3, 4, 5], "int32"));
 *   const y = batch.upload(Tensor.scalar(10, "int32"));
 *   const plan = vec4Plan(x, y, -1)!;
 *   const z = binaryVec4Dispatch(batch, ["plus", "int32", "a + b"], [x, y, plan], "int32");
 *   assertEquals((await batch.read([z]))[0].toNested(), [11, 12, 13, 14, 15]);
 *   gpu.destroy();
 * }
 * ```
 */
export function binaryVec4Dispatch(
  batch: GpuBatch,
  [op, dtype, expr]: Kernel,
  [x, y, plan]: [GpuTensor, GpuTensor, Vec4Plan],
  outDType: GpuDType,
): GpuTensor {
  const out = batch.allocate(outDType, plan.shape);
  if (out.size === 0) return out;
  const t = WGSL_TYPE[dtype], o = WGSL_TYPE[outDType];
  const [xr, yr] = plan.reads;
  const pipeline = batch.pipelines.get(
    { op, dtype, variant: `vec4 ${xr} ${yr}` },
    () => `
${bindings([["X", xr], ["Y", yr]], dtype, o)}
fn lane(a: ${t}, b: ${t}) -> ${o} { return ${expr}; }
${
      mainLoop(`
    let a = ${readQuad("X", xr, t)};
    let b = ${readQuad("Y", yr, t)};
    O[q] = vec4<${o}>(lane(a.x, b.x), lane(a.y, b.y), lane(a.z, b.z), lane(a.w, b.w));`)
    }`,
  );
  batch.dispatch({
    pipeline,
    buffers: [x.buffer, y.buffer, out.buffer],
    params: new Uint32Array([out.size]),
    workgroups: workgroups(out.size),
  });
  return out;
}

/**
 * Records `out = expr(a)` four elements per invocation, x read as quads;
 * p[0] is the size and `extra` follows it (p[1], p[2], ...), and the
 * kernel's functions come before the expression, as in mapDispatch. The caller checks x with {@linkcode vec4Fits} first.
 *
 * @param batch Where the dispatch goes.
 * @param kernel The op, dtype (not float16), expression and variant.
 * @param x The operand.
 * @param extra Further parameter words.
 * @returns The new GPU tensor of x's shape and dtype.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { mapVec4Dispatch } from "./_elementwise_vec4.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([1, 2, 3], "int32"));
 *   const y = mapVec4Dispatch(batch, ["plus_p1", "int32", "a + i32(p[1])"], x, [5]);
 *   assertEquals((await batch.read([y]))[0].toNested(), [6, 7, 8]);
 *   gpu.destroy();
 * }
 * ```
 */
export function mapVec4Dispatch(
  batch: GpuBatch,
  [op, dtype, expr, variant = "map", functions = ""]: Kernel,
  x: GpuTensor,
  extra: readonly number[],
): GpuTensor {
  const out = batch.allocate(dtype, x.shape);
  if (out.size === 0) return out;
  const t = WGSL_TYPE[dtype];
  const pipeline = batch.pipelines.get(
    { op, dtype, variant: `vec4 ${variant}` },
    () => `
${bindings([["X", "quad"]], dtype, t)}
${functions}
fn lane(a: ${t}) -> ${t} { return ${expr}; }
${
      mainLoop(`
    let a = X[q];
    O[q] = vec4<${t}>(lane(a.x), lane(a.y), lane(a.z), lane(a.w));`)
    }`,
  );
  batch.dispatch({
    pipeline,
    buffers: [x.buffer, out.buffer],
    params: new Uint32Array([out.size, ...extra]),
    workgroups: workgroups(out.size),
  });
  return out;
}

// The parameters (binding 0), the operands (1..) and the output, then the
// IEEE prelude for float operands. A splat operand is bound as scalars.
function bindings(
  inputs: [string, Vec4Read][],
  dtype: GpuDType,
  out: string,
): string {
  const t = WGSL_TYPE[dtype];
  return [
    "@group(0) @binding(0) var<storage, read> p: array<u32>;",
    ...inputs.map(([name, read], i) =>
      `@group(0) @binding(${i + 1}) var<storage, read> ${name}: array<${
        read === "quad" ? `vec4<${t}>` : t
      }>;`
    ),
    `@group(0) @binding(${
      inputs.length + 1
    }) var<storage, read_write> O: array<vec4<${out}>>;`,
    dtype === "float32" ? IEEE_WGSL : "",
  ].join("\n");
}

function readQuad(name: string, read: Vec4Read, t: string): string {
  return read === "quad" ? `${name}[q]` : `vec4<${t}>(${name}[0])`;
}

// Walks the quads covering p[0] elements; `body` handles quad q.
function mainLoop(body: string): string {
  return `
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) g: vec3<u32>,
        @builtin(num_workgroups) nw: vec3<u32>) {
  let quads = (p[0] + 3u) / 4u;
  for (var q = g.x; q < quads; q += nw.x * ${WORKGROUP}u) {${body}
  }
}`;
}

function workgroups(size: number): [number] {
  const quads = Math.ceil(size / 4);
  return [Math.max(1, Math.min(MAX_WORKGROUPS, Math.ceil(quads / WORKGROUP)))];
}
