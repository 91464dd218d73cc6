// The WebGPU kernel table: for each kernel of the catalog (../device.ts)
// that has a GPU implementation, which calls run on the GPU, the GPU
// kernel that runs them, and how far its results may be from the CPU's.
// A kernel with no entry runs on the CPU: webgpu_device.ts lays this table
// over the CPU's, through one fallback template.
//
// Invariants:
//   `placed` decides from the operands alone (webgpu_device.ts states the
//   placement rules); `run` is called only for a placed call, and throws a
//   RangeError only when the GPU cannot take the call (a buffer above the
//   device's limits), which the CPU then runs.
//   Every entry states its tolerance for float32 results (which also
//   stands for integer and bool ones) and, where float16 runs here, for
//   float16 results; a kind with no bound does not run on the GPU.
//
// Where the bounds come from: WGSL's accuracy table (div 2.5 ULP; exp and
// exp2 3 + 2·|x| ULP; log absolute 2^-21 on [0.5, 2], else 3 ULP; sqrt as
// 1/inverseSqrt) and, for sums, the standard bound of a float32 sum of n
// terms, n·2^-24 · Σ|term| (2^-14 covers n ≤ 1024; beyond, the blocked
// order keeps the error far below the bound).
//
// float16 is computed in f32 and rounded once to float16, exactly as a
// Float16Array store (_f16_wgsl.ts); the CPU computes in float64 and rounds
// once. So:
//   exact   add, sub, mul, max, min, comparisons, scale and the exact
//           functions: an exactly rounded f32 result of float16 operands,
//           rounded to float16, is the exactly rounded float16 result
//           (f32 has 24 bits >= 2·11 + 2), and scale rounds its product to
//           float16 before adding, as the CPU does; copies and casts move
//           or convert bits.
//   1 step  div, reciprocal, sqrt, exp, sigmoid, tanh, softmax: their f32
//           error (at most 3e-5 relative, see above) is far below half a
//           float16 step (2^-11 relative), so rounding can only land on the
//           neighbouring float16. Measured on llvmpipe: 0 steps for div,
//           reciprocal, sqrt and tanh, 1 for exp, sigmoid and softmax, over
//           every float16 input (2^16) or 2^20 random pairs.
//   2 steps log: WGSL's absolute 2^-21 on [0.5, 2] is one float16 step of
//           the smallest results there (log(1 - 2^-11) ≈ -2^-11); measured
//           1 over every float16 input.
//   scaled  sums, means and matmul: the f32 sum's 2^-14 · magnitude plus
//           one float16 step of the result (at most 2^-10 · magnitude):
//           2^-9 · magnitude. Measured: 5.7e-4 · magnitude (one step, after
//           cancellation) for a 1000×7·7×33 product.
// float16 overflow: a result is ±Infinity on both devices, since both round
// the same way from 65520 on, except where the f32 error itself could
// straddle 65520; for div and reciprocal no quotient of float16 values
// comes closer than 2^-12 (relative) to it, exp was checked at every input, and pow (where
// it could) stays on the CPU. A sum or product whose exact value lies
// within its accumulation error of 65520 may round either way, as a
// float32 one near 3.4e38 may.

import { shapeSize } from "../_shape.ts";
import type { Kernels } from "../device.ts";
import {
  type ActivationKind,
  COMPARE_KINDS,
  type CompareKind,
} from "../kernel_kinds.ts";
import type { NormKernelOptions } from "../kernel_options.ts";
import type { DType } from "../dtype.ts";
import type { Tensor } from "../tensor.ts";
import { activation } from "./activation.ts";
import { cast, gpuCasts } from "./cast.ts";
import {
  binary,
  compare,
  GPU_BINARY,
  GPU_UNARY,
  type GpuUnaryKind,
  scale,
  unary,
} from "./elementwise.ts";
import { gather } from "./gather.ts";
import { batchNorm } from "./batch_norm.ts";
import { groupNorm, instanceNorm, layerNorm } from "./norm.ts";
import { conv2d } from "./conv.ts";
import { conv2dTranspose } from "./conv_transpose.ts";
import { pool2d, poolFitsGpu } from "./pool.ts";
import type { GpuBatch } from "./gpu_batch.ts";
import { GPU_MIN_ELEMENTS } from "./gpu_min_elements.ts";
import type { GpuTensor } from "./gpu_tensor.ts";
import { matmul } from "./matmul.ts";
import { gaussianFill, uniformFill } from "./random.ts";
import { rnn } from "./rnn.ts";
import { GPU_REDUCE, reduce, softmax } from "./reduce.ts";
import {
  broadcastTo,
  concat,
  slice,
  split,
  splitNearEqual,
  stack,
  transpose,
} from "./shape.ts";
import type { Tolerance } from "./tolerance.ts";

/**
 * What an entry asks of the device it runs on.
 *
 * @example Usage
 * ```ts
 * import type { GpuPlacement } from "./gpu_kernels.ts";
 * import { GPU_KERNELS } from "./gpu_kernels.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * // A device that places nothing: every call stays on the CPU.
 * const nowhere = { computes: () => false } as unknown as GpuPlacement;
 * const x = Tensor.full([2], "float32", 1);
 * assertEquals(GPU_KERNELS.unary?.placed(nowhere, "exp", x), false);
 * ```
 */
export interface GpuPlacement {
  /** Where the GPU kernels record their dispatches. */
  readonly batch: GpuBatch;
  /** The float dtypes whose operands go to the GPU. */
  readonly floatDTypes: readonly DType[];
  /**
   * A tensor's elements on the GPU: its own, or its upload (kept with the
   * tensor, so a weight is uploaded once).
   *
   * @param t The tensor.
   * @returns Its elements on the GPU.
   */
  gpu(t: Tensor): GpuTensor;
  /**
   * Whether a computing call on `ts` runs on the GPU: one dtype, of
   * `floatDTypes`, and one operand already there or large.
   *
   * @param ts The call's tensor operands.
   * @returns Whether it runs there.
   */
  computes(ts: readonly Tensor[]): boolean;
  /**
   * Whether a data-movement call on `ts` runs on the GPU: one dtype, a
   * float one of `floatDTypes` or int32, and one operand already there or
   * a large float one.
   *
   * @param ts The call's tensor operands.
   * @returns Whether it runs there.
   */
  moves(ts: readonly Tensor[]): boolean;
  /**
   * Whether `t` lives on this device.
   *
   * @param t A tensor.
   * @returns Whether its elements are on the GPU.
   */
  holds(t: Tensor): boolean;
}

/**
 * A GPU result's bound against the CPU's, per float width: `float32` for
 * float32 (and integer and bool) results, `float16` for float16 ones;
 * without `float16`, float16 calls run on the CPU.
 *
 * @example Usage
 * ```ts
 * import type { GpuBound } from "./gpu_kernels.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const pow: GpuBound = { float32: { kind: "close", rtol: 6e-5, atol: 0 } };
 * assertEquals(pow.float16, undefined); // float16 pow runs on the CPU
 * ```
 */
export interface GpuBound {
  /** The bound of float32, integer and bool results. */
  readonly float32: Tolerance;
  /** The bound of float16 results. */
  readonly float16?: Tolerance;
}

/**
 * A kernel's bounds: one per kind it runs on the GPU for a kernel that
 * takes a kind first (binary, unary, reduce…), else one.
 *
 * @example Usage
 * ```ts
 * import type { GpuKernelBound } from "./gpu_kernels.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const reduce: GpuKernelBound<"reduce"> = {
 *   max: { float32: { kind: "exact" } },
 * };
 * assertEquals(reduce.prod, undefined); // prod runs on the CPU
 * ```
 */
export type GpuKernelBound<K extends keyof Kernels> =
  Parameters<Kernels[K]>[0] extends infer P extends string
    ? { readonly [Kind in P]?: GpuBound }
    : GpuBound;

/**
 * A GPU kernel's result: one tensor, or several for the cutting kernels.
 *
 * @example Usage
 * ```ts
 * import type { GpuResult } from "./gpu_kernels.ts";
 * import type { GpuTensor } from "./gpu_tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const parts: GpuResult<"split"> = [] as GpuTensor[];
 * assertEquals(parts.length, 0);
 * ```
 */
export type GpuResult<K extends keyof Kernels> = ReturnType<Kernels[K]> extends
  readonly Tensor[] ? GpuTensor[] : GpuTensor;

/**
 * The WebGPU entry of kernel `K`.
 *
 * @example Usage
 * ```ts
 * import type { GpuKernelEntry } from "./gpu_kernels.ts";
 * import { GPU_KERNELS } from "./gpu_kernels.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const entry: GpuKernelEntry<"softmax"> = GPU_KERNELS.softmax!;
 * assertEquals(entry.tolerance.float16, { kind: "ulp16", ulps: 1 });
 * ```
 */
export interface GpuKernelEntry<K extends keyof Kernels> {
  /**
   * Whether this call runs on the GPU.
   *
   * @param on The device.
   * @param args The call's arguments.
   * @returns Whether it runs there.
   */
  placed(on: GpuPlacement, ...args: Parameters<Kernels[K]>): boolean;
  /**
   * Records the GPU kernel of a placed call.
   *
   * @param on The device.
   * @param args The call's arguments.
   * @returns The result on the GPU.
   * @throws {RangeError} When the GPU cannot take the call.
   */
  run(on: GpuPlacement, ...args: Parameters<Kernels[K]>): GpuResult<K>;
  /** How far its results may be from the CPU's. */
  readonly tolerance: GpuKernelBound<K>;
}

/**
 * The WebGPU kernel table: an entry per kernel that runs on the GPU. Only
 * a kernel of at most five parameters may have one: webgpu_device.ts
 * passes calls on through five, with no argument list built per call.
 *
 * @example Usage
 * ```ts
 * import type { GpuKernelTable } from "./gpu_kernels.ts";
 * import { GPU_KERNELS } from "./gpu_kernels.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const table: GpuKernelTable = GPU_KERNELS;
 * assertEquals("matmul" in table, true);
 * ```
 */
export type GpuKernelTable = {
  readonly [K in keyof Kernels]?: Parameters<Kernels[K]> extends UpToFive
    ? GpuKernelEntry<K>
    : never;
};

type UpToFive = [unknown?, unknown?, unknown?, unknown?, unknown?];

const EXACT: Tolerance = { kind: "exact" };
// The same bits in both widths.
const EXACT_BOTH: GpuBound = { float32: EXACT, float16: EXACT };
// Sums of products: the f32 sum's bound, and one float16 step more.
const SUMS: GpuBound = {
  float32: { kind: "scaled", rtol: 2 ** -14 },
  float16: { kind: "scaled", rtol: 2 ** -9 },
};
// Within 3e-5 of the exact result in f32; the neighbouring float16.
const CLOSE_3E5: GpuBound = {
  float32: { kind: "close", rtol: 3e-5, atol: 0 },
  float16: { kind: "ulp16", ulps: 1 },
};

// The normalizations' bound (argued at GPU_KERNELS.layerNorm).
const NORMS: GpuBound = { float32: { kind: "scaled", rtol: 2 ** -12 } };

/**
 * The bound of the strided copy (_strided_copy.ts) that the data-movement
 * kernels run: it moves 32-bit words and 16-bit halves, never values.
 *
 * @example Usage
 * ```ts
 * import { STRIDED_COPY } from "./gpu_kernels.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(STRIDED_COPY.float16, { kind: "exact" });
 * ```
 */
export const STRIDED_COPY: GpuBound = EXACT_BOTH;

const UNARY_BOUNDS: Readonly<Record<GpuUnaryKind, GpuBound>> = {
  relu: EXACT_BOTH,
  sigmoid: CLOSE_3E5,
  tanh: CLOSE_3E5,
  exp: CLOSE_3E5,
  log: {
    float32: { kind: "close", rtol: 4e-7, atol: 2 ** -21 },
    float16: { kind: "ulp16", ulps: 2 },
  },
  sqrt: {
    float32: { kind: "ulp", ulps: 4 },
    float16: { kind: "ulp16", ulps: 1 },
  },
  abs: EXACT_BOTH,
  square: EXACT_BOTH,
  floor: EXACT_BOTH,
  ceil: EXACT_BOTH,
  round: EXACT_BOTH,
  reciprocal: {
    float32: { kind: "ulp", ulps: 3 },
    float16: { kind: "ulp16", ulps: 1 },
  },
};

// Paddle's activations (activation.ts), against the CPU's float64 formulas
// with float32 parameters:
//   exact   relu6, clip and thresholded_relu compare and select; leaky_relu's one product
//           is exactly rounded in f32 as on the CPU (float16: the f32
//           product rounded again, one float16 step).
//   ulp 4   hard_swish: x + offset is exact where it could cancel
//           (Sterbenz: x within a factor 2 of -offset), then a product
//           (0.5 ULP), WGSL's division (2.5) and the CPU's own rounding.
//   close   hard_sigmoid: slope·x rounds (or fuses) before + offset, an
//           absolute 2^-24·(|slope·x| + 1) that is at most 2^-22 while
//           |offset| <= 2 (Paddle's default is 0.5).
//   3e-5    gelu, swish, elu: WGSL's exp (3 + 2|x| ULP, |x| <= 104:
//           1.3e-5) and the rounding of its argument (2^-24·|x| <= 6.2e-6),
//           erf's series and fraction a few ULP more (activation.ts);
//           measured on llvmpipe: 7.6e-6, 9.4e-6 and 3.2e-7.
//   5e-5    gelu_tanh: the same exp (two halves past t = 80) and five
//           roundings of t = -2√(2/π)(x + 0.044715x³), about 3 ULP of
//           |t| <= 88 (1.6e-5); measured 1.3e-5.
// float16 results round f32 ones whose error is far below half a float16
// step: at most the neighbouring float16 (measured over every float16).
const ACTIVATION_BOUNDS: Readonly<Record<ActivationKind, GpuBound>> = {
  gelu: CLOSE_3E5,
  gelu_tanh: {
    float32: { kind: "close", rtol: 5e-5, atol: 0 },
    float16: { kind: "ulp16", ulps: 1 },
  },
  swish: CLOSE_3E5,
  hard_swish: {
    float32: { kind: "ulp", ulps: 4 },
    float16: { kind: "ulp16", ulps: 1 },
  },
  hard_sigmoid: {
    float32: { kind: "close", rtol: 2 ** -24, atol: 2 ** -22 },
    float16: { kind: "ulp16", ulps: 1 },
  },
  leaky_relu: { float32: EXACT, float16: { kind: "ulp16", ulps: 1 } },
  relu6: EXACT_BOTH,
  elu: CLOSE_3E5,
  clip: EXACT_BOTH,
  thresholded_relu: EXACT_BOTH,
};

/**
 * Every kernel that runs on the GPU: which calls do, the GPU kernel, and
 * its bound against the CPU.
 *
 * @example Usage
 * ```ts
 * import { GPU_KERNELS } from "./gpu_kernels.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(GPU_KERNELS.binary?.tolerance.add?.float32, { kind: "exact" });
 * assertEquals(GPU_KERNELS.matmul?.tolerance.float16?.kind, "scaled");
 * assertEquals(GPU_KERNELS.addN, undefined); // runs on the CPU
 * ```
 */
export const GPU_KERNELS: GpuKernelTable = Object.freeze(
  {
    binary: {
      placed: (on, kind, x, y) =>
        on.computes([x, y]) && listed(GPU_BINARY, x.dtype, kind),
      run: (on, kind, x, y, axis) =>
        binary(on.batch, kind, on.gpu(x), on.gpu(y), axis),
      tolerance: {
        add: EXACT_BOTH,
        sub: EXACT_BOTH,
        mul: EXACT_BOTH,
        max: EXACT_BOTH,
        min: EXACT_BOTH,
        div: {
          float32: { kind: "ulp", ulps: 3 },
          float16: { kind: "ulp16", ulps: 1 },
        },
        // float16 pow stays on the CPU (see GPU_BINARY).
        pow: { float32: { kind: "close", rtol: 6e-5, atol: 0 } },
      },
    },
    compare: {
      placed: (on, _kind, x, y) => on.computes([x, y]),
      run: (on, kind, x, y, axis) =>
        compare(on.batch, kind, on.gpu(x), on.gpu(y), axis),
      tolerance: Object.fromEntries(
        COMPARE_KINDS.map((kind) => [kind, EXACT_BOTH]),
      ) as Record<CompareKind, GpuBound>,
    },
    unary: {
      placed: (on, kind, x) => on.computes([x]) && GPU_UNARY.includes(kind),
      run: (on, kind, x) => unary(on.batch, kind, on.gpu(x)),
      tolerance: UNARY_BOUNDS,
    },
    scale: {
      placed: (on, x) => on.computes([x]),
      run: (on, x, s, bias, after) =>
        scale(on.batch, on.gpu(x), s, bias, after),
      // Two roundings (multiply, then add) as on the CPU; a compiler may
      // fuse them into one FMA, which is at most one step off. float16
      // rounds the product first, as the CPU does.
      tolerance: { float32: { kind: "ulp", ulps: 1 }, float16: EXACT },
    },
    reduce: {
      placed: (on, kind, x) =>
        on.computes([x]) && listed(GPU_REDUCE, x.dtype, kind),
      run: (on, kind, x, options) => reduce(on.batch, kind, on.gpu(x), options),
      tolerance: { sum: SUMS, mean: SUMS, max: EXACT_BOTH, min: EXACT_BOTH },
    },
    softmax: {
      placed: (on, x) => on.computes([x]),
      run: (on, x, axis) => softmax(on.batch, on.gpu(x), axis),
      tolerance: {
        float32: { kind: "close", rtol: 3e-5, atol: 1e-9 },
        float16: { kind: "ulp16", ulps: 1 },
      },
    },
    matmul: {
      placed: (on, x, y) => on.computes([x, y]),
      run: (on, x, y, options) =>
        matmul(on.batch, on.gpu(x), on.gpu(y), {
          transposeX: options?.transposeX,
          transposeY: options?.transposeY,
          alpha: options?.alpha,
        }),
      tolerance: SUMS,
    },
    mul2d: {
      placed: (on, x, y) => on.computes([x, y]),
      run: (on, x, y, xCols = 1, yCols = 1) => mul2d(on, x, y, xCols, yCols),
      tolerance: SUMS,
    },
    transpose: {
      placed: (on, x) => on.moves([x]),
      run: (on, x, axes) => transpose(on.batch, on.gpu(x), axes),
      tolerance: STRIDED_COPY,
    },
    concat: {
      placed: (on, xs) => on.moves(xs),
      run: (on, xs, axis) => concat(on.batch, xs.map((x) => on.gpu(x)), axis),
      tolerance: STRIDED_COPY,
    },
    split: {
      placed: (on, x) => on.moves([x]),
      run: (on, x, axis, options) => split(on.batch, on.gpu(x), axis, options),
      tolerance: STRIDED_COPY,
    },
    splitNearEqual: {
      placed: (on, x) => on.moves([x]),
      run: (on, x, num, axis) => splitNearEqual(on.batch, on.gpu(x), num, axis),
      tolerance: STRIDED_COPY,
    },
    slice: {
      placed: (on, x) => on.moves([x]),
      run: (on, x, axes, starts, ends) =>
        slice(on.batch, on.gpu(x), axes, starts, ends),
      tolerance: STRIDED_COPY,
    },
    // The index stays on the host: the kernel checks and uploads it.
    gather: {
      placed: (on, x) => on.moves([x]),
      run: (on, x, index, axis) => gather(on.batch, on.gpu(x), index, axis),
      tolerance: EXACT_BOTH,
    },
    // Only an operand already here: casting a host tensor on the GPU would
    // put an integer result there. cast computes on bits (cast.ts).
    cast: {
      placed: (on, x, dtype) =>
        on.holds(x) && gpuCasts(x.dtype, dtype) &&
        (dtype === "int32" || on.floatDTypes.includes(dtype)),
      run: (on, x, dtype) => cast(on.batch, on.gpu(x), dtype),
      tolerance: EXACT_BOTH,
    },
    // A large float32 fill is drawn here, where it stays: the same
    // counter-based draws as on the CPU (random.ts). Uniform float32
    // rounds as the CPU does, step by step.
    uniformRandom: {
      placed: (_on, shape, dtype) => largeFloat32(shape, dtype),
      run: (on, shape, _dtype, min, max, key) =>
        uniformFill(on.batch, shape, min, max, key),
      tolerance: { float32: EXACT },
    },
    // Box–Muller in f32 (random.ts): the radius within about 8 ULP (the
    // atanh series or log, 3 ULP; sqrt, 4.5), the cosine and sine within
    // 3e-7 absolute (exact reduction, polynomials), times a radius of at
    // most 5.8: magnitude = |mean| + 6·|std|.
    gaussianRandom: {
      placed: (_on, shape, dtype) => largeFloat32(shape, dtype),
      run: (on, shape, _dtype, mean, std, key) =>
        gaussianFill(on.batch, shape, mean, std, key),
      tolerance: { float32: { kind: "scaled", rtol: 2e-6 } },
    },
    // float32 only (float16 convolutions run on the CPU). im2col and the
    // matmul kernels, or the direct depthwise kernel (conv.ts): f32 sums of
    // at most 1024 terms in practice, so the sums' bound, magnitude being
    // the convolution of |x| by |filter|.
    conv2d: {
      placed: (on, x, f) => on.computes([x, f]) && x.dtype === "float32",
      run: (on, x, f, options) =>
        conv2d(on.batch, on.gpu(x), on.gpu(f), options),
      tolerance: { float32: SUMS.float32 },
    },
    // float32 only, as conv2d. The filter's transpose times X (the matmul
    // kernels), then a gather of at most KH·KW of those sums per result
    // (conv_transpose.ts): f32 sums of C/G·KH·KW terms in all, at most 1024
    // in practice, so the sums' bound, magnitude being the transposed
    // convolution of |x| by |filter|.
    conv2dTranspose: {
      placed: (on, x, f) => on.computes([x, f]) && x.dtype === "float32",
      run: (on, x, f, options) =>
        conv2dTranspose(on.batch, on.gpu(x), on.gpu(f), options),
      tolerance: { float32: SUMS.float32 },
    },
    // A max compares the CPU's values: exact. An average is an f32 sum of
    // at most 1024 terms (pool.ts keeps longer windows on the CPU, but for
    // the whole image, summed by the reduce kernel's tree) divided once:
    // magnitude the average of |x| over the same windows.
    pool2d: {
      placed: (on, kind, x, options) =>
        on.computes([x]) && x.dtype === "float32" &&
        poolFitsGpu(kind, x.shape, options),
      run: (on, kind, x, options) => pool2d(on.batch, kind, on.gpu(x), options),
      tolerance: {
        max: { float32: EXACT },
        avg: { float32: SUMS.float32 },
      },
    },
    // x · A + B per channel with A and B rounded to f32 (batch_norm.ts):
    // within 2^-22 · (|x·A| + |B|).
    batchNorm: {
      placed: (on, x) => on.computes([x]) && x.dtype === "float32",
      run: (on, x, options) => batchNorm(on.batch, on.gpu(x), options),
      tolerance: { float32: { kind: "scaled", rtol: 2 ** -22 } },
    },
    // Layer, instance and group normalization (norm.ts), float32: per
    // group an f32 mean and a two-pass biased variance, each a sum in 64
    // shares and a tree (or in sequence, for many groups of at most 256):
    // within 2^-14 of its magnitude (as SUMS) for groups up to 2^16
    // elements, far below it beyond (the blocked order), then
    // (x − mean)·inv·scale + bias with
    // inv = 1/sqrt(variance + epsilon). To first order, against the CPU's
    // float64 (m = mean|x| of the group, M = mean((|x| + m)²), v the
    // variance, inv the CPU's):
    //   Mean      within 2^-14 · m (the sum) and one division;
    //   Variance  within 2^-13 · M: the squared deviations' sum (2^-14)
    //             and the mean's error, which adds only its square;
    //   1/sqrt    within 2^-13 · inv · (1 + M/(v + epsilon)): half the
    //             variance's relative error, sqrt and division a few ULP;
    //   Y         within 2^-12 · ((|x| + m)·inv·|scale|·(1 + M/(v + eps))
    //             + |bias|): the mean's error times inv·|scale|, the
    //             deviation times inv's error, four roundings.
    // So one scaled bound, 2^-12, with the magnitude of each output as
    // listed (tests/kernels/webgpu/norm_test.ts computes it).
    layerNorm: {
      placed: (on, x, options) => normPlaced(on, x, options),
      run: (on, x, options) =>
        layerNorm(on.batch, on.gpu(x), {
          ...normParams(on, options),
          beginNormAxis: options?.beginNormAxis,
        }),
      tolerance: NORMS,
    },
    instanceNorm: {
      placed: (on, x, options) => normPlaced(on, x, options),
      run: (on, x, options) =>
        instanceNorm(on.batch, on.gpu(x), normParams(on, options)),
      tolerance: NORMS,
    },
    groupNorm: {
      placed: (on, x, options) => normPlaced(on, x, options),
      run: (on, x, options) =>
        groupNorm(on.batch, on.gpu(x), {
          ...normParams(on, options),
          groups: options.groups,
          channelLast: options.channelLast,
        }),
      tolerance: NORMS,
    },
    // float32 (rnn.ts): per step the f32 matmuls (sums of I or H terms,
    // each within 2^-14 of Σ|w·x| + |b| at worst) and WGSL's sigmoid and
    // tanh (3e-5), against the CPU's float64 sums and activations with its
    // states rounded to float32. Errors carry from step to step through
    // the recurrence, so no bound holds for every set of weights; this one
    // is empirical, with margin: h and c of LSTM, GRU and RNN_TANH lie in
    // [-1, 1], hence an absolute 2^-12 (and a relative 2^-12 for
    // RNN_RELU's unbounded states), about 2000 × the largest difference
    // measured on llvmpipe over the tests' networks (Paddle's U(±1/√H)
    // initialization; up to 3 layers, bidirectional, H up to 33, T up to
    // 40): 1.2e-7.
    rnn: {
      placed: (on, x, preStates, weights) =>
        on.computes([x]) &&
        [x, ...preStates, ...weights].every((t) => t.dtype === "float32"),
      run: (on, x, preStates, weights, options) =>
        rnn(
          on.batch,
          on.gpu(x),
          preStates.map((t) => on.gpu(t)),
          weights.map((t) => on.gpu(t)),
          options,
        ),
      tolerance: { float32: { kind: "close", rtol: 2 ** -12, atol: 2 ** -12 } },
    },
    activation: {
      placed: (on, _kind, x) => on.computes([x]),
      run: (on, kind, x, params) =>
        activation(on.batch, kind, on.gpu(x), params),
      tolerance: ACTIVATION_BOUNDS,
    },
    stack: {
      placed: (on, xs) => on.moves(xs),
      run: (on, xs, axis) => stack(on.batch, xs.map((x) => on.gpu(x)), axis),
      tolerance: STRIDED_COPY,
    },
    broadcastTo: {
      placed: (on, x) => on.moves([x]),
      run: (on, x, shape) => broadcastTo(on.batch, on.gpu(x), shape),
      tolerance: STRIDED_COPY,
    },
  } satisfies GpuKernelTable,
);

/**
 * The kernels the WebGPU device runs on the GPU with no entry here: views
 * of a tensor already there (webgpu_device.ts makes them itself).
 *
 * @example Usage
 * ```ts
 * import { GPU_VIEWS } from "./gpu_kernels.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(GPU_VIEWS, ["reshape"]);
 * ```
 */
export const GPU_VIEWS: readonly (keyof Kernels)[] = ["reshape"];

/**
 * Whether float32 calls of a kernel, of one kind for a kernel that takes
 * one, may run on the GPU: the kernel has an entry that bounds that kind
 * (a kind with no bound runs on the CPU), or is a view. Where it is placed
 * still depends on the operands (webgpu_device.ts).
 *
 * @param kernel The kernel's name in `Kernels`.
 * @param kind Its kind, for a kernel that takes one.
 * @returns Whether such calls may run on the GPU.
 *
 * @example Usage
 * ```ts
 * import { runsOnGpu } from "./gpu_kernels.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(runsOnGpu("binary", "add"), true);
 * assertEquals(runsOnGpu("binary", "mod"), false); // on the CPU
 * assertEquals(runsOnGpu("addN"), false); // on the CPU
 * assertEquals(runsOnGpu("reshape"), true); // a view
 * ```
 */
export function runsOnGpu(kernel: keyof Kernels, kind?: string): boolean {
  if (GPU_VIEWS.includes(kernel)) return true;
  const tolerance = GPU_KERNELS[kernel]?.tolerance;
  if (tolerance === undefined) return false;
  return kind === undefined || kind in tolerance;
}

// Whether a per-dtype table of kinds (GPU_BINARY, GPU_REDUCE) lists `kind`
// for `dtype`.
function listed<K>(
  table: Readonly<Partial<Record<DType, readonly K[]>>>,
  dtype: DType,
  kind: K,
): boolean {
  return table[dtype]?.includes(kind) ?? false;
}

// A float32 normalization whose scale and bias (if any) are float32.
function normPlaced(
  on: GpuPlacement,
  x: Tensor,
  options: NormKernelOptions | undefined,
): boolean {
  const float32 = (t: Tensor | undefined) =>
    t === undefined || t.dtype === "float32";
  return on.computes([x]) && x.dtype === "float32" &&
    float32(options?.scale) && float32(options?.bias);
}

// The scale, bias and epsilon of a placed normalization, on the GPU.
function normParams(
  on: GpuPlacement,
  options: NormKernelOptions | undefined,
): { scale?: GpuTensor; bias?: GpuTensor; epsilon?: number } {
  const scale = options?.scale, bias = options?.bias;
  return {
    scale: scale === undefined ? undefined : on.gpu(scale),
    bias: bias === undefined ? undefined : on.gpu(bias),
    epsilon: options?.epsilon,
  };
}

function largeFloat32(shape: readonly number[], dtype: DType): boolean {
  return dtype === "float32" && shapeSize(shape) >= GPU_MIN_ELEMENTS;
}

// Fluid's mul: X and Y flattened to matrices at their column dims.
function mul2d(
  on: GpuPlacement,
  x: Tensor,
  y: Tensor,
  xCols: number,
  yCols: number,
): GpuTensor {
  const prod = (dims: readonly number[]) => dims.reduce((p, d) => p * d, 1);
  const [xRows, xRest] = [x.shape.slice(0, xCols), x.shape.slice(xCols)];
  const [yRows, yRest] = [y.shape.slice(0, yCols), y.shape.slice(yCols)];
  if (prod(xRest) !== prod(yRows)) {
    throw new RangeError("mul: shapes do not match"); // the CPU says how
  }
  const product = matmul(
    on.batch,
    on.gpu(x).view([prod(xRows), prod(xRest)]),
    on.gpu(y).view([prod(yRows), prod(yRest)]),
  );
  return product.view([...xRows, ...yRest]);
}
