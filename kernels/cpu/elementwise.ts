// Elementwise kernels: one template per arity (map1, map2) fed with scalar
// functions from the ALU table (kernels/cpu/alu.ts).
//
// map2 tries, in order: both operands one element (the interpreter's scalar
// case: no shape work, one allocation); equal shapes (one flat loop); one
// operand one element (a flat loop against a constant); and the general
// broadcast walk, row by row.

import { allocate } from "../allocate.ts";
import { type BroadcastPlan, planBroadcast } from "../broadcast.ts";
import { sameShape, shapeSize } from "../_shape.ts";
import {
  type DType,
  floatRounder,
  isFloatDType,
  promoteTypes,
  type StorageArray,
  storageValue,
} from "../dtype.ts";
import type {
  BinaryKind,
  CompareKind,
  LogicalKind,
  UnaryKind,
} from "../kernel_kinds.ts";
import { Tensor } from "../tensor.ts";
import { BINARY_ALU, COMPARE_ALU, LOGICAL_ALU, UNARY_ALU } from "./alu.ts";
import { rowOffsets } from "./_copy.ts";
import { cast } from "./cast.ts";

type Element = number | bigint;
type Fn1 = (a: Element) => Element;
type Fn2 = (a: Element, b: Element) => Element;

/**
 * Elementwise arithmetic with broadcasting.
 *
 * Mixed dtypes compute in `promoteTypes(x.dtype, y.dtype)`. Floats compute
 * in their own precision; integer `div` truncates toward zero, `mod` and
 * `floordiv` floor; int64 is exact. Two bool operands allow only max and min.
 *
 * @param kind The operation.
 * @param x The first operand.
 * @param y The second operand.
 * @param axis -1 for NumPy broadcasting, else Fluid's axis (Y aligned to X
 * from that dim).
 * @returns A new tensor of the promoted dtype.
 * @throws {RangeError} If the shapes do not broadcast, or on integer
 * division by zero.
 * @throws {TypeError} If the kind is unknown or not defined for bool.
 *
 * @example Usage
 * ```ts
 * import { binary } from "./elementwise.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([[1, 2, 3], [4, 5, 6]], "int32");
 * const y = Tensor.fromArray([10, 20, 30], "int32");
 * assertEquals(binary("add", x, y).toNested(), [[11, 22, 33], [14, 25, 36]]);
 * assertEquals(binary("mod", Tensor.scalar(-7, "int32"), Tensor.scalar(3, "int32")).item(), 2);
 * ```
 */
export function binary(
  kind: BinaryKind,
  x: Tensor,
  y: Tensor,
  axis = -1,
): Tensor {
  const alu = BINARY_ALU[kind];
  if (alu === undefined) throw new TypeError(`binary: unknown kind "${kind}"`);
  const dtype = x.dtype === y.dtype ? x.dtype : promoteTypes(x.dtype, y.dtype);
  if (dtype === "bool" && kind !== "max" && kind !== "min") {
    throw new TypeError(`binary: "${kind}" is not defined for bool operands`);
  }
  const f =
    (dtype === "int64"
      ? alu.big
      : isFloatDType(dtype)
      ? alu.float
      : alu.int) as Fn2;
  return map2(f, cast(x, dtype), cast(y, dtype), dtype, axis);
}

/**
 * Elementwise comparison with broadcasting, in the promoted dtype.
 *
 * @param kind The comparison.
 * @param x The left operand.
 * @param y The right operand.
 * @param axis As for {@linkcode binary}.
 * @returns A bool tensor.
 * @throws {RangeError} If the shapes do not broadcast.
 * @throws {TypeError} If the kind is unknown.
 *
 * @example Usage
 * ```ts
 * import { compare } from "./elementwise.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([1, 5], "int64");
 * const y = Tensor.scalar(3, "int64");
 * assertEquals(compare("less_than", x, y).toNested(), [true, false]);
 * ```
 */
export function compare(
  kind: CompareKind,
  x: Tensor,
  y: Tensor,
  axis = -1,
): Tensor {
  const f = COMPARE_ALU[kind];
  if (f === undefined) throw new TypeError(`compare: unknown kind "${kind}"`);
  const dtype = x.dtype === y.dtype ? x.dtype : promoteTypes(x.dtype, y.dtype);
  return map2(f, cast(x, dtype), cast(y, dtype), "bool", axis);
}

/**
 * Elementwise logic with NumPy broadcasting; any nonzero element is true.
 *
 * @param kind The connective.
 * @param x The left operand.
 * @param y The right operand.
 * @returns A bool tensor.
 * @throws {RangeError} If the shapes do not broadcast.
 * @throws {TypeError} If the kind is unknown.
 *
 * @example Usage
 * ```ts
 * import { logical } from "./elementwise.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([true, true, false], "bool");
 * const y = Tensor.fromArray([true, false, false], "bool");
 * assertEquals(logical("xor", x, y).toNested(), [false, true, false]);
 * ```
 */
export function logical(kind: LogicalKind, x: Tensor, y: Tensor): Tensor {
  const f = LOGICAL_ALU[kind];
  if (f === undefined) throw new TypeError(`logical: unknown kind "${kind}"`);
  return map2(f as Fn2, cast(x, "bool"), cast(y, "bool"), "bool", -1);
}

/**
 * Elementwise negation; any nonzero element is true.
 *
 * @param x The operand.
 * @returns A bool tensor.
 *
 * @example Usage
 * ```ts
 * import { logicalNot } from "./elementwise.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(logicalNot(Tensor.fromArray([0, 2], "int32")).toNested(), [true, false]);
 * ```
 */
export function logicalNot(x: Tensor): Tensor {
  return map1(not as Fn1, cast(x, "bool"), "bool");
}

/**
 * An elementwise math function.
 *
 * Float inputs keep their dtype. Integer and bool inputs keep theirs for
 * kinds that map integers to integers (relu, abs, square, floor, ceil,
 * round); the float-valued kinds (exp, sigmoid, ...) compute them as float32.
 * `round` sends halves away from zero.
 *
 * @param kind The function.
 * @param x The operand.
 * @returns A new tensor of `x`'s shape.
 * @throws {TypeError} If the kind is unknown.
 *
 * @example Usage
 * ```ts
 * import { unary } from "./elementwise.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([-1, 4], "float32");
 * assertEquals(unary("relu", x).toNested(), [0, 4]);
 * assertEquals(unary("sqrt", Tensor.scalar(4, "int32")).dtype, "float32");
 * ```
 */
export function unary(kind: UnaryKind, x: Tensor): Tensor {
  const alu = UNARY_ALU[kind];
  if (alu === undefined) throw new TypeError(`unary: unknown kind "${kind}"`);
  if (kind === "relu" && isFloatDType(x.dtype)) return reluFloat(x);
  if (isFloatDType(x.dtype)) return map1(alu.float as Fn1, x, x.dtype);
  const f = x.dtype === "int64" ? alu.big : alu.int;
  if (f === undefined) {
    return map1(alu.float as Fn1, cast(x, "float32"), "float32");
  }
  return map1(f as Fn1, x, x.dtype);
}

/**
 * `x * scale + bias`, or `(x + bias) * scale` when `biasAfterScale` is false.
 *
 * As in Paddle, `scale` and `bias` are first converted to `x`'s dtype
 * (float32 rounding, or truncation for integers) and each step rounds to
 * that dtype.
 *
 * @param x The operand; not bool.
 * @param scale The factor.
 * @param bias The addend.
 * @param biasAfterScale Add after multiplying.
 * @returns A new tensor of `x`'s dtype and shape.
 * @throws {TypeError} If `x` is bool.
 *
 * @example Usage
 * ```ts
 * import { scale } from "./elementwise.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([1, 2], "float32");
 * assertEquals(scale(x, 2, 1).toNested(), [3, 5]);
 * assertEquals(scale(x, 2, 1, false).toNested(), [4, 6]);
 * ```
 */
export function scale(
  x: Tensor,
  scale: number,
  bias = 0,
  biasAfterScale = true,
): Tensor {
  const dtype = x.dtype;
  if (dtype === "bool") {
    throw new TypeError(`scale: dtype "bool" is not supported`);
  }
  if (dtype === "int64") {
    const s = storageValue(scale, dtype) as bigint;
    const b = storageValue(bias, dtype) as bigint;
    const f = biasAfterScale
      ? (v: bigint) => v * s + b
      : (v: bigint) => (v + b) * s;
    return map1(f as Fn1, x, dtype);
  }
  if (isFloatDType(dtype)) {
    const r = floatRounder(dtype);
    const s = r(scale), b = r(bias);
    const f = biasAfterScale
      ? (v: number) => r(v * s) + b
      : (v: number) => r(v + b) * s;
    return map1(f as Fn1, x, dtype);
  }
  const s = Math.trunc(scale), b = Math.trunc(bias);
  const f = biasAfterScale
    ? (v: number) => Math.imul(v, s) + b
    : (v: number) => Math.imul(v + b, s);
  return map1(f as Fn1, x, dtype);
}

function not(a: number): number {
  return a ^ 1;
}

// relu of a float tensor, its loop written out (UNARY_ALU.relu.float's
// formula): the networks run it over every feature map, and map1's call
// per element, from a site every kind shares, costs 2 × the max.
function reluFloat(x: Tensor): Tensor {
  const a = x.data as StorageArray;
  const data = allocate(x.dtype, x.size);
  const out = data as StorageArray;
  for (let i = 0; i < a.length; i++) out[i] = Math.max(a[i] as number, 0);
  return new Tensor(x.dtype, x.shape, data);
}

function map1(f: Fn1, x: Tensor, dtype: DType): Tensor {
  const a = x.data as StorageArray;
  const data = allocate(dtype, x.size);
  const out = data as StorageArray;
  for (let i = 0; i < a.length; i++) out[i] = f(a[i]);
  return new Tensor(dtype, x.shape, data);
}

function map2(
  f: Fn2,
  x: Tensor,
  y: Tensor,
  dtype: DType,
  axis: number,
): Tensor {
  const a = x.data as StorageArray, b = y.data as StorageArray;
  if (x.size === 1 && y.size === 1) {
    const data = allocate(dtype, 1);
    (data as StorageArray)[0] = f(a[0], b[0]);
    // Both shapes are all 1s, so the result is the longer one.
    return new Tensor(
      dtype,
      x.shape.length >= y.shape.length ? x.shape : y.shape,
      data,
    );
  }
  if (sameShape(x.shape, y.shape)) {
    const data = allocate(dtype, x.size);
    const out = data as StorageArray;
    for (let i = 0; i < a.length; i++) out[i] = f(a[i], b[i]);
    return new Tensor(dtype, x.shape, data);
  }
  const plan = planBroadcast(x.shape, y.shape, axis);
  const data = allocate(dtype, shapeSize(plan.shape));
  const out = data as StorageArray;
  // A one-element operand broadcasts without reordering the other's data.
  if (y.size === 1) {
    const bv = b[0];
    for (let i = 0; i < a.length; i++) out[i] = f(a[i], bv);
  } else if (x.size === 1) {
    const av = a[0];
    for (let i = 0; i < b.length; i++) out[i] = f(av, b[i]);
  } else if (data.length > 0) {
    broadcastInto(f, a, b, out, plan);
  }
  return new Tensor(dtype, plan.shape, data);
}

function broadcastInto(
  f: Fn2,
  a: StorageArray,
  b: StorageArray,
  out: StorageArray,
  plan: BroadcastPlan,
): void {
  const { shape, xStrides, yStrides } = plan;
  const last = shape.length - 1;
  const inner = shape[last], sa = xStrides[last], sb = yStrides[last];
  const rowsA = rowOffsets(shape, xStrides);
  const rowsB = rowOffsets(shape, yStrides);
  let o = 0;
  for (let r = 0; r < rowsA.length; r++) {
    let pa = rowsA[r], pb = rowsB[r];
    for (let j = 0; j < inner; j++, pa += sa, pb += sb) {
      out[o++] = f(a[pa], b[pb]);
    }
  }
}
