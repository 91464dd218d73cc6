// Kernels that make tensors from nothing: constants, ranges and random
// samples. Random kernels take their uniform source as `next`, so the
// runtime owns seeding and the same seed gives the same tensor everywhere.

import { allocate } from "../allocate.ts";
import { shapeSize } from "../_shape.ts";
import {
  type DType,
  isFloatDType,
  type Scalar,
  type StorageArray,
  storageValue,
} from "../dtype.ts";
import { Tensor } from "../tensor.ts";

/**
 * A tensor with every element `value` (converted as `storageValue` says, so
 * a bigint fills int64 exactly).
 *
 * @param shape The dims.
 * @param dtype The element type.
 * @param value The element.
 * @returns The new tensor.
 *
 * @example Usage
 * ```ts
 * import { fill } from "./fill.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(fill([2], "int64", 2n ** 62n).toNested(), [2n ** 62n, 2n ** 62n]);
 * ```
 */
export function fill(
  shape: readonly number[],
  dtype: DType,
  value: Scalar,
): Tensor {
  return Tensor.full(shape, dtype, value);
}

/**
 * `[start, start + step, start + 2 * step, ...)`, stopping before `end`, as
 * NumPy's `arange`: `max(0, ceil((end - start) / step))` elements. int64 is
 * exact when the bounds are bigints.
 *
 * @param start The first element.
 * @param end The bound, never reached.
 * @param step The difference between neighbours; not 0.
 * @param dtype The element type; not bool.
 * @returns A 1-D tensor.
 * @throws {RangeError} If `step` is 0 or a bound is not finite.
 * @throws {TypeError} If `dtype` is bool.
 *
 * @example Usage
 * ```ts
 * import { range } from "./fill.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(range(0, 10, 3, "int32").toNested(), [0, 3, 6, 9]);
 * assertEquals(range(1, 0, -0.25, "float32").toNested(), [1, 0.75, 0.5, 0.25]);
 * ```
 */
export function range(
  start: number | bigint,
  end: number | bigint,
  step: number | bigint,
  dtype: DType,
): Tensor {
  if (dtype === "bool") {
    throw new TypeError(`range: dtype "bool" is not supported`);
  }
  if (dtype === "int64") return bigRange(toBig(start), toBig(end), toBig(step));
  const [s, e, d] = [Number(start), Number(end), Number(step)];
  if (
    d === 0 || !Number.isFinite(s) || !Number.isFinite(e) || !Number.isFinite(d)
  ) {
    throw new RangeError(`range: cannot step from ${s} to ${e} by ${d}`);
  }
  const n = Math.max(0, Math.ceil((e - s) / d));
  const data = allocate(dtype, n);
  const out = data as StorageArray;
  for (let i = 0; i < n; i++) out[i] = s + i * d;
  return new Tensor(dtype, [n], data);
}

/**
 * Samples uniform in `[min, max)`: `min + (max - min) * next()`, rounded to
 * the dtype (floored for integer dtypes).
 *
 * @param shape The dims.
 * @param dtype A float or integer dtype.
 * @param min The lower bound.
 * @param max The upper bound.
 * @param next A uniform source in `[0, 1)`, called once per element.
 * @returns The samples.
 * @throws {TypeError} If `dtype` is bool.
 *
 * @example Usage
 * ```ts
 * import { uniformRandom } from "./fill.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const t = uniformRandom([2], "float32", -1, 1, () => 0.75);
 * assertEquals(t.toNested(), [0.5, 0.5]);
 * ```
 */
export function uniformRandom(
  shape: readonly number[],
  dtype: DType,
  min: number,
  max: number,
  next: () => number,
): Tensor {
  if (dtype === "bool") {
    throw new TypeError(`uniform_random: dtype "bool" is not supported`);
  }
  const round = isFloatDType(dtype) ? (v: number) => v : Math.floor;
  const data = allocate(dtype, shapeSize(shape));
  const out = data as StorageArray;
  for (let i = 0; i < data.length; i++) {
    out[i] = storageValue(round(min + (max - min) * next()), dtype);
  }
  return new Tensor(dtype, shape, data);
}

/**
 * Samples from a normal distribution by the Box–Muller transform, which
 * turns each pair of `next()` draws into two samples.
 *
 * @param shape The dims.
 * @param dtype A float dtype.
 * @param mean The distribution's mean.
 * @param std Its standard deviation.
 * @param next A uniform source in `[0, 1)`.
 * @returns The samples.
 * @throws {TypeError} If `dtype` is not a float dtype.
 *
 * @example Usage
 * ```ts
 * import { gaussianRandom } from "./fill.ts";
 * import { assertEquals } from "@std/assert";
 *
 * // u1 = 1 - 0 gives radius 0, so both samples are the mean.
 * const t = gaussianRandom([2], "float64", 3, 1, () => 0);
 * assertEquals(t.toNested(), [3, 3]);
 * ```
 */
export function gaussianRandom(
  shape: readonly number[],
  dtype: DType,
  mean: number,
  std: number,
  next: () => number,
): Tensor {
  if (!isFloatDType(dtype)) {
    throw new TypeError(
      `gaussian_random: dtype "${dtype}" is not a float type`,
    );
  }
  const data = allocate(dtype, shapeSize(shape));
  const out = data as Float64Array;
  for (let i = 0; i < out.length; i += 2) {
    // 1 - next() lies in (0, 1], so the log is finite.
    const radius = Math.sqrt(-2 * Math.log(1 - next())) * std;
    const angle = 2 * Math.PI * next();
    out[i] = mean + radius * Math.cos(angle);
    if (i + 1 < out.length) out[i + 1] = mean + radius * Math.sin(angle);
  }
  return new Tensor(dtype, shape, data);
}

function toBig(v: number | bigint): bigint {
  if (typeof v === "bigint") return v;
  if (!Number.isFinite(v)) {
    throw new RangeError(`range: bound ${v} is not finite`);
  }
  return BigInt(Math.trunc(v));
}

function bigRange(start: bigint, end: bigint, step: bigint): Tensor {
  if (step === 0n) {
    throw new RangeError(`range: cannot step from ${start} to ${end} by 0`);
  }
  const diff = end - start;
  let n = diff / step;
  if (diff % step !== 0n && (diff > 0n) === (step > 0n)) n += 1n;
  if (n < 0n) n = 0n;
  if (n > 2n ** 32n) {
    throw new RangeError(
      `range: ${n} elements from ${start} to ${end} is too many`,
    );
  }
  const data = allocate("int64", Number(n)) as BigInt64Array;
  for (let i = 0; i < data.length; i++) data[i] = start + BigInt(i) * step;
  return new Tensor("int64", [data.length], data);
}
