// Elementwise kernels: one WGSL template per arity, fed with an expression
// per kind (the CPU's kernels/cpu/elementwise.ts semantics).
//
// Invariants:
//   Operands have one dtype (the integration casts first, on the CPU side
//   of the boundary); a kind runs here for a dtype when it has a WGSL
//   expression for it (GPU_BINARY and GPU_UNARY list those), and a kind or
//   dtype without one runs on the CPU.
//   Broadcasting uses kernels/broadcast.ts's plan (NumPy's rule, Fluid's
//   axis), with dims coalesced first, so contiguous and scalar cases walk
//   rank 1 and the general case at most MAX_RANK dims.
//   Float expressions go through _ieee_wgsl.ts, so NaN, ±Infinity and ±0
//   come out as on the CPU; int32 arithmetic wraps as the CPU's does.
//   Same-shape and scalar-broadcast operands of 32-bit dtypes take the vec4
//   kernels (_elementwise_vec4.ts), four elements per invocation with no
//   index arithmetic; they compute each lane with the same expression, so
//   which template ran never changes a bit of the result.
//   float16 computes in f32 and rounds once to float16 on bits
//   (_f16_wgsl.ts). f32 carries 24 bits, at least 2 · 11 + 2, so rounding
//   an exactly rounded f32 sum, difference or product of float16 values to
//   float16 gives the exactly rounded float16 result: add, sub, mul, max,
//   min and every comparison give the CPU's bits (which computes in
//   float64 and rounds once).

import {
  BINARY_KINDS,
  type BinaryKind,
  type CompareKind,
  UNARY_KINDS,
  type UnaryKind,
} from "../kernel_kinds.ts";
import type { GpuBatch } from "./gpu_batch.ts";
import type { GpuDType, GpuTensor } from "./gpu_tensor.ts";
import {
  broadcastDispatch,
  type Kernel,
  mapDispatch,
  WGSL_TYPE,
} from "./_elementwise_template.ts";
import {
  binaryVec4Dispatch,
  mapVec4Dispatch,
  vec4Fits,
  vec4Plan,
} from "./_elementwise_vec4.ts";

const FLOAT_BINARY: Partial<Record<BinaryKind, string>> = {
  add: "a + b",
  sub: "a - b",
  mul: "a * b",
  div: "a / b",
  max: "f_max(a, b)",
  min: "f_min(a, b)",
  pow: "f_pow(a, b)",
};
// Integer div, mod, floordiv and pow stay on the CPU: they must raise on a
// zero divisor.
const INT_BINARY: Partial<Record<BinaryKind, string>> = {
  add: "a + b",
  sub: "a - b",
  mul: "a * b",
  max: "select(b, a, a > b)",
  min: "select(b, a, a < b)",
};
const COMPARE: Record<CompareKind, [string, boolean]> = {
  less_than: ["a < b", false],
  less_equal: ["a <= b", false],
  greater_than: ["a > b", false],
  greater_equal: ["a >= b", false],
  equal: ["a == b", false],
  not_equal: ["a != b", true],
};

/**
 * The unary kinds that run on the CPU only: WGSL bounds the error of sin
 * and cos only on [-π, π]. Every other kind has a WGSL expression.
 *
 * @example Usage
 * ```ts
 * import { CPU_UNARY, GPU_UNARY } from "./elementwise.ts";
 * import { UNARY_KINDS } from "../kernel_kinds.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(CPU_UNARY, ["sin", "cos"]);
 * assertEquals(GPU_UNARY.length + CPU_UNARY.length, UNARY_KINDS.length);
 * ```
 */
export const CPU_UNARY = ["sin", "cos"] as const satisfies readonly UnaryKind[];

/**
 * A unary kind the GPU runs: every kind not in {@linkcode CPU_UNARY}.
 *
 * @example Usage
 * ```ts
 * import type { GpuUnaryKind } from "./elementwise.ts";
 * import { GPU_UNARY } from "./elementwise.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const kind: GpuUnaryKind = "tanh";
 * assertEquals(GPU_UNARY.includes(kind), true);
 * ```
 */
export type GpuUnaryKind = Exclude<UnaryKind, typeof CPU_UNARY[number]>;

const UNARY: Readonly<Record<GpuUnaryKind, string>> = {
  relu: "f_relu(a)",
  sigmoid: "f_sigmoid(a)",
  tanh: "f_tanh(a)",
  exp: "f_exp(a)",
  log: "f_log(a)",
  sqrt: "f_sqrt(a)",
  abs: "f_abs(a)",
  square: "a * a",
  floor: "f_floor(a)",
  ceil: "f_ceil(a)",
  round: "f_round(a)",
  reciprocal: "1.0 / a",
};

/**
 * The binary kinds the GPU runs, per dtype: those with a WGSL expression
 * for the dtype; the rest run on the CPU. float16 pow stays on the CPU
 * too: WGSL bounds log2 only to 2^-21, which a large exponent multiplies,
 * so a power within about 4e-5 of 65520 (where float16 rounds to
 * Infinity) could land on the other side of it (0.82275390625^-56.84375
 * is 65504 on the CPU, Infinity in f32 on llvmpipe).
 *
 * @example Usage
 * ```ts
 * import { GPU_BINARY } from "./elementwise.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(GPU_BINARY.float32.includes("pow"), true);
 * assertEquals(GPU_BINARY.float16.includes("pow"), false);
 * assertEquals(GPU_BINARY.int32.includes("div"), false);
 * ```
 */
export const GPU_BINARY: Readonly<
  Record<"float32" | "float16" | "int32", readonly BinaryKind[]>
> = {
  float32: BINARY_KINDS.filter((kind) => kind in FLOAT_BINARY),
  float16: BINARY_KINDS.filter((kind) =>
    kind in FLOAT_BINARY && kind !== "pow"
  ),
  int32: BINARY_KINDS.filter((kind) => kind in INT_BINARY),
};

/**
 * The unary kinds the GPU runs on float32 and float16: those with a WGSL
 * expression, every kind but {@linkcode CPU_UNARY}, in `UNARY_KINDS` order.
 *
 * @example Usage
 * ```ts
 * import { GPU_UNARY } from "./elementwise.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(GPU_UNARY.includes("sin"), false);
 * assertEquals(GPU_UNARY.includes("exp"), true);
 * ```
 */
export const GPU_UNARY: readonly UnaryKind[] = UNARY_KINDS.filter((kind) =>
  kind in UNARY
);

/**
 * Elementwise arithmetic with broadcasting, on the GPU.
 *
 * @param batch Where the dispatch goes.
 * @param kind The operation; see {@linkcode GPU_BINARY}.
 * @param x The first operand.
 * @param y The second operand, of x's dtype.
 * @param axis -1 for NumPy broadcasting, else Fluid's axis.
 * @returns A new GPU tensor of the operands' dtype.
 * @throws {TypeError} If the dtypes differ or the kind does not run here.
 * @throws {RangeError} If the shapes do not broadcast.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { binary } from "./elementwise.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([[1, 2, 3], [4, 5, 6]], "float32"));
 *   const y = batch.upload(Tensor.fromArray([10, 20, 30], "float32"));
 *   const [sum] = await batch.read([binary(batch, "add", x, y)]);
 *   assertEquals(sum.toNested(), [[11, 22, 33], [14, 25, 36]]);
 *   gpu.destroy();
 * }
 * ```
 */
export function binary(
  batch: GpuBatch,
  kind: BinaryKind,
  x: GpuTensor,
  y: GpuTensor,
  axis = -1,
): GpuTensor {
  const dtype = sameDType(kind, x, y);
  const table = dtype === "int32" ? INT_BINARY : FLOAT_BINARY;
  const expr = dtype !== "bool" && GPU_BINARY[dtype].includes(kind)
    ? table[kind]
    : undefined;
  if (expr === undefined) {
    throw new TypeError(`${kind}: no GPU kernel for dtype "${dtype}"`);
  }
  return dispatch2(batch, [kind, dtype, expr], [x, y, axis], dtype);
}

/**
 * Elementwise comparison with broadcasting; a NaN operand makes every
 * comparison false except `not_equal`.
 *
 * @param batch Where the dispatch goes.
 * @param kind The comparison.
 * @param x The left operand (float32, float16 or int32).
 * @param y The right operand, of x's dtype.
 * @param axis As for {@linkcode binary}.
 * @returns A new bool GPU tensor.
 * @throws {TypeError} If the dtypes differ or are bool.
 * @throws {RangeError} If the shapes do not broadcast.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { compare } from "./elementwise.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([1, NaN, 5], "float32"));
 *   const y = batch.upload(Tensor.scalar(3, "float32"));
 *   const [lt] = await batch.read([compare(batch, "less_than", x, y)]);
 *   assertEquals(lt.toNested(), [true, false, false]);
 *   gpu.destroy();
 * }
 * ```
 */
export function compare(
  batch: GpuBatch,
  kind: CompareKind,
  x: GpuTensor,
  y: GpuTensor,
  axis = -1,
): GpuTensor {
  const dtype = sameDType(kind, x, y);
  const entry = COMPARE[kind];
  if (entry === undefined || dtype === "bool") {
    throw new TypeError(`${kind}: no GPU kernel for dtype "${dtype}"`);
  }
  const [test, ifNan] = entry;
  const expr = dtype === "float32" || dtype === "float16"
    ? `f_compare(a, b, ${test}, ${ifNan})`
    : `select(0u, 1u, ${test})`;
  return dispatch2(batch, [kind, dtype, expr], [x, y, axis], "bool");
}

/**
 * An elementwise math function of a float32 or float16 tensor (float16
 * computes in f32 and rounds once).
 *
 * @param batch Where the dispatch goes.
 * @param kind The function; see {@linkcode GPU_UNARY}.
 * @param x A float32 or float16 tensor.
 * @returns A new GPU tensor of x's dtype and shape.
 * @throws {TypeError} If x is not a float tensor or the kind does not run
 * here.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { unary } from "./elementwise.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([-1, 4, NaN], "float32"));
 *   const [y] = await batch.read([unary(batch, "relu", x)]);
 *   assertEquals(y.toNested(), [0, 4, NaN]);
 *   gpu.destroy();
 * }
 * ```
 */
export function unary(
  batch: GpuBatch,
  kind: UnaryKind,
  x: GpuTensor,
): GpuTensor {
  const expr = UNARY[kind as GpuUnaryKind] as string | undefined;
  const dtype = x.dtype;
  if (expr === undefined || (dtype !== "float32" && dtype !== "float16")) {
    throw new TypeError(`${kind}: no GPU kernel for dtype "${dtype}"`);
  }
  return dispatch1(batch, [kind, dtype, expr], x, []);
}

/**
 * `x * scale + bias`, or `(x + bias) * scale`, as the CPU's `scale`: the
 * factors are first rounded (float32, float16) or truncated (int32) to x's
 * dtype. float16 rounds after each step, as the CPU does, so it gives the
 * CPU's bits (the product of two float16 values is exact in f32).
 *
 * @param batch Where the dispatch goes.
 * @param x A float32, float16 or int32 tensor.
 * @param scale The factor.
 * @param bias The addend.
 * @param biasAfterScale Add after multiplying.
 * @returns A new GPU tensor of x's dtype and shape.
 * @throws {TypeError} If x is bool.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { scale } from "./elementwise.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([1, 2], "float32"));
 *   const [y] = await batch.read([scale(batch, x, 2, 1, false)]);
 *   assertEquals(y.toNested(), [4, 6]);
 *   gpu.destroy();
 * }
 * ```
 */
export function scale(
  batch: GpuBatch,
  x: GpuTensor,
  scale: number,
  bias = 0,
  biasAfterScale = true,
): GpuTensor {
  const dtype = x.dtype;
  if (dtype === "bool") {
    throw new TypeError(`scale: dtype "bool" is not supported`);
  }
  const words = new Uint32Array(2);
  if (dtype === "float32") {
    new Float32Array(words.buffer).set([scale, bias]);
  } else if (dtype === "float16") {
    new Float32Array(words.buffer).set([
      Math.f16round(scale),
      Math.f16round(bias),
    ]);
  } else {
    // Math.imul's ToInt32 of the truncated factors, as the CPU kernel.
    new Int32Array(words.buffer).set([
      Math.trunc(scale) | 0,
      Math.trunc(bias) | 0,
    ]);
  }
  const t = WGSL_TYPE[dtype];
  const s = `bitcast<${t}>(p[1])`, b = `bitcast<${t}>(p[2])`;
  // float16 rounds the first step as the CPU does (and as no FMA could).
  const step = dtype === "float16" ? "f16_round" : "";
  const expr = biasAfterScale
    ? `${step}(a * ${s}) + ${b}`
    : `${step}(a + ${b}) * ${s}`;
  const variant = biasAfterScale ? "after" : "before";
  return dispatch1(batch, ["scale", dtype, expr, variant], x, [...words]);
}

function sameDType(kind: string, x: GpuTensor, y: GpuTensor): GpuDType {
  if (x.dtype !== y.dtype) {
    throw new TypeError(
      `${kind}: the GPU kernel takes one dtype, got ${x.dtype} and ${y.dtype}`,
    );
  }
  return x.dtype;
}

// The choice of template. The vec4 kernels need 32-bit elements and, for
// two operands, a coalesced broadcast of one dim with strides 0 or 1
// (vec4Plan); the general templates take everything else.
function dispatch2(
  batch: GpuBatch,
  kernel: Kernel,
  [x, y, axis]: [GpuTensor, GpuTensor, number],
  outDType: GpuDType,
): GpuTensor {
  const plan = outDType === "float16" ? null : vec4Plan(x, y, axis);
  return plan === null
    ? broadcastDispatch(batch, kernel, [x, y, axis], outDType)
    : binaryVec4Dispatch(batch, kernel, [x, y, plan], outDType);
}

function dispatch1(
  batch: GpuBatch,
  kernel: Kernel,
  x: GpuTensor,
  extra: readonly number[],
): GpuTensor {
  return vec4Fits(x.size, [x])
    ? mapVec4Dispatch(batch, kernel, x, extra)
    : mapDispatch(batch, kernel, x, extra);
}
