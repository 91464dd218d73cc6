// Storage buffers by size class, the upload path and the batched read-back.
//
// Why classes: creating a GPUBuffer costs tens of µs and wgpu zero-fills it;
// rounding sizes up to a power of two lets a released buffer serve any later
// request of its class, at most doubling the memory held.
//
// Invariants:
//   A buffer is in exactly one of: in use (handed out), #retiring, #free.
//   A released buffer may still be read or written by commands that were
//   encoded but not yet submitted, so it waits in #retiring until the next
//   submit() and only then becomes free. After a submit, every later use
//   (writeBuffer or a command) is ordered after the old commands on the
//   queue timeline, so reuse is safe.
//   Every submit of the WebGPU layer goes through submit(), so #retiring
//   never outlives a submit.
//   Idle (free) bytes stay at most maxIdleBytes; beyond that, buffers are
//   destroyed instead of kept.

import type { GpuDevice } from "./gpu_device.ts";

/**
 * Usage of every pooled storage buffer: STORAGE | COPY_DST | COPY_SRC
 * (bindable, uploadable, readable back).
 *
 * @example Usage
 * ```ts
 * import { STORAGE_USAGE } from "./gpu_buffer_pool.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(STORAGE_USAGE, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC);
 * ```
 */
export const STORAGE_USAGE: number = 0x80 | 0x8 | 0x4;
const STAGING_USAGE = 0x1 | 0x8; // MAP_READ | COPY_DST
// 256 bytes: WebGPU's copy alignment and every adapter's offset alignment.
const MIN_CLASS = 256;

/** Options of {@linkcode GpuBufferPool}. */
export interface GpuBufferPoolOptions {
  /**
   * How many bytes of released buffers to keep for reuse.
   *
   * @default {256 MiB}
   */
  readonly maxIdleBytes?: number;
}

/** One buffer to read back: its first `bytes` bytes. */
export interface ReadBackSource {
  /** A buffer with COPY_SRC usage. */
  readonly buffer: GPUBuffer;
  /** How many bytes to read, a multiple of 4. */
  readonly bytes: number;
}

/** Counters of a pool, for tests and the dump. */
export interface GpuBufferPoolStats {
  /** Buffers ever created. */
  readonly created: number;
  /** Requests served by a reused buffer. */
  readonly reused: number;
  /** Bytes in free buffers. */
  readonly idleBytes: number;
  /** Submits that went through the pool. */
  readonly submits: number;
}

/**
 * The size class of a request: the next power of two from 256 bytes, or the
 * request rounded to 256 bytes when the power of two would exceed `limit`.
 *
 * @param bytes The bytes needed.
 * @param limit The largest buffer that may be bound.
 * @returns The size to create.
 *
 * @example Usage
 * ```ts
 * import { sizeClass } from "./gpu_buffer_pool.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(sizeClass(1), 256);
 * assertEquals(sizeClass(1000), 1024);
 * assertEquals(sizeClass(3000, 2048), 3072);
 * ```
 */
export function sizeClass(bytes: number, limit = Infinity): number {
  let size = MIN_CLASS;
  while (size < bytes) size *= 2;
  if (size > limit) return Math.ceil(bytes / MIN_CLASS) * MIN_CLASS;
  return size;
}

/**
 * A pool of storage buffers on one device, with uploads and batched
 * read-backs.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBufferPool } from "./gpu_buffer_pool.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const pool = new GpuBufferPool(gpu);
 *   const buffer = pool.upload(new Float32Array([1, 2, 3]));
 *   const [bytes] = await pool.readBack([{ buffer, bytes: 12 }]);
 *   assertEquals([...new Float32Array(bytes)], [1, 2, 3]);
 *   gpu.destroy();
 * }
 * ```
 */
export class GpuBufferPool {
  /** The device the buffers belong to. */
  readonly gpu: GpuDevice;
  readonly #maxIdleBytes: number;
  readonly #free = new Map<number, GPUBuffer[]>();
  readonly #staging = new Map<number, GPUBuffer[]>();
  #retiring: GPUBuffer[] = [];
  #idleBytes = 0;
  #created = 0;
  #reused = 0;
  #submits = 0;

  /**
   * @param gpu The device.
   * @param options How much to keep.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBufferPool } from "./gpu_buffer_pool.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   assertEquals(new GpuBufferPool(gpu).stats().created, 0);
   *   gpu.destroy();
   * }
   * ```
   */
  constructor(gpu: GpuDevice, options: GpuBufferPoolOptions = {}) {
    this.gpu = gpu;
    this.#maxIdleBytes = options.maxIdleBytes ?? 256 * 2 ** 20;
  }

  /**
   * A storage buffer of at least `bytes` bytes (its size class).
   *
   * @param bytes The bytes needed; 0 gets the smallest class.
   * @returns A buffer with STORAGE, COPY_SRC and COPY_DST usage.
   * @throws {RangeError} If `bytes` exceeds the device's binding limit.
   * @throws {GpuDeviceLostError} If the device was lost.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBufferPool } from "./gpu_buffer_pool.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const pool = new GpuBufferPool(gpu);
   *   assertEquals(pool.acquire(1000).size, 1024);
   *   gpu.destroy();
   * }
   * ```
   */
  acquire(bytes: number): GPUBuffer {
    this.gpu.check();
    const limit = this.gpu.limits.maxStorageBufferBindingSize;
    if (bytes > limit) {
      throw new RangeError(
        `webgpu: ${bytes} bytes exceed the device's storage binding limit of ${limit} bytes`,
      );
    }
    const size = sizeClass(bytes, limit);
    const reused = this.#free.get(size)?.pop();
    if (reused !== undefined) {
      this.#idleBytes -= size;
      this.#reused++;
      return reused;
    }
    this.#created++;
    return this.gpu.device.createBuffer({
      label: `rill pool ${size}`,
      size,
      usage: STORAGE_USAGE,
    });
  }

  /**
   * Gives a buffer back. It becomes reusable after the next
   * {@linkcode GpuBufferPool.submit}, since unsubmitted commands may use it.
   *
   * @param buffer A buffer from {@linkcode GpuBufferPool.acquire}, released
   * once.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBufferPool } from "./gpu_buffer_pool.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const pool = new GpuBufferPool(gpu);
   *   const a = pool.acquire(100);
   *   pool.release(a);
   *   pool.submit([]);
   *   assertEquals(pool.acquire(200), a);
   *   gpu.destroy();
   * }
   * ```
   */
  release(buffer: GPUBuffer): void {
    this.#retiring.push(buffer);
  }

  /**
   * Submits command buffers, then frees the buffers released before it.
   *
   * @param commands The finished command buffers, possibly none.
   * @throws {GpuDeviceLostError} If the device was lost.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBufferPool } from "./gpu_buffer_pool.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const pool = new GpuBufferPool(gpu);
   *   pool.submit([]);
   *   assertEquals(pool.stats().submits, 1);
   *   gpu.destroy();
   * }
   * ```
   */
  submit(commands: readonly GPUCommandBuffer[]): void {
    this.gpu.check();
    this.gpu.device.queue.submit([...commands]);
    this.#submits++;
    const retiring = this.#retiring;
    this.#retiring = [];
    for (const buffer of retiring) this.#keep(this.#free, buffer);
  }

  /**
   * Copies host data into a new pooled buffer (`queue.writeBuffer`).
   *
   * @param data The bytes to upload; its byte length is padded to 4.
   * @returns The buffer, holding `data` at offset 0.
   * @throws {RangeError} If the data exceeds the binding limit.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBufferPool } from "./gpu_buffer_pool.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const pool = new GpuBufferPool(gpu);
   *   assertEquals(pool.upload(new Int32Array(5)).size, 256);
   *   gpu.destroy();
   * }
   * ```
   */
  upload(data: ArrayBufferView): GPUBuffer {
    const buffer = this.acquire(data.byteLength);
    const padded = data.byteLength & ~3;
    if (padded > 0) {
      this.gpu.device.queue.writeBuffer(
        buffer,
        0,
        data.buffer as ArrayBuffer,
        data.byteOffset,
        padded,
      );
    }
    if (padded !== data.byteLength) {
      // writeBuffer takes multiples of 4 bytes; the tail goes in a word.
      const tail = new Uint8Array(4);
      tail.set(
        new Uint8Array(
          data.buffer,
          data.byteOffset + padded,
          data.byteLength - padded,
        ),
      );
      this.gpu.device.queue.writeBuffer(buffer, padded, tail);
    }
    return buffer;
  }

  /**
   * Reads many buffers in one round: one copy per buffer into a staging
   * buffer, one submit, and every `mapAsync` awaited together. Deno pays
   * about 10 ms per read-back round, so callers gather what they need first.
   *
   * @param sources The buffers and byte counts.
   * @param encoder Commands to run first, in the same submit (the batch's).
   * @returns One fresh ArrayBuffer per source, in order.
   * @throws {GpuDeviceLostError} If the device is lost before or during it.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBufferPool } from "./gpu_buffer_pool.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const pool = new GpuBufferPool(gpu);
   *   const a = pool.upload(new Int32Array([7])), b = pool.upload(new Int32Array([8, 9]));
   *   const [x, y] = await pool.readBack([{ buffer: a, bytes: 4 }, { buffer: b, bytes: 8 }]);
   *   assertEquals([...new Int32Array(x), ...new Int32Array(y)], [7, 8, 9]);
   *   gpu.destroy();
   * }
   * ```
   */
  async readBack(
    sources: readonly ReadBackSource[],
    encoder?: GPUCommandEncoder,
  ): Promise<ArrayBuffer[]> {
    this.gpu.check();
    const device = this.gpu.device;
    const commands = encoder ?? device.createCommandEncoder({
      label: "rill read-back",
    });
    const staging: GPUBuffer[] = [];
    for (const { buffer, bytes } of sources) {
      const stage = this.#stagingBuffer(bytes);
      if (bytes > 0) commands.copyBufferToBuffer(buffer, 0, stage, 0, bytes);
      staging.push(stage);
    }
    // This submit also orders any earlier writeBuffer before the maps
    // (the Deno quirk of docs/architecture.md §6).
    this.submit([commands.finish()]);
    await this.gpu.watch(
      Promise.all(staging.map((s) => s.mapAsync(GPUMapMode.READ))),
    );
    return staging.map((stage, i) => {
      const bytes = sources[i].bytes;
      const copy = stage.getMappedRange(0, stage.size).slice(0, bytes);
      stage.unmap();
      this.#keep(this.#staging, stage);
      return copy;
    });
  }

  /**
   * The pool's counters.
   *
   * @returns Created and reused buffers, idle bytes and submits.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBufferPool } from "./gpu_buffer_pool.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const pool = new GpuBufferPool(gpu);
   *   pool.acquire(4);
   *   assertEquals(pool.stats().created, 1);
   *   gpu.destroy();
   * }
   * ```
   */
  stats(): GpuBufferPoolStats {
    return {
      created: this.#created,
      reused: this.#reused,
      idleBytes: this.#idleBytes,
      submits: this.#submits,
    };
  }

  #stagingBuffer(bytes: number): GPUBuffer {
    const size = sizeClass(bytes);
    const reused = this.#staging.get(size)?.pop();
    if (reused !== undefined) {
      this.#idleBytes -= size;
      return reused;
    }
    return this.gpu.device.createBuffer({
      label: `rill staging ${size}`,
      size,
      usage: STAGING_USAGE,
    });
  }

  #keep(shelf: Map<number, GPUBuffer[]>, buffer: GPUBuffer): void {
    if (this.#idleBytes + buffer.size > this.#maxIdleBytes) {
      buffer.destroy();
      return;
    }
    this.#idleBytes += buffer.size;
    let list = shelf.get(buffer.size);
    if (list === undefined) shelf.set(buffer.size, list = []);
    list.push(buffer);
  }
}
