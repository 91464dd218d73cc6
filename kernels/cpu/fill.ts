// Kernels that make tensors from nothing: constants, ranges and random
// samples. Random kernels take a key (the runtime owns seeding) and draw
// element i from the counter-based generator at position i
// (kernels/counter_random.ts), so the same key gives the same tensor on
// every device and worker.

import { allocate } from "../allocate.ts";
import { type CounterKey, randomBlock, unitFloat } from "../counter_random.ts";
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
 * Samples uniform in `[min, max)`: element `i` is `min + (max - min) * u`,
 * `u` the `[0, 1)` float of word `i` of the key's stream (see
 * kernels/counter_random.ts), rounded to the dtype (floored for integer
 * dtypes). float32 computes in float32, rounding after each step
 * (`lo = f32(min)`, `span = f32(f32(max) - lo)`, then `f32(f32(span * u) +
 * lo)`), exactly as the WGSL kernel does, so both devices give the same
 * bits (rounding to float32 may give `max` itself).
 *
 * @param shape The dims.
 * @param dtype A float or integer dtype.
 * @param min The lower bound.
 * @param max The upper bound.
 * @param key The generator's key; the same key gives the same samples.
 * @returns The samples.
 * @throws {TypeError} If `dtype` is bool.
 *
 * @example Usage
 * ```ts
 * import { uniformRandom } from "./fill.ts";
 * import { assert, assertEquals } from "@std/assert";
 *
 * const t = uniformRandom([1000], "float32", -1, 1, [7, 0]);
 * assertEquals(t.toNested(), uniformRandom([1000], "float32", -1, 1, [7, 0]).toNested());
 * assert([...t.data].every((v) => v >= -1 && v < 1));
 * ```
 */
export function uniformRandom(
  shape: readonly number[],
  dtype: DType,
  min: number,
  max: number,
  key: CounterKey,
): Tensor {
  if (dtype === "bool") {
    throw new TypeError(`uniform_random: dtype "bool" is not supported`);
  }
  const data = allocate(dtype, shapeSize(shape));
  const n = data.length;
  const words = new Uint32Array(4);
  if (dtype === "float32") {
    // span * u is exact in a double (24 × 24 bits), so fround rounds it
    // once, as f32 multiplication does; the sum of two float32s rounded
    // through a double is the correctly rounded float32 sum (53 >= 2·24+2).
    const out = data as Float32Array;
    const lo = Math.fround(min);
    const span = Math.fround(Math.fround(max) - lo);
    for (let i = 0; i < n; i++) {
      if ((i & 3) === 0) randomBlock(key, i / 4, words);
      out[i] = Math.fround(span * unitFloat(words[i & 3])) + lo;
    }
  } else {
    const round = isFloatDType(dtype) ? (v: number) => v : Math.floor;
    const out = data as StorageArray;
    for (let i = 0; i < n; i++) {
      if ((i & 3) === 0) randomBlock(key, i / 4, words);
      const u = unitFloat(words[i & 3]);
      out[i] = storageValue(round(min + (max - min) * u), dtype);
    }
  }
  return new Tensor(dtype, shape, data);
}

/**
 * Samples from a normal distribution by the Box–Muller transform: elements
 * `2j` and `2j + 1` come from words `2j` and `2j + 1` of the key's stream,
 * as `u1 = 1 - u(2j)` (in `(0, 1]`, so the log is finite) and
 * `u2 = u(2j + 1)`: `mean + std * r * cos(θ)` and `mean + std * r * sin(θ)`
 * with `r = sqrt(-2 ln u1)` and `θ = 2π u2`, computed in float64 and
 * rounded to the dtype. Every sample lies within 5.8 `std` of `mean`.
 *
 * @param shape The dims.
 * @param dtype A float dtype.
 * @param mean The distribution's mean.
 * @param std Its standard deviation.
 * @param key The generator's key; the same key gives the same samples.
 * @returns The samples.
 * @throws {TypeError} If `dtype` is not a float dtype.
 *
 * @example Usage
 * ```ts
 * import { gaussianRandom } from "./fill.ts";
 * import { assert } from "@std/assert";
 *
 * const t = gaussianRandom([10_000], "float64", 3, 2, [1, 2]);
 * const values = [...t.data as Float64Array];
 * const mean = values.reduce((s, v) => s + v, 0) / t.size;
 * assert(Math.abs(mean - 3) < 0.1);
 * assert(values.every((v) => Math.abs(v - 3) <= 5.8 * 2));
 * ```
 */
export function gaussianRandom(
  shape: readonly number[],
  dtype: DType,
  mean: number,
  std: number,
  key: CounterKey,
): Tensor {
  if (!isFloatDType(dtype)) {
    throw new TypeError(
      `gaussian_random: dtype "${dtype}" is not a float type`,
    );
  }
  const data = allocate(dtype, shapeSize(shape));
  const out = data as Float64Array;
  const words = new Uint32Array(4);
  for (let i = 0; i < out.length; i += 2) {
    if ((i & 3) === 0) randomBlock(key, i / 4, words);
    const r = Math.sqrt(-2 * Math.log(1 - unitFloat(words[i & 3])));
    const angle = 2 * Math.PI * unitFloat(words[(i & 3) + 1]);
    out[i] = mean + std * (r * Math.cos(angle));
    if (i + 1 < out.length) out[i + 1] = mean + std * (r * Math.sin(angle));
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
