// The immutable tensor: a dtype, a shape and row-major storage.
//
// Invariants (hold for every Tensor from construction on):
//   data is arrayType(dtype) and data.length === size === product(shape).
//   Nothing writes to data after the constructor returns. Kernels allocate
//   new storage for every result, so tensors may share data (reshape does)
//   and a tensor sent on a channel never changes under the receiver. (The
//   interpreter's scalar path overwrites the one element of a tensor it
//   made for a variable that alone holds it, which no one can observe:
//   runtime/exec/private_variables.ts.)
//   bool data holds only 0 and 1.

import { allocate } from "./allocate.ts";
import { ELEMENTS_ON_DEVICE } from "./_elements_on_device.ts";
import { checkedShapeSize, formatShape, shapeSize } from "./_shape.ts";
import {
  arrayType,
  type DType,
  type Scalar,
  storageValue,
  type TypedArray,
} from "./dtype.ts";

/** A nested JS array of tensor values, as `Tensor.fromArray` accepts. */
export type NestedArray = readonly (Scalar | NestedArray)[];

/**
 * A tensor's values as plain JS: the element itself for rank 0, else arrays
 * nested once per dim. Elements are bigint for int64, boolean for bool, and
 * number otherwise.
 */
export type NestedValue = Scalar | NestedValue[];

/**
 * An immutable n-dimensional array of one dtype, stored row-major.
 *
 * Rank 0 (shape `[]`) holds one element; a dim of 0 makes it empty. Scalars
 * in programs are shape `[1]` (see {@linkcode Tensor.scalar}).
 *
 * @example Usage
 * ```ts
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const t = Tensor.fromArray([[1, 2, 3], [4, 5, 6]], "int32");
 * assertEquals(t.shape, [2, 3]);
 * assertEquals(t.size, 6);
 * assertEquals(t.item(4), 5);
 * ```
 */
export class Tensor {
  /** The element type. */
  readonly dtype: DType;
  /** The dims, outermost first. */
  readonly shape: readonly number[];
  /**
   * The elements, row-major; never written after construction. Small arrays
   * are views into a buffer shared with other tensors (see `allocate`): read
   * the bytes through `byteOffset`, and never transfer `data.buffer`.
   */
  readonly data: TypedArray;
  /** The number of elements: the product of the dims. */
  readonly size: number;

  /**
   * Wraps storage as a tensor. The caller hands `data` over: it must not
   * write to it afterwards.
   *
   * @param dtype The element type.
   * @param shape The dims.
   * @param data Storage of type `arrayType(dtype)` with one slot per element.
   * @throws {RangeError} If a dim is not a non-negative integer or `data`
   * has the wrong length.
   * @throws {TypeError} If `data` is not the storage type of `dtype`.
   *
   * @example Usage
   * ```ts
   * import { Tensor } from "./tensor.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const t = new Tensor("float32", [2], new Float32Array([0.5, 1.5]));
   * assertEquals(t.toNested(), [0.5, 1.5]);
   * ```
   */
  constructor(
    dtype: DType,
    shape: readonly number[],
    data: TypedArray,
  ) {
    for (let i = 0; i < shape.length; i++) {
      if (!isDim(shape[i])) {
        throw new RangeError(
          `create tensor: invalid shape ${formatShape(shape)}`,
        );
      }
    }
    const size = shapeSize(shape);
    if ((data as unknown) === ELEMENTS_ON_DEVICE) { // a DeviceTensor
      this.dtype = dtype;
      this.shape = shape;
      this.data = undefined as never; // a DeviceTensor's accessor
      this.size = size;
      return;
    }
    if (data.constructor !== arrayType(dtype)) {
      throw new TypeError(
        `create tensor: ${data.constructor.name} cannot hold dtype "${dtype}"`,
      );
    }
    if (data.length !== size) {
      throw new RangeError(
        `create tensor: shape ${
          formatShape(shape)
        } needs ${size} elements, got ${data.length}`,
      );
    }
    this.dtype = dtype;
    this.shape = shape;
    this.data = data;
    this.size = size;
  }

  /**
   * The number of dims.
   *
   * @returns 0 for a rank-0 tensor.
   *
   * @example Usage
   * ```ts
   * import { Tensor } from "./tensor.ts";
   * import { assertEquals } from "@std/assert";
   *
   * assertEquals(Tensor.zeros([2, 3], "float32").rank, 2);
   * ```
   */
  get rank(): number {
    return this.shape.length;
  }

  /**
   * A tensor from JS values: a nested array whose nesting gives the shape,
   * or any values together with an explicit shape (read row-major).
   *
   * Values convert as {@linkcode storageValue} says, so int64 is exact when
   * given bigints.
   *
   * @param values Nested arrays, a flat array, or a typed array.
   * @param dtype The element type.
   * @param shape The dims; inferred from the nesting when omitted.
   * @returns The new tensor.
   * @throws {RangeError} If the nesting is ragged or the values do not fill
   * `shape` exactly.
   *
   * @example Usage
   * ```ts
   * import { Tensor } from "./tensor.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const t = Tensor.fromArray([1, 2, 3, 4], "int64", [2, 2]);
   * assertEquals(t.toNested(), [[1n, 2n], [3n, 4n]]);
   * ```
   */
  static fromArray(
    values: NestedArray | TypedArray,
    dtype: DType,
    shape?: readonly number[],
  ): Tensor {
    const flat: Scalar[] = [];
    let dims: readonly number[];
    if (shape === undefined) {
      dims = nestedShape(values);
      flattenExact(values, dims, 0, flat);
    } else {
      dims = shape;
      flattenAny(values, flat);
      if (flat.length !== shapeSize(shape)) {
        throw new RangeError(
          `create tensor: shape ${formatShape(shape)} needs ${
            shapeSize(shape)
          } values, got ${flat.length}`,
        );
      }
    }
    const data = allocate(dtype, flat.length);
    const store = data as { [index: number]: number | bigint };
    for (let i = 0; i < flat.length; i++) {
      store[i] = storageValue(flat[i], dtype);
    }
    return new Tensor(dtype, dims, data);
  }

  /**
   * A one-element tensor of shape `[1]`, the shape programs use for scalars.
   *
   * @param value The element.
   * @param dtype The element type.
   * @returns The new tensor.
   *
   * @example Usage
   * ```ts
   * import { Tensor } from "./tensor.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const t = Tensor.scalar(2n ** 60n + 1n, "int64");
   * assertEquals(t.shape, [1]);
   * assertEquals(t.item(), 2n ** 60n + 1n);
   * ```
   */
  static scalar(value: Scalar, dtype: DType): Tensor {
    const data = allocate(dtype, 1);
    (data as { [index: number]: number | bigint })[0] = storageValue(
      value,
      dtype,
    );
    return new Tensor(dtype, [1], data);
  }

  /**
   * A tensor of zeros (false for bool).
   *
   * @param shape The dims.
   * @param dtype The element type.
   * @returns The new tensor.
   *
   * @example Usage
   * ```ts
   * import { Tensor } from "./tensor.ts";
   * import { assertEquals } from "@std/assert";
   *
   * assertEquals(Tensor.zeros([2], "bool").toNested(), [false, false]);
   * ```
   */
  static zeros(shape: readonly number[], dtype: DType): Tensor {
    return new Tensor(dtype, shape, allocate(dtype, checkedShapeSize(shape)));
  }

  /**
   * A tensor with every element equal to `value`.
   *
   * @param shape The dims.
   * @param dtype The element type.
   * @param value The element, converted as {@linkcode storageValue} says.
   * @returns The new tensor.
   *
   * @example Usage
   * ```ts
   * import { Tensor } from "./tensor.ts";
   * import { assertEquals } from "@std/assert";
   *
   * assertEquals(Tensor.full([2, 2], "float32", 1.5).toNested(), [[1.5, 1.5], [1.5, 1.5]]);
   * ```
   */
  static full(shape: readonly number[], dtype: DType, value: Scalar): Tensor {
    const data = allocate(dtype, checkedShapeSize(shape));
    const v = storageValue(value, dtype);
    // Typed arrays only take their own element kind; v was converted for it.
    if (v !== 0 && v !== 0n) {
      (data as unknown as { fill(v: number | bigint): void }).fill(v);
    }
    return new Tensor(dtype, shape, data);
  }

  /**
   * One element, by its row-major index.
   *
   * @param flatIndex The index into the flattened tensor.
   * @returns A bigint for int64, a boolean for bool, a number otherwise.
   * @throws {RangeError} If the index is outside `[0, size)`.
   *
   * @example Usage
   * ```ts
   * import { Tensor } from "./tensor.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const t = Tensor.fromArray([true, false], "bool");
   * assertEquals(t.item(0), true);
   * assertEquals(t.item(1), false);
   * ```
   */
  item(flatIndex = 0): Scalar {
    if (
      !(flatIndex >= 0 && flatIndex < this.size) || !Number.isInteger(flatIndex)
    ) {
      throw new RangeError(
        `read tensor: index ${flatIndex} is out of range for ${this.size} elements`,
      );
    }
    const v = this.data[flatIndex];
    return this.dtype === "bool" ? v !== 0 : v;
  }

  /**
   * The values as nested JS arrays (the element itself for rank 0).
   *
   * @returns Values nested once per dim.
   *
   * @example Usage
   * ```ts
   * import { Tensor } from "./tensor.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const t = Tensor.fromArray([[1, 2], [3, 4]], "float64");
   * assertEquals(t.toNested(), [[1, 2], [3, 4]]);
   * assertEquals(Tensor.fromArray([7], "int32", []).toNested(), 7);
   * ```
   */
  toNested(): NestedValue {
    if (this.shape.length === 0) return this.item(0);
    return this.#nest(0, 0, this.size);
  }

  #nest(dim: number, offset: number, span: number): NestedValue[] {
    const n = this.shape[dim];
    const out: NestedValue[] = new Array(n);
    const step = n === 0 ? 0 : span / n;
    for (let i = 0; i < n; i++) {
      out[i] = dim === this.shape.length - 1
        ? this.item(offset + i)
        : this.#nest(dim + 1, offset + i * step, step);
    }
    return out;
  }
}

function isDim(d: number): boolean {
  return Number.isInteger(d) && d >= 0;
}

function nestedShape(values: NestedArray | TypedArray): number[] {
  const shape: number[] = [];
  let v: Scalar | NestedArray | TypedArray = values;
  while (typeof v === "object") {
    shape.push(v.length);
    if (v.length === 0) break;
    v = v[0];
  }
  return shape;
}

function flattenExact(
  values: Scalar | NestedArray | TypedArray,
  shape: readonly number[],
  dim: number,
  out: Scalar[],
): void {
  if (dim === shape.length) {
    if (typeof values === "object") {
      throw new RangeError(
        `create tensor: ragged nested array at depth ${dim}`,
      );
    }
    out.push(values);
    return;
  }
  if (typeof values !== "object" || values.length !== shape[dim]) {
    throw new RangeError(`create tensor: ragged nested array at depth ${dim}`);
  }
  for (let i = 0; i < values.length; i++) {
    flattenExact(values[i], shape, dim + 1, out);
  }
}

function flattenAny(
  values: Scalar | NestedArray | TypedArray,
  out: Scalar[],
): void {
  if (typeof values !== "object") {
    out.push(values);
    return;
  }
  for (let i = 0; i < values.length; i++) flattenAny(values[i], out);
}
