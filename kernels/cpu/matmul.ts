// Matrix products: Fluid's `mul` (operands flattened to matrices) and the
// batched, broadcasting `matmul`.
//
// Float32 products with enough work per row of the result (n·k >=
// WASM_MIN_ROW_WORK) run the WebAssembly SIMD kernel of `wasm/gemm.ts`:
// they accumulate in float32, rounding once per multiply and per add, like
// any sgemm and like a float32 GPU kernel.
// Everything else has one kernel per domain, each in i-k-j order: the inner
// loop walks a row of Y and a row of the accumulator with stride 1. Smaller
// float products, and all float64 and float16 ones, accumulate in float64
// and round once per output element. Integer products wrap as C's do:
// modulo 2^32, or 2^64 for int64.

import { allocate } from "../allocate.ts";
import { broadcastShapes } from "../broadcast.ts";
import { contiguousStrides, formatShape, shapeSize } from "../_shape.ts";
import {
  type DType,
  isFloatDType,
  promoteTypes,
  type TypedArray,
} from "../dtype.ts";
import type {
  Float32Gemm,
  MatmulKernelOptions,
  Mul2dKernelOptions,
} from "../kernel_options.ts";
import { Tensor } from "../tensor.ts";
import { rowOffsets } from "./_copy.ts";
import { cast } from "./cast.ts";
import { transpose } from "./shape.ts";
import { matmulFloat32 } from "./wasm/gemm.ts";

// The float32 work per row of the result (n·k) from which the WASM kernel
// runs. It is faster from the smallest products (2–4× at 4³, 6× at 16³,
// 15–17× from 96³ on), but for tiny rows both paths take microseconds, and
// there the float64 accumulation's exact small results are worth more.
// The choice looks at a row's work, never at the number of rows, so that a
// row comes out with the same bits however the rows are split (across
// workers, or across processes by the transpiler).
const WASM_MIN_ROW_WORK = 16 ** 2;

/**
 * Fluid's `mul`: X flattened to a matrix at `xNumColDims` (rows are the dims
 * before it, columns the rest), Y likewise at `yNumColDims`, multiplied. The
 * result's shape is `x.shape[:xNumColDims] ++ y.shape[yNumColDims:]`.
 *
 * @param x The left operand.
 * @param y The right operand.
 * @param xNumColDims How many leading dims of X form the rows.
 * @param yNumColDims How many leading dims of Y form the rows.
 * @param options Who computes large float32 products.
 * @returns The product.
 * @throws {RangeError} If a num_col_dims is out of `[1, rank)` or the inner
 * sizes differ.
 *
 * @example Usage
 * ```ts
 * import { mul2d } from "./matmul.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([[[1, 2], [3, 4]]], "float32"); // [1, 2, 2]
 * const y = Tensor.fromArray([[1], [1], [1], [1]], "float32"); // [4, 1]
 * assertEquals(mul2d(x, y, 1, 1).toNested(), [[10]]);
 * ```
 */
export function mul2d(
  x: Tensor,
  y: Tensor,
  xNumColDims = 1,
  yNumColDims = 1,
  options: Mul2dKernelOptions = {},
): Tensor {
  for (const [t, n] of [[x, xNumColDims], [y, yNumColDims]] as const) {
    if (!Number.isInteger(n) || n < 1 || n >= t.shape.length) {
      throw new RangeError(
        `mul: num_col_dims ${n} is out of range for ${formatShape(t.shape)}`,
      );
    }
  }
  const m = shapeSize(x.shape.slice(0, xNumColDims));
  const k = shapeSize(x.shape.slice(xNumColDims));
  const k2 = shapeSize(y.shape.slice(0, yNumColDims));
  const n = shapeSize(y.shape.slice(yNumColDims));
  if (k !== k2) {
    throw new RangeError(
      `mul: shapes ${formatShape(x.shape)} and ${
        formatShape(y.shape)
      } do not match: ${k} columns against ${k2} rows`,
    );
  }
  const dtype = productDType(x, y, "mul");
  const data = allocate(dtype, m * n);
  gemm(
    dtype,
    [cast(x, dtype).data, cast(y, dtype).data, data],
    [m, k, n],
    1,
    options.gemmFloat32,
  );
  const shape = [
    ...x.shape.slice(0, xNumColDims),
    ...y.shape.slice(yNumColDims),
  ];
  return new Tensor(dtype, shape, data);
}

/**
 * Batched matrix product. The last two dims are the matrices (after the
 * optional transposes); the dims before them broadcast as NumPy's. A 1-D X
 * is a row vector and a 1-D Y a column vector, whatever the transpose flags,
 * and their vector dim is dropped from the result; two vectors give `[1]`.
 *
 * @param x The left operand, rank >= 1.
 * @param y The right operand, rank >= 1.
 * @param options Transposes and the `alpha` factor.
 * @returns `alpha * x @ y`.
 * @throws {RangeError} If an operand has rank 0, the inner dims differ, the
 * batch dims do not broadcast, or an integer product gets a fractional alpha.
 * @throws {TypeError} If both operands are bool.
 *
 * @example Usage
 * ```ts
 * import { matmul } from "./matmul.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([[1, 2], [3, 4]], "float32");
 * const y = Tensor.fromArray([[5, 6], [7, 8]], "float32");
 * assertEquals(matmul(x, y).toNested(), [[19, 22], [43, 50]]);
 * assertEquals(matmul(x, y, { transposeY: true, alpha: 2 }).toNested(), [[34, 46], [78, 106]]);
 * ```
 */
export function matmul(
  x: Tensor,
  y: Tensor,
  options: MatmulKernelOptions = {},
): Tensor {
  if (x.shape.length === 0 || y.shape.length === 0) {
    throw new RangeError(
      `matmul: shapes ${formatShape(x.shape)} and ${
        formatShape(y.shape)
      }: operands need rank >= 1`,
    );
  }
  const dtype = productDType(x, y, "matmul");
  const a = asMatrices(cast(x, dtype), options.transposeX === true, "row");
  const b = asMatrices(cast(y, dtype), options.transposeY === true, "column");
  const [m, k] = a.shape.slice(-2), [k2, n] = b.shape.slice(-2);
  if (k !== k2) {
    throw new RangeError(
      `matmul: shapes ${formatShape(x.shape)} and ${
        formatShape(y.shape)
      } do not match: inner dims ${k} and ${k2}`,
    );
  }
  const batch = broadcastShapes(a.shape.slice(0, -2), b.shape.slice(0, -2));
  const data = allocate(dtype, shapeSize(batch) * m * n);
  const aStarts = batchOffsets(a.shape.slice(0, -2), batch, m * k);
  const bStarts = batchOffsets(b.shape.slice(0, -2), batch, k * n);
  for (let i = 0; i < aStarts.length; i++) {
    const matrices = [
      a.data.subarray(aStarts[i], aStarts[i] + m * k),
      b.data.subarray(bStarts[i], bStarts[i] + k * n),
      data.subarray(i * m * n, (i + 1) * m * n),
    ];
    gemm(dtype, matrices, [m, k, n], options.alpha ?? 1, options.gemmFloat32);
  }
  const shape = [...batch];
  if (x.shape.length > 1) shape.push(m);
  if (y.shape.length > 1) shape.push(n);
  return new Tensor(dtype, shape.length === 0 ? [1] : shape, data);
}

function productDType(x: Tensor, y: Tensor, action: string): DType {
  const dtype = promoteTypes(x.dtype, y.dtype);
  if (dtype === "bool") {
    throw new TypeError(`${action}: bool operands are not supported`);
  }
  return dtype;
}

// The operand as a stack of matrices: vectors become [1, K] rows or [K, 1]
// columns (ignoring the transpose flag, as Paddle does); a flagged operand
// of rank >= 2 is transposed in its last two dims.
function asMatrices(
  t: Tensor,
  transposed: boolean,
  vector: "row" | "column",
): Tensor {
  if (t.shape.length === 1) {
    const shape = vector === "row" ? [1, t.shape[0]] : [t.shape[0], 1];
    return new Tensor(t.dtype, shape, t.data);
  }
  if (!transposed) return t;
  const axes = t.shape.map((_, i) => i);
  axes.push(...axes.splice(-2).reverse());
  return transpose(t, axes);
}

// The offset of each operand's matrix for every index of the batch, in
// row-major batch order; `matrix` is the operand's elements per matrix.
function batchOffsets(
  own: readonly number[],
  batch: readonly number[],
  matrix: number,
): Float64Array {
  const strides = contiguousStrides(own).map((
    s,
    d,
  ) => (own[d] === 1 ? 0 : s * matrix));
  const padded = [
    ...new Array<number>(batch.length - own.length).fill(0),
    ...strides,
  ];
  // A trailing dim of 1 makes each row one batch index.
  return rowOffsets([...batch, 1], [...padded, 0]);
}

type Numbers = { [index: number]: number };

// out = alpha * a (m x k) @ b (k x n); all three are exactly those matrices.
function gemm(
  dtype: DType,
  [a, b, out]: readonly TypedArray[],
  [m, k, n]: readonly number[],
  alpha: number,
  gemmFloat32: Float32Gemm = matmulFloat32,
): void {
  if (dtype === "float32" && n * k >= WASM_MIN_ROW_WORK && m > 0) {
    gemmFloat32(
      { data: a as Float32Array, rows: m, cols: k },
      { data: b as Float32Array, rows: k, cols: n },
      { out: out as Float32Array, alpha },
    );
    return;
  }
  if (isFloatDType(dtype)) {
    gemmFloat(a as Numbers, b as Numbers, out as Numbers, [m, k, n], alpha);
    return;
  }
  if (!Number.isInteger(alpha)) {
    throw new RangeError(
      `matmul: alpha ${alpha} is not an integer for dtype "${dtype}"`,
    );
  }
  if (dtype === "int64") {
    gemmBig(a as BigInt64Array, b as BigInt64Array, out as BigInt64Array, [
      m,
      k,
      n,
    ], BigInt(alpha));
  } else {
    gemmInt(a as Numbers, b as Numbers, out as Numbers, [m, k, n], alpha);
  }
}

function gemmFloat(
  a: Numbers,
  b: Numbers,
  out: Numbers,
  [m, k, n]: readonly number[],
  alpha: number,
): void {
  const row = new Float64Array(n);
  for (let i = 0; i < m; i++) {
    row.fill(0);
    for (let p = 0; p < k; p++) {
      const av = a[i * k + p], bRow = p * n;
      for (let j = 0; j < n; j++) row[j] += av * b[bRow + j];
    }
    for (let j = 0; j < n; j++) out[i * n + j] = alpha * row[j];
  }
}

function gemmInt(
  a: Numbers,
  b: Numbers,
  out: Numbers,
  [m, k, n]: readonly number[],
  alpha: number,
): void {
  // Int32Array stores wrap, so each += keeps the sum exact modulo 2^32.
  const row = new Int32Array(n);
  for (let i = 0; i < m; i++) {
    row.fill(0);
    for (let p = 0; p < k; p++) {
      const av = a[i * k + p], bRow = p * n;
      for (let j = 0; j < n; j++) row[j] += Math.imul(av, b[bRow + j]);
    }
    for (let j = 0; j < n; j++) out[i * n + j] = Math.imul(alpha, row[j]);
  }
}

function gemmBig(
  a: BigInt64Array,
  b: BigInt64Array,
  out: BigInt64Array,
  [m, k, n]: readonly number[],
  alpha: bigint,
): void {
  // BigInt64Array stores wrap, so each += keeps the sum exact modulo 2^64.
  const row = new BigInt64Array(n);
  for (let i = 0; i < m; i++) {
    row.fill(0n);
    for (let p = 0; p < k; p++) {
      const av = a[i * k + p], bRow = p * n;
      for (let j = 0; j < n; j++) row[j] += av * b[bRow + j];
    }
    for (let j = 0; j < n; j++) out[i * n + j] = alpha * row[j];
  }
}
