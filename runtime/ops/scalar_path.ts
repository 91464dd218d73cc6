/**
 * Scalar paths: the interpreter's cost for ops on one-element tensors (a
 * loop counter, a total, a `while` condition). The CPU kernels handle any
 * shape and dtype, so each call looks its kind up in a table, promotes the
 * dtypes, casts, and calls the element function through a site every kind
 * shares; a scalar path is chosen once per op at prepare time, for one
 * kind, and does the arithmetic at its own call site.
 *
 * Invariants:
 *   A scalar path returns exactly the tensor the CPU kernel would (same
 *   dtype, same shape array, the same element bits: the element is stored
 *   through the dtype's typed array, so int32 and int64 wrap and float32
 *   rounds as the kernel's store does), or `undefined` when it does not
 *   apply; the op then calls the kernel.
 *   It applies only where the kernel cannot fail: both operands hold one
 *   element, of one dtype it knows, on a device named `cpu` (the CPU
 *   device, or one that runs one-element calls on it).
 *   A result is a new tensor, one of the shared constant bools below
 *   (tensors are never changed once made, so sharing one is unobservable),
 *   or, for arithmetic, the tensor `into` the caller passed, its one
 *   element overwritten: the caller passes only a tensor it made itself
 *   and that a private variable alone holds (runtime/exec/
 *   private_variables.ts), so no one else can see it change. `into` is
 *   written only after both operands are read (it may be one of them).
 *   It reads `data` only where the CPU kernel would, so a tensor whose
 *   elements are on a device throws `ElementsOnDevice` as the kernel would.
 *
 * @module
 */
import { allocate } from "../../kernels/allocate.ts";
import type { Device } from "../../kernels/device.ts";
import type { BinaryKind, CompareKind } from "../../kernels/kernel_kinds.ts";
import { Tensor } from "../../kernels/tensor.ts";

/**
 * A fast path for `x op y`; `undefined` where it does not apply. `into`,
 * if given, is a one-element tensor nobody else holds, which an arithmetic
 * path overwrites and returns when the result has its dtype and shape.
 */
export type ScalarPath = (
  device: Device,
  x: Tensor,
  y: Tensor,
  into?: Tensor,
) => Tensor | undefined;

type Num = (a: number, b: number) => number;
type Big = (a: bigint, b: bigint) => bigint;
type NumTest = (a: number, b: number) => boolean;
type BigTest = (a: bigint, b: bigint) => boolean;

/**
 * The scalar path for an arithmetic op, if its kind has one.
 *
 * @param kind The arithmetic.
 * @returns The path, or `undefined`.
 *
 * @example Usage
 * ```ts
 * import { scalarArithmetic } from "./scalar_path.ts";
 * import { cpuDevice } from "../../kernels/cpu/device.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const add = scalarArithmetic("add")!;
 * const x = Tensor.scalar(2147483647, "int32");
 * assertEquals(add(cpuDevice, x, Tensor.scalar(1, "int32"))?.item(0), -2147483648);
 * ```
 */
export function scalarArithmetic(kind: BinaryKind): ScalarPath | undefined {
  switch (kind) {
    case "add":
      return arithmetic((a, b) => a + b, (a, b) => a + b, (a, b) => a + b);
    case "sub":
      return arithmetic((a, b) => a - b, (a, b) => a - b, (a, b) => a - b);
    case "mul":
      return arithmetic((a, b) => a * b, Math.imul, (a, b) => a * b);
    default:
      return undefined;
  }
}

/**
 * The scalar path for a comparison.
 *
 * @param kind The comparison.
 * @returns The path.
 *
 * @example Usage
 * ```ts
 * import { scalarComparison } from "./scalar_path.ts";
 * import { cpuDevice } from "../../kernels/cpu/device.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const less = scalarComparison("less_than");
 * const out = less(cpuDevice, Tensor.scalar(1n, "int64"), Tensor.scalar(2n, "int64"));
 * assertEquals(out?.item(0), true);
 * ```
 */
export function scalarComparison(kind: CompareKind): ScalarPath {
  switch (kind) {
    case "less_than":
      return comparison((a, b) => a < b, (a, b) => a < b);
    case "less_equal":
      return comparison((a, b) => a <= b, (a, b) => a <= b);
    case "greater_than":
      return comparison((a, b) => a > b, (a, b) => a > b);
    case "greater_equal":
      return comparison((a, b) => a >= b, (a, b) => a >= b);
    case "equal":
      return comparison((a, b) => a === b, (a, b) => a === b);
    case "not_equal":
      return comparison((a, b) => a !== b, (a, b) => a !== b);
  }
}

// Both operands one element of one dtype, on the CPU: the kernel's
// one-element case, whose result takes the longer of the two shapes.
function applies(device: Device, x: Tensor, y: Tensor): boolean {
  return x.size === 1 && y.size === 1 && x.dtype === y.dtype &&
    device.name === "cpu";
}

function shapeOf(x: Tensor, y: Tensor): readonly number[] {
  return x.shape.length >= y.shape.length ? x.shape : y.shape;
}

function arithmetic(float: Num, int: Num, big: Big): ScalarPath {
  return (device, x, y, into) => {
    if (!applies(device, x, y)) return undefined;
    const a = x.data, b = y.data;
    const shape = shapeOf(x, y);
    // One-element shapes of one rank are equal (every dim is 1).
    const reuse = into !== undefined && into.dtype === x.dtype &&
      into.shape.length === shape.length;
    switch (x.dtype) {
      case "int64": {
        const out = reuse
          ? into.data as BigInt64Array
          : allocate("int64", 1) as BigInt64Array;
        out[0] = big(a[0] as bigint, b[0] as bigint);
        return reuse ? into : new Tensor("int64", shape, out);
      }
      case "int32": {
        const out = reuse
          ? into.data as Int32Array
          : allocate("int32", 1) as Int32Array;
        out[0] = int(a[0] as number, b[0] as number);
        return reuse ? into : new Tensor("int32", shape, out);
      }
      case "float32": {
        const out = reuse
          ? into.data as Float32Array
          : allocate("float32", 1) as Float32Array;
        out[0] = float(a[0] as number, b[0] as number);
        return reuse ? into : new Tensor("float32", shape, out);
      }
      case "float64": {
        const out = reuse
          ? into.data as Float64Array
          : allocate("float64", 1) as Float64Array;
        out[0] = float(a[0] as number, b[0] as number);
        return reuse ? into : new Tensor("float64", shape, out);
      }
      default:
        return undefined;
    }
  };
}

function comparison(num: NumTest, big: BigTest): ScalarPath {
  return (device, x, y) => {
    if (!applies(device, x, y)) return undefined;
    const a = x.data, b = y.data;
    let holds: boolean;
    switch (x.dtype) {
      case "int64":
        holds = big(a[0] as bigint, b[0] as bigint);
        break;
      case "int32":
      case "float32":
      case "float64":
        holds = num(a[0] as number, b[0] as number);
        break;
      default:
        return undefined;
    }
    const shape = shapeOf(x, y);
    if (shape.length < 2) return (shape.length === 0 ? SCALARS : ONES)[+holds];
    const out = allocate("bool", 1) as Uint8Array;
    out[0] = holds ? 1 : 0;
    return new Tensor("bool", shape, out);
  };
}

// A comparison of one-element operands has two possible results per
// shape, and a tensor never changes after it is made: the results of rank
// 0 and of shape [1] (a loop's condition) are shared, made once, so such a
// comparison allocates nothing. Their storage is their own, off the slabs.
function bools(shape: readonly number[]): readonly [Tensor, Tensor] {
  return [
    new Tensor("bool", shape, new Uint8Array([0])),
    new Tensor("bool", shape, new Uint8Array([1])),
  ];
}
const SCALARS = bools([]);
const ONES = bools([1]);
