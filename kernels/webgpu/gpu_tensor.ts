// A tensor whose elements live in a GPU storage buffer.
//
// Invariants:
//   float32, int32 and bool elements take 4 bytes: f32, i32, and u32
//   holding only 0 or 1 (WGSL has no 8-bit storage; the read-back narrows it
//   to the CPU's Uint8Array). float16 elements take 2, packed two to a word
//   as in a Float16Array (_f16_wgsl.ts); only a device with shader-f16 holds
//   them (GpuBatch checks). int64, float64 and the 8/16-bit integers stay on
//   the CPU.
//   The buffer is at least storageBytes(dtype, size) bytes, a multiple of 4
//   (a pool size class, never 0), and
//   nothing writes it after the dispatch that produced it: GPU tensors are
//   as immutable as CPU ones (docs/architecture.md §2), so they may be shared freely.
//   release() hands the buffer back to the pool exactly once; any later use
//   of `buffer` throws. A tensor dropped without release() gives its buffer
//   back when it is garbage-collected.

import { formatShape, shapeSize } from "../_shape.ts";
import type { DType } from "../dtype.ts";
import type { GpuBufferPool } from "./gpu_buffer_pool.ts";

/** The dtypes a GPU tensor may have. */
export type GpuDType = "float32" | "float16" | "int32" | "bool";

/**
 * Every GPU dtype (float16 only on a device with shader-f16).
 *
 * @example Usage
 * ```ts
 * import { GPU_DTYPES } from "./gpu_tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(GPU_DTYPES, ["float32", "float16", "int32", "bool"]);
 * ```
 */
export const GPU_DTYPES: readonly GpuDType[] = [
  "float32",
  "float16",
  "int32",
  "bool",
];

/**
 * Whether a dtype can live on the GPU (float16 only on a device with
 * shader-f16).
 *
 * @param dtype Any dtype.
 * @returns `true` for float32, float16, int32 and bool.
 *
 * @example Usage
 * ```ts
 * import { isGpuDType } from "./gpu_tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(isGpuDType("float16"), true);
 * assertEquals(isGpuDType("int64"), false);
 * ```
 */
export function isGpuDType(dtype: DType): dtype is GpuDType {
  return dtype === "float32" || dtype === "int32" || dtype === "bool" ||
    dtype === "float16";
}

/**
 * The bytes a GPU tensor's elements take: 4 per element, 2 for float16,
 * rounded up to a multiple of 4 (what WebGPU copies and binds).
 *
 * @param dtype The element type.
 * @param size The number of elements.
 * @returns The byte count.
 *
 * @example Usage
 * ```ts
 * import { storageBytes } from "./gpu_tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(storageBytes("float32", 3), 12);
 * assertEquals(storageBytes("float16", 3), 8);
 * ```
 */
export function storageBytes(dtype: GpuDType, size: number): number {
  return dtype === "float16" ? Math.ceil(size / 2) * 4 : size * 4;
}

// Returns the buffers of tensors that were never released.
const orphans = new FinalizationRegistry<[GpuBufferPool, GPUBuffer]>(
  ([pool, buffer]) => pool.release(buffer),
);

/**
 * A device-resident tensor: dtype, shape and a pooled storage buffer.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBufferPool } from "./gpu_buffer_pool.ts";
 * import { GpuTensor } from "./gpu_tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const pool = new GpuBufferPool(gpu);
 *   const t = new GpuTensor(pool, "float32", [2, 3], pool.acquire(24));
 *   assertEquals(t.size, 6);
 *   t.release();
 *   assertEquals(t.released, true);
 *   gpu.destroy();
 * }
 * ```
 */
export class GpuTensor {
  /** The element type. */
  readonly dtype: GpuDType;
  /** The dims, outermost first. */
  readonly shape: readonly number[];
  /** The number of elements. */
  readonly size: number;
  readonly #pool: GpuBufferPool;
  #buffer: GPUBuffer | null;
  // For a view: the tensor that owns the buffer, kept alive by the view.
  readonly #owner: GpuTensor | undefined;

  /**
   * Wraps a pooled buffer; the tensor owns it from now on.
   *
   * @param pool The pool the buffer came from.
   * @param dtype The element type.
   * @param shape The dims.
   * @param buffer At least `storageBytes(dtype, product(shape))` bytes.
   * @throws {RangeError} If a dim is invalid or the buffer too small.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBufferPool } from "./gpu_buffer_pool.ts";
   * import { GpuTensor } from "./gpu_tensor.ts";
   * import { assertThrows } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const pool = new GpuBufferPool(gpu);
   *   assertThrows(() => new GpuTensor(pool, "int32", [100], pool.acquire(4)), RangeError);
   *   gpu.destroy();
   * }
   * ```
   */
  constructor(
    pool: GpuBufferPool,
    dtype: GpuDType,
    shape: readonly number[],
    buffer: GPUBuffer,
    owner?: GpuTensor,
  ) {
    for (const d of shape) {
      if (!Number.isInteger(d) || d < 0) {
        throw new RangeError(`gpu tensor: invalid shape ${formatShape(shape)}`);
      }
    }
    const size = shapeSize(shape);
    const bytes = storageBytes(dtype, size);
    if (buffer.size < bytes) {
      throw new RangeError(
        `gpu tensor: shape ${
          formatShape(shape)
        } needs ${bytes} bytes, the buffer has ${buffer.size}`,
      );
    }
    this.dtype = dtype;
    this.shape = shape;
    this.size = size;
    this.#pool = pool;
    this.#buffer = buffer;
    this.#owner = owner;
    if (owner === undefined) orphans.register(this, [pool, buffer], this);
  }

  /**
   * The same elements with another shape of the same size (a reshape): the
   * view shares this tensor's buffer and keeps this tensor alive; releasing
   * the view releases nothing.
   *
   * @param shape The new dims.
   * @returns The view.
   * @throws {RangeError} If the sizes differ.
   *
   * @example Usage
   * ```ts
   * import { GpuTensor } from "./gpu_tensor.ts";
   * import { GpuBufferPool } from "./gpu_buffer_pool.ts";
   * import { GpuDevice } from "./gpu_device.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const pool = new GpuBufferPool(gpu);
   *   const t = new GpuTensor(pool, "float32", [2, 3], pool.acquire(24));
   *   const v = t.view([6]);
   *   assertEquals([v.shape, v.buffer === t.buffer], [[6], true]);
   *   gpu.destroy();
   * }
   * ```
   */
  view(shape: readonly number[]): GpuTensor {
    if (shapeSize(shape) !== this.size) {
      throw new RangeError(
        `gpu tensor: cannot view ${formatShape(this.shape)} as ${
          formatShape(shape)
        }`,
      );
    }
    return new GpuTensor(
      this.#pool,
      this.dtype,
      shape,
      this.buffer,
      this.#owner ?? this,
    );
  }

  /**
   * The storage buffer.
   *
   * @returns The buffer holding the elements.
   * @throws {ReferenceError} If the tensor was released.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBufferPool } from "./gpu_buffer_pool.ts";
   * import { GpuTensor } from "./gpu_tensor.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const pool = new GpuBufferPool(gpu);
   *   const b = pool.acquire(4);
   *   assertEquals(new GpuTensor(pool, "bool", [], b).buffer, b);
   *   gpu.destroy();
   * }
   * ```
   */
  get buffer(): GPUBuffer {
    if (this.#buffer === null) {
      throw new ReferenceError(
        `gpu tensor: ${this.dtype} ${
          formatShape(this.shape)
        } used after release`,
      );
    }
    return this.#buffer;
  }

  /**
   * The bytes the elements take: `storageBytes(dtype, size)`.
   *
   * @returns The byte count.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBufferPool } from "./gpu_buffer_pool.ts";
   * import { GpuTensor } from "./gpu_tensor.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const pool = new GpuBufferPool(gpu);
   *   assertEquals(new GpuTensor(pool, "float32", [3], pool.acquire(12)).byteLength, 12);
   *   gpu.destroy();
   * }
   * ```
   */
  get byteLength(): number {
    return storageBytes(this.dtype, this.size);
  }

  /**
   * Whether {@linkcode GpuTensor.release} was called.
   *
   * @returns `true` once released.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBufferPool } from "./gpu_buffer_pool.ts";
   * import { GpuTensor } from "./gpu_tensor.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const pool = new GpuBufferPool(gpu);
   *   assertEquals(new GpuTensor(pool, "float32", [1], pool.acquire(4)).released, false);
   *   gpu.destroy();
   * }
   * ```
   */
  get released(): boolean {
    return this.#buffer === null;
  }

  /**
   * Gives the buffer back to the pool. Commands already encoded that read
   * the tensor still see its values. A second call does nothing.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBufferPool } from "./gpu_buffer_pool.ts";
   * import { GpuTensor } from "./gpu_tensor.ts";
   * import { assertThrows } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const pool = new GpuBufferPool(gpu);
   *   const t = new GpuTensor(pool, "float32", [1], pool.acquire(4));
   *   t.release();
   *   t.release();
   *   assertThrows(() => t.buffer, ReferenceError);
   *   gpu.destroy();
   * }
   * ```
   */
  release(): void {
    if (this.#buffer === null) return;
    if (this.#owner !== undefined) {
      this.#buffer = null;
      return;
    }
    orphans.unregister(this);
    this.#pool.release(this.#buffer);
    this.#buffer = null;
  }
}
