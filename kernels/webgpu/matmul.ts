// float32 and float16 batched matmul on the GPU, with the CPU kernel's semantics
// (kernels/cpu/matmul.ts): 1-D operands as a row (X) or column (Y) whatever
// the transpose flags, batch dims broadcast as NumPy's, alpha applied once
// per output element.
//
// Invariants:
//   The kernel is chosen from the shape alone (see chooseKernel): the same
//   shapes always run the same WGSL, so results are reproducible.
//   Transposed operands are first copied transposed (an O(n²) dispatch in
//   the same batch), so every product kernel reads row-major [M, K]·[K, N].
//   Accumulation is float32 in k order, like any sgemm: results agree with
//   the CPU within TOLERANCE.matmul, not bit for bit. float16 operands are
//   widened to f32 (exactly) and accumulated the same way; each result is
//   rounded once to float16 (TOLERANCE_F16.matmul).

import { broadcastShapes } from "../broadcast.ts";
import { contiguousStrides, formatShape } from "../_shape.ts";
import type { MatmulKernelOptions } from "../kernel_options.ts";
import type { GpuBatch } from "./gpu_batch.ts";
import type { GpuTensor } from "./gpu_tensor.ts";
import {
  blockedScalarWgsl,
  blockedVec4Wgsl,
  type BlockShape,
  type MatmulDType,
  simpleWgsl,
  transposeWgsl,
} from "./_matmul_wgsl.ts";
import { copyStrided } from "./_strided_copy.ts";

/** Which matmul kernel runs. */
export type MatmulKernel = "vec4-blocked" | "scalar-blocked" | "simple";

/** Options of {@linkcode matmul}: the CPU kernel's, minus its gemm hook. */
export type GpuMatmulOptions = Pick<
  MatmulKernelOptions,
  "transposeX" | "transposeY" | "alpha"
>;

// 8 rows × 2 vec4s (8×8 outputs) per invocation, 8×4 invocations: a
// 32×64 tile per workgroup. Measured fastest of 4×4 … 16×16 on llvmpipe.
const VEC4_BLOCK: BlockShape = { rows: 8, vec4s: 2, workgroup: [8, 4] };
// Below this much work (m·n·k) the simple kernel's extra loads cost less
// than the idle lanes of a block.
const SIMPLE_MAX_WORK = 32 ** 3;
const MAX_Z = 65535;

/**
 * The kernel {@linkcode matmul} runs for one [M, K]·[K, N] product.
 *
 * @param m Rows of the product.
 * @param k The inner dim.
 * @param n Columns of the product.
 * @returns `vec4-blocked` when K and N are multiples of 4 and the product is
 * not tiny, `scalar-blocked` for other large products, else `simple`.
 *
 * @example Usage
 * ```ts
 * import { chooseKernel } from "./matmul.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(chooseKernel(1024, 1024, 1024), "vec4-blocked");
 * assertEquals(chooseKernel(1000, 33, 7), "scalar-blocked");
 * assertEquals(chooseKernel(2, 3, 4), "simple");
 * ```
 */
export function chooseKernel(m: number, k: number, n: number): MatmulKernel {
  if (m * n * k < SIMPLE_MAX_WORK || m * n < 64) return "simple";
  if (k % 4 === 0 && n % 4 === 0) return "vec4-blocked";
  return "scalar-blocked";
}

/**
 * Batched float32 or float16 matrix product, `alpha · X @ Y`, recorded into
 * a batch (float16 accumulates in f32 and rounds each result once).
 *
 * @param batch Where the dispatches go.
 * @param x The left operand, float32 or float16, rank >= 1.
 * @param y The right operand, of x's dtype, rank >= 1.
 * @param options Transposes and `alpha`.
 * @returns A new GPU tensor of the operands' dtype, shaped as the CPU
 * kernel's result.
 * @throws {RangeError} If an operand has rank 0, the inner dims differ or
 * the batch dims do not broadcast.
 * @throws {TypeError} If the operands are not both float32 or both
 * float16.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { matmul } from "./matmul.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const x = batch.upload(Tensor.fromArray([[1, 2], [3, 4]], "float32"));
 *   const y = batch.upload(Tensor.fromArray([[5, 6], [7, 8]], "float32"));
 *   const out = matmul(batch, x, y, { transposeY: true, alpha: 2 });
 *   assertEquals((await batch.read([out]))[0].toNested(), [[34, 46], [78, 106]]);
 *   gpu.destroy();
 * }
 * ```
 */
export function matmul(
  batch: GpuBatch,
  x: GpuTensor,
  y: GpuTensor,
  options: GpuMatmulOptions = {},
): GpuTensor {
  if (x.shape.length === 0 || y.shape.length === 0) {
    throw new RangeError(
      `matmul: shapes ${formatShape(x.shape)} and ${
        formatShape(y.shape)
      }: operands need rank >= 1`,
    );
  }
  const dtype = x.dtype;
  if ((dtype !== "float32" && dtype !== "float16") || y.dtype !== dtype) {
    throw new TypeError(
      `matmul: the GPU kernel takes float32 or float16, got ${x.dtype} and ${y.dtype}`,
    );
  }
  const a = asMatrices(x, "row"), b = asMatrices(y, "column");
  const [m, k] = flip(a.shape.slice(-2), options.transposeX === true && a.own);
  const [k2, n] = flip(b.shape.slice(-2), options.transposeY === true && b.own);
  if (k !== k2) {
    throw new RangeError(
      `matmul: shapes ${formatShape(x.shape)} and ${
        formatShape(y.shape)
      } do not match: inner dims ${k} and ${k2}`,
    );
  }
  const aBatch = a.shape.slice(0, -2), bBatch = b.shape.slice(0, -2);
  const batchShape = broadcastShapes(aBatch, bBatch);
  const shape = [...batchShape];
  if (x.shape.length > 1) shape.push(m);
  if (y.shape.length > 1) shape.push(n);
  const out = batch.allocate(dtype, shape.length === 0 ? [1] : shape);
  if (out.size === 0) return out;
  const at = options.transposeX === true && a.own
    ? transposed(batch, x, a.shape)
    : x;
  const bt = options.transposeY === true && b.own
    ? transposed(batch, y, b.shape)
    : y;
  const aOffsets = batchOffsets(aBatch, batchShape, m * k);
  const bOffsets = batchOffsets(bBatch, batchShape, k * n);
  const kernel = chooseKernel(m, k, n);
  const pipeline = batch.pipelines.get(
    { op: "matmul", dtype, variant: kernel },
    kernel === "vec4-blocked"
      ? () => blockedVec4Wgsl(VEC4_BLOCK, dtype)
      : kernel === "scalar-blocked"
      ? () => blockedScalarWgsl(dtype)
      : () => simpleWgsl(dtype),
  );
  const [gx, gy] = grid(kernel, m, n);
  const alphaBits =
    new Uint32Array(new Float32Array([options.alpha ?? 1]).buffer)[0];
  // Batches beyond the z limit go in further dispatches, each told its
  // first batch (p[4]).
  for (let z0 = 0; z0 < aOffsets.length; z0 += MAX_Z) {
    const count = Math.min(MAX_Z, aOffsets.length - z0);
    const params = new Uint32Array(5 + 2 * count);
    params.set([m, k, n, alphaBits, z0]);
    for (let z = 0; z < count; z++) {
      params[5 + 2 * z] = aOffsets[z0 + z];
      params[6 + 2 * z] = bOffsets[z0 + z];
    }
    batch.dispatch({
      pipeline,
      buffers: [at.buffer, bt.buffer, out.buffer],
      params,
      workgroups: [gx, gy, count],
    });
  }
  if (at !== x) at.release();
  if (bt !== y) bt.release();
  return out;
}

function grid(kernel: MatmulKernel, m: number, n: number): [number, number] {
  if (kernel === "simple") return [Math.ceil((m * n) / 64), 1];
  if (kernel === "scalar-blocked") {
    return [Math.ceil(n / 32), Math.ceil(m / 32)];
  }
  const [wx, wy] = VEC4_BLOCK.workgroup;
  return [
    Math.ceil(n / 4 / VEC4_BLOCK.vec4s / wx),
    Math.ceil(m / VEC4_BLOCK.rows / wy),
  ];
}

// The operand as a stack of matrices: a vector becomes [1, K] or [K, 1];
// `own` says whether the last two dims are the operand's (so a transpose
// flag applies to them, as in the CPU kernel).
function asMatrices(
  t: GpuTensor,
  vector: "row" | "column",
): { shape: readonly number[]; own: boolean } {
  if (t.shape.length > 1) return { shape: t.shape, own: true };
  const d = t.shape[0];
  return { shape: vector === "row" ? [1, d] : [d, 1], own: false };
}

function flip(dims: readonly number[], swap: boolean): [number, number] {
  return swap ? [dims[1], dims[0]] : [dims[0], dims[1]];
}

// A copy of `t` with its last two dims swapped, recorded in `batch`.
function transposed(
  batch: GpuBatch,
  t: GpuTensor,
  shape: readonly number[],
): GpuTensor {
  const [r, c] = shape.slice(-2);
  const outShape = [...shape.slice(0, -2), c, r];
  const out = batch.allocate(t.dtype as MatmulDType, outShape);
  if (t.size === 0) return out;
  if (t.dtype === "float16") {
    // 16-bit elements: the general strided copy, [.., c, r] from [.., r, c].
    copyStrided(batch, t, out, {
      dims: [t.size / (r * c), c, r],
      xBase: 0,
      xStrides: [r * c, 1, c],
      outBase: 0,
      outStrides: [r * c, r, 1],
    });
    return out;
  }
  const pipeline = batch.pipelines.get(
    { op: "matmul", dtype: "float32", variant: "transpose" },
    transposeWgsl,
  );
  batch.dispatch({
    pipeline,
    buffers: [t.buffer, out.buffer],
    params: new Uint32Array([r, c, t.size]),
    workgroups: [Math.min(Math.ceil(t.size / 256), MAX_Z)],
  });
  return out;
}

// The element offset of each operand's matrix for every batch index, in
// row-major batch order; `matrix` is the operand's elements per matrix.
function batchOffsets(
  own: readonly number[],
  batch: readonly number[],
  matrix: number,
): Uint32Array {
  const strides = contiguousStrides(own);
  const pad = batch.length - own.length;
  let count = 1;
  for (const d of batch) count *= d;
  const offsets = new Uint32Array(count);
  const index = new Array<number>(batch.length).fill(0);
  for (let i = 0; i < count; i++) {
    let offset = 0;
    for (let d = 0; d < own.length; d++) {
      if (own[d] !== 1) offset += index[d + pad] * strides[d];
    }
    offsets[i] = offset * matrix;
    for (let d = batch.length - 1; d >= 0; d--) {
      if (++index[d] < batch[d]) break;
      index[d] = 0;
    }
  }
  return offsets;
}
