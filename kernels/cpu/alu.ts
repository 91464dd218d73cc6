// Reference semantics of every elementwise kind on single elements: the one
// table the CPU kernels, and the tests of every other device, read.
//
// Each kind has up to three functions, one per domain:
//   float  numbers of float16/32/64. Computed in float64; the output array's
//          store rounds each result once to the dtype, which equals doing the
//          operation in that dtype for +, -, *, / and sqrt (float64 carries
//          more than twice the bits of float32, so double rounding is exact).
//   int    numbers of bool, int8, uint8, int16, int32. The output array's
//          store wraps to the width, so a function only has to get the low
//          32 bits right (hence Math.imul, never a float multiply).
//   big    bigints of int64; BigInt64Array's store wraps to 64 bits.
// Integer division truncates toward zero (C, Paddle); mod and floordiv floor
// (Python, Paddle): the remainder takes the divisor's sign.

import type {
  BinaryKind,
  CompareKind,
  LogicalKind,
  ReduceKind,
  UnaryKind,
} from "../kernel_kinds.ts";

/** One binary kind in each domain. */
export interface BinaryAlu {
  /** Float dtypes. */
  readonly float: (a: number, b: number) => number;
  /** bool and integer dtypes up to 32 bits. */
  readonly int: (a: number, b: number) => number;
  /** int64. */
  readonly big: (a: bigint, b: bigint) => bigint;
}

/**
 * One unary kind. A kind without `int` is float-valued (exp, sin, ...):
 * integer inputs are computed as float32.
 */
export interface UnaryAlu {
  /** Float dtypes. */
  readonly float: (a: number) => number;
  /** bool and integer dtypes up to 32 bits, if the kind keeps integers. */
  readonly int?: (a: number) => number;
  /** int64, if the kind keeps integers. */
  readonly big?: (a: bigint) => bigint;
}

/**
 * Every binary kind's semantics.
 *
 * @example Usage
 * ```ts
 * import { BINARY_ALU } from "./alu.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(BINARY_ALU.mod.int(-7, 3), 2);
 * assertEquals(BINARY_ALU.div.big(-7n, 2n), -3n);
 * ```
 */
export const BINARY_ALU: Readonly<Record<BinaryKind, BinaryAlu>> = {
  add: { float: (a, b) => a + b, int: (a, b) => a + b, big: (a, b) => a + b },
  sub: { float: (a, b) => a - b, int: (a, b) => a - b, big: (a, b) => a - b },
  mul: { float: (a, b) => a * b, int: Math.imul, big: (a, b) => a * b },
  div: {
    float: (a, b) => a / b,
    // Exact: a quotient of 32-bit integers is never within float64 rounding
    // error of the next integer.
    int: (a, b) => Math.trunc(a / divisor(b, "div")),
    big: (a, b) => a / bigDivisor(b, "div"),
  },
  max: { float: Math.max, int: Math.max, big: (a, b) => (a > b ? a : b) },
  min: { float: Math.min, int: Math.min, big: (a, b) => (a < b ? a : b) },
  pow: { float: Math.pow, int: intPow, big: bigPow },
  mod: {
    float: floorMod,
    int: (a, b) => floorMod(a, divisor(b, "mod")),
    big: (a, b) => bigFloorMod(a, bigDivisor(b, "mod")),
  },
  floordiv: {
    float: (a, b) => Math.floor(a / b),
    int: (a, b) => Math.floor(a / divisor(b, "floordiv")),
    big: bigFloorDiv,
  },
};

/**
 * Every comparison kind, on numbers or bigints alike; 1 is true.
 *
 * @example Usage
 * ```ts
 * import { COMPARE_ALU } from "./alu.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(COMPARE_ALU.less_than(1, 2), 1);
 * assertEquals(COMPARE_ALU.equal(NaN, NaN), 0);
 * ```
 */
export const COMPARE_ALU: Readonly<
  Record<CompareKind, (a: number | bigint, b: number | bigint) => number>
> = {
  less_than: (a, b) => (a < b ? 1 : 0),
  less_equal: (a, b) => (a <= b ? 1 : 0),
  greater_than: (a, b) => (a > b ? 1 : 0),
  greater_equal: (a, b) => (a >= b ? 1 : 0),
  equal: (a, b) => (a === b ? 1 : 0),
  not_equal: (a, b) => (a !== b ? 1 : 0),
};

/**
 * Every logical kind, on bool elements (0 or 1).
 *
 * @example Usage
 * ```ts
 * import { LOGICAL_ALU } from "./alu.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(LOGICAL_ALU.xor(1, 1), 0);
 * ```
 */
export const LOGICAL_ALU: Readonly<
  Record<LogicalKind, (a: number, b: number) => number>
> = {
  and: (a, b) => a & b,
  or: (a, b) => a | b,
  xor: (a, b) => a ^ b,
};

/**
 * Every unary kind's semantics.
 *
 * @example Usage
 * ```ts
 * import { UNARY_ALU } from "./alu.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(UNARY_ALU.round.float(-2.5), -3);
 * assertEquals(UNARY_ALU.exp.int, undefined);
 * ```
 */
export const UNARY_ALU: Readonly<Record<UnaryKind, UnaryAlu>> = {
  // Math.max propagates NaN, as Eigen's cwiseMax in Paddle's relu does.
  relu: {
    float: (a) => Math.max(a, 0),
    int: (a) => (a > 0 ? a : 0),
    big: (a) => (a > 0n ? a : 0n),
  },
  sigmoid: { float: (a) => 1 / (1 + Math.exp(-a)) },
  tanh: { float: Math.tanh },
  exp: { float: Math.exp },
  log: { float: Math.log },
  sqrt: { float: Math.sqrt },
  abs: { float: Math.abs, int: Math.abs, big: (a) => (a < 0n ? -a : a) },
  square: {
    float: (a) => a * a,
    int: (a) => Math.imul(a, a),
    big: (a) => a * a,
  },
  sin: { float: Math.sin },
  cos: { float: Math.cos },
  floor: { float: Math.floor, int: keep, big: keep },
  ceil: { float: Math.ceil, int: keep, big: keep },
  round: { float: roundHalfAway, int: keep, big: keep },
  reciprocal: { float: (a) => 1 / a },
};

/** A reduction: the starting accumulator and the step that folds one element in. */
export interface ReduceAlu<T> {
  /** The accumulator before any element (max and min never start empty). */
  readonly init: T;
  /** Folds element `v` into `acc`. */
  readonly step: (acc: T, v: T) => T;
}

/**
 * Reductions of float elements, accumulated in float64 (mean sums).
 *
 * @example Usage
 * ```ts
 * import { FLOAT_REDUCE_ALU } from "./alu.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(FLOAT_REDUCE_ALU.max.step(1, NaN), NaN);
 * ```
 */
export const FLOAT_REDUCE_ALU: Readonly<Record<ReduceKind, ReduceAlu<number>>> =
  {
    sum: { init: 0, step: (acc, v) => acc + v },
    mean: { init: 0, step: (acc, v) => acc + v },
    max: { init: -Infinity, step: Math.max },
    min: { init: Infinity, step: Math.min },
    prod: { init: 1, step: (acc, v) => acc * v },
  };

/**
 * Reductions of bool and integer elements up to 32 bits, exact modulo 2^32.
 *
 * @example Usage
 * ```ts
 * import { INT_REDUCE_ALU } from "./alu.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(INT_REDUCE_ALU.prod.step(65536, 65536), 0);
 * ```
 */
export const INT_REDUCE_ALU: Readonly<Record<ReduceKind, ReduceAlu<number>>> = {
  sum: { init: 0, step: (acc, v) => (acc + v) | 0 },
  mean: { init: 0, step: (acc, v) => (acc + v) | 0 },
  max: { init: -Infinity, step: Math.max },
  min: { init: Infinity, step: Math.min },
  prod: { init: 1, step: Math.imul },
};

/**
 * Reductions of int64 elements, exact modulo 2^64.
 *
 * @example Usage
 * ```ts
 * import { BIG_REDUCE_ALU } from "./alu.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(BIG_REDUCE_ALU.sum.step(2n ** 62n, 2n ** 62n), -(2n ** 63n));
 * ```
 */
export const BIG_REDUCE_ALU: Readonly<Record<ReduceKind, ReduceAlu<bigint>>> = {
  sum: { init: 0n, step: (acc, v) => BigInt.asIntN(64, acc + v) },
  mean: { init: 0n, step: (acc, v) => BigInt.asIntN(64, acc + v) },
  max: { init: -(2n ** 63n), step: (acc, v) => (v > acc ? v : acc) },
  min: { init: 2n ** 63n - 1n, step: (acc, v) => (v < acc ? v : acc) },
  prod: { init: 1n, step: (acc, v) => BigInt.asIntN(64, acc * v) },
};

function keep<T>(a: T): T {
  return a;
}

function divisor(b: number, kind: string): number {
  if (b === 0) throw new RangeError(`${kind}: integer division by zero`);
  return b;
}

function bigDivisor(b: bigint, kind: string): bigint {
  if (b === 0n) throw new RangeError(`${kind}: integer division by zero`);
  return b;
}

function floorMod(a: number, b: number): number {
  const r = a % b;
  return r !== 0 && (r < 0) !== (b < 0) ? r + b : r;
}

function bigFloorMod(a: bigint, b: bigint): bigint {
  const r = a % b;
  return r !== 0n && (r < 0n) !== (b < 0n) ? r + b : r;
}

function bigFloorDiv(a: bigint, b: bigint): bigint {
  const q = a / bigDivisor(b, "floordiv");
  return q * b !== a && (a < 0n) !== (b < 0n) ? q - 1n : q;
}

// std::round: halves go away from zero (Math.round sends -2.5 to -2).
function roundHalfAway(a: number): number {
  return a < 0 ? -Math.round(-a) : Math.round(a);
}

// A negative exponent gives what C's pow gives once truncated to an integer:
// 1 and -1 keep their magnitude, everything else truncates to 0.
function intNegativePow(a: number, b: number): number {
  if (a === 1) return 1;
  if (a === -1) return (b & 1) === 1 ? -1 : 1;
  if (a === 0) throw new RangeError("pow: integer zero to a negative power");
  return 0;
}

function bigNegativePow(a: bigint, b: bigint): bigint {
  if (a === 1n) return 1n;
  if (a === -1n) return (b & 1n) === 1n ? -1n : 1n;
  if (a === 0n) throw new RangeError("pow: integer zero to a negative power");
  return 0n;
}

function intPow(a: number, b: number): number {
  if (b < 0) return intNegativePow(a, b);
  let result = 1;
  for (let base = a, e = b; e > 0; e >>>= 1) {
    if (e & 1) result = Math.imul(result, base);
    base = Math.imul(base, base);
  }
  return result;
}

function bigPow(a: bigint, b: bigint): bigint {
  if (b < 0n) return bigNegativePow(a, b);
  let result = 1n;
  for (let base = a, e = b; e > 0n; e >>= 1n) {
    if (e & 1n) result = BigInt.asIntN(64, result * base);
    base = BigInt.asIntN(64, base * base);
  }
  return result;
}
