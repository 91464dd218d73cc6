// Tensor element types: how each is stored, how a JS value becomes an
// element, and which type a mixed-type binary op computes in.
//
// Storage: bool is a Uint8Array holding only 0 and 1; int64 is a
// BigInt64Array, so it is exact over its whole range; every other dtype is
// the typed array of the same name. Storing into a typed array rounds (floats)
// or wraps (integers) to the element type, and kernels rely on that: a float32
// result computed in float64 and stored is Math.fround of it.

/** A tensor element type. */
export type DType =
  | "bool"
  | "int8"
  | "uint8"
  | "int16"
  | "int32"
  | "int64"
  | "float16"
  | "float32"
  | "float64";

/** The typed arrays that hold tensor elements. */
export type TypedArray =
  | Uint8Array
  | Int8Array
  | Int16Array
  | Int32Array
  | BigInt64Array
  | Float16Array
  | Float32Array
  | Float64Array;

/** A JS value that can become a tensor element of any dtype. */
export type Scalar = number | bigint | boolean;

/**
 * Any tensor storage, seen element by element. Kernels that only move
 * elements (copies, gathers) use it so one loop serves every dtype.
 */
export interface StorageArray {
  /** The element at an index: a bigint for int64, a number otherwise. */
  [index: number]: number | bigint;
  /** The number of elements. */
  readonly length: number;
}

/**
 * Every dtype, narrowest first within each kind.
 *
 * @example Usage
 * ```ts
 * import { DTYPES } from "./dtype.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(DTYPES.length, 9);
 * assertEquals(DTYPES.includes("float16"), true);
 * ```
 */
export const DTYPES: readonly DType[] = [
  "bool",
  "int8",
  "uint8",
  "int16",
  "int32",
  "int64",
  "float16",
  "float32",
  "float64",
];

type ArrayType = new (length: number) => TypedArray;

const ARRAY_TYPES: Readonly<Record<DType, ArrayType>> = {
  bool: Uint8Array,
  int8: Int8Array,
  uint8: Uint8Array,
  int16: Int16Array,
  int32: Int32Array,
  int64: BigInt64Array,
  float16: Float16Array,
  float32: Float32Array,
  float64: Float64Array,
};

// Rank within a kind, for promotion: a wider type holds every value of a
// narrower one. uint8 is not ranked against the signed types (see promote).
const INT_RANK: Readonly<Partial<Record<DType, number>>> = {
  int8: 1,
  int16: 2,
  int32: 3,
  int64: 4,
};
const FLOAT_RANK: Readonly<Partial<Record<DType, number>>> = {
  float16: 1,
  float32: 2,
  float64: 3,
};

/**
 * Whether a string names a dtype.
 *
 * @param name Any string.
 * @returns `true` when `name` is a {@linkcode DType}.
 *
 * @example Usage
 * ```ts
 * import { isDType } from "./dtype.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(isDType("int64"), true);
 * assertEquals(isDType("complex64"), false);
 * ```
 */
export function isDType(name: string): name is DType {
  return Object.hasOwn(ARRAY_TYPES, name);
}

/**
 * Whether a dtype is a floating-point type.
 *
 * @param dtype The dtype to test.
 * @returns `true` for float16, float32 and float64.
 *
 * @example Usage
 * ```ts
 * import { isFloatDType } from "./dtype.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(isFloatDType("float16"), true);
 * assertEquals(isFloatDType("int32"), false);
 * ```
 */
export function isFloatDType(dtype: DType): boolean {
  return dtype === "float32" || dtype === "float64" || dtype === "float16";
}

/**
 * Whether a dtype is an integer type. bool is not.
 *
 * @param dtype The dtype to test.
 * @returns `true` for int8, uint8, int16, int32 and int64.
 *
 * @example Usage
 * ```ts
 * import { isIntegerDType } from "./dtype.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(isIntegerDType("uint8"), true);
 * assertEquals(isIntegerDType("bool"), false);
 * ```
 */
export function isIntegerDType(dtype: DType): boolean {
  return dtype === "uint8" || INT_RANK[dtype] !== undefined;
}

/**
 * The typed-array constructor that stores a dtype.
 *
 * @param dtype The element type.
 * @returns The constructor, e.g. `BigInt64Array` for int64.
 *
 * @example Usage
 * ```ts
 * import { arrayType } from "./dtype.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(arrayType("bool"), Uint8Array);
 * assertEquals(arrayType("int64"), BigInt64Array);
 * ```
 */
export function arrayType(dtype: DType): new (length: number) => TypedArray {
  return ARRAY_TYPES[dtype];
}

/**
 * The size in bytes of one element of a dtype.
 *
 * @param dtype The element type.
 * @returns 1, 2, 4 or 8.
 *
 * @example Usage
 * ```ts
 * import { itemSize } from "./dtype.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(itemSize("float16"), 2);
 * assertEquals(itemSize("int64"), 8);
 * ```
 */
export function itemSize(dtype: DType): number {
  return (ARRAY_TYPES[dtype] as unknown as { BYTES_PER_ELEMENT: number })
    .BYTES_PER_ELEMENT;
}

/**
 * The dtype a binary op on two dtypes computes in and returns.
 *
 * The result depends on the dtypes only, never on shapes, so shape and type
 * inference can use it before anything runs:
 * - equal dtypes: that dtype;
 * - bool with anything: the other dtype (bool counts as 0 and 1);
 * - float with integer: the float dtype (int64 with float32 is float32, as
 *   in PyTorch; write a cast to float64 for exactness beyond 2^24);
 * - two floats or two signed integers: the wider one;
 * - uint8 with int8: int16; uint8 with a wider signed type: that type.
 *
 * @param a The first operand's dtype.
 * @param b The second operand's dtype.
 * @returns The common dtype.
 *
 * @example Usage
 * ```ts
 * import { promoteTypes } from "./dtype.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(promoteTypes("int64", "float32"), "float32");
 * assertEquals(promoteTypes("uint8", "int8"), "int16");
 * assertEquals(promoteTypes("bool", "int32"), "int32");
 * ```
 */
export function promoteTypes(a: DType, b: DType): DType {
  if (a === b || b === "bool") return a;
  if (a === "bool") return b;
  const fa = FLOAT_RANK[a], fb = FLOAT_RANK[b];
  if (fa !== undefined || fb !== undefined) {
    if (fa === undefined) return b;
    if (fb === undefined) return a;
    return fa >= fb ? a : b;
  }
  if (a === "uint8") return b === "int8" ? "int16" : b;
  if (b === "uint8") return a === "int8" ? "int16" : a;
  return INT_RANK[a]! >= INT_RANK[b]! ? a : b;
}

/**
 * Converts a JS value to what a dtype's storage array should be given.
 *
 * The typed array's own store then finishes the job (rounding to float32,
 * wrapping to int8, ...). Conversions follow C casts: floats truncate toward
 * zero when they become integers, NaN and ±Infinity become 0, out-of-range
 * integers wrap, and bool is `value != 0` (so NaN is true).
 *
 * @param value A number, bigint or boolean.
 * @param dtype The element type it is stored as.
 * @returns A bigint for int64, a number otherwise.
 *
 * @example Usage
 * ```ts
 * import { storageValue } from "./dtype.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(storageValue(-2.7, "int64"), -2n);
 * assertEquals(storageValue(true, "float32"), 1);
 * assertEquals(storageValue(0.5, "bool"), 1);
 * assertEquals(storageValue(2n ** 40n + 1n, "int32"), 1);
 * ```
 */
export function storageValue(value: Scalar, dtype: DType): number | bigint {
  if (dtype === "bool") {
    return value === 0 || value === 0n || value === false ? 0 : 1;
  }
  if (typeof value === "boolean") {
    const n = value ? 1 : 0;
    return dtype === "int64" ? BigInt(n) : n;
  }
  if (dtype === "int64") {
    if (typeof value === "bigint") return BigInt.asIntN(64, value);
    return Number.isFinite(value)
      ? BigInt.asIntN(64, BigInt(Math.trunc(value)))
      : 0n;
  }
  if (typeof value === "number") return value;
  // Narrow to 32 bits first so Number() is exact; the store wraps further.
  return isFloatDType(dtype) ? Number(value) : Number(BigInt.asIntN(32, value));
}

/**
 * The function that rounds a float64 to a float dtype's precision.
 *
 * Kernels that chain two float operations (scale's multiply then add) round
 * after each one, so float32 arithmetic gives float32 answers.
 *
 * @param dtype A float dtype.
 * @returns `Math.fround` for float32, `Math.f16round` for float16, and the
 * identity for float64.
 * @throws {TypeError} If `dtype` is not a float dtype.
 *
 * @example Usage
 * ```ts
 * import { floatRounder } from "./dtype.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const round = floatRounder("float32");
 * assertEquals(round(0.1), Math.fround(0.1));
 * ```
 */
export function floatRounder(dtype: DType): (value: number) => number {
  switch (dtype) {
    case "float32":
      return Math.fround;
    case "float16":
      return Math.f16round;
    case "float64":
      return identity;
    default:
      throw new TypeError(`round: dtype "${dtype}" is not a float type`);
  }
}

function identity(value: number): number {
  return value;
}
