// The command batch: kernels record dispatches here; they are encoded and
// submitted together, and only a read-back waits for the GPU.
//
// Binding convention of every Rill kernel: binding 0 is the dispatch's
// parameters (`var<storage, read> p: array<u32>`), bindings 1.. are the
// tensors' buffers in the order given. Kernels must use every binding they
// declare (layout "auto" drops unused ones).
//
// Invariants:
//   Recorded dispatches run in recording order. They are encoded only at
//   submit(): all parameters go into one arena buffer written once, and all
//   dispatches into one compute pass (each dispatch is its own usage scope,
//   so a dispatch sees the writes of the ones before it).
//   A buffer a recorded dispatch uses stays valid until that submit, because
//   the pool reuses released buffers only after a submit.
//   read() never returns values before every pipeline compiled so far and
//   every submit so far was validated: errors surface there, naming the
//   kernel, rather than as wrong numbers.

import { allocate } from "../allocate.ts";
import { type DType, isFloatDType } from "../dtype.ts";
import { Tensor } from "../tensor.ts";
import type { GpuDevice } from "./gpu_device.ts";
import { GpuBufferPool } from "./gpu_buffer_pool.ts";
import { PipelineCache } from "./pipeline_cache.ts";
import {
  type GpuDType,
  GpuTensor,
  isGpuDType,
  storageBytes,
} from "./gpu_tensor.ts";
import { encodeDispatches } from "./_encode_dispatches.ts";
import { gpuTraceHook } from "./gpu_trace.ts";

/** One kernel launch. */
export interface GpuDispatch {
  /** The pipeline, from the batch's {@linkcode PipelineCache}. */
  readonly pipeline: GPUComputePipeline;
  /** Bindings 1.. in order. */
  readonly buffers: readonly GPUBuffer[];
  /** Binding 0: the parameter words (floats as their bits). */
  readonly params: Uint32Array;
  /** Workgroup counts in x, y, z. */
  readonly workgroups: readonly [number, number?, number?];
}

/** Options of {@linkcode GpuBatch}. */
export interface GpuBatchOptions {
  /**
   * The buffer pool.
   *
   * @default {a new pool}
   */
  readonly pool?: GpuBufferPool;
  /**
   * The pipeline cache.
   *
   * @default {a new cache}
   */
  readonly pipelines?: PipelineCache;
  /**
   * Submit (without reading) once this many dispatches are recorded, so a
   * long chain starts running before its read-back.
   *
   * @default {256}
   */
  readonly maxPendingDispatches?: number;
}

/**
 * A validation or out-of-memory error WebGPU reported for submitted work.
 *
 * @example Usage
 * ```ts
 * import { GpuSubmitError } from "./gpu_batch.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(new GpuSubmitError("matmul", "oops").kernels, "matmul");
 * ```
 */
export class GpuSubmitError extends Error {
  /** The labels of the pipelines in the failed submit. */
  readonly kernels: string;

  /**
   * @param kernels The labels of the pipelines in the failed submit.
   * @param detail WebGPU's message.
   *
   * @example Usage
   * ```ts
   * import { GpuSubmitError } from "./gpu_batch.ts";
   * import { assertEquals } from "@std/assert";
   *
   * assertEquals(new GpuSubmitError("a, b", "x").message, "webgpu: a submit of a, b failed: x");
   * ```
   */
  constructor(kernels: string, detail: string) {
    super(`webgpu: a submit of ${kernels} failed: ${detail}`);
    this.name = "GpuSubmitError";
    this.kernels = kernels;
  }
}

/**
 * Records dispatches and submits them in batches; moves tensors on and off
 * the device.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const t = batch.upload(Tensor.fromArray([[1, 2], [3, 4]], "float32"));
 *   const [back] = await batch.read([t]);
 *   assertEquals(back.toNested(), [[1, 2], [3, 4]]);
 *   gpu.destroy();
 * }
 * ```
 */
export class GpuBatch {
  /** The device. */
  readonly gpu: GpuDevice;
  /** Where tensors' buffers come from. */
  readonly pool: GpuBufferPool;
  /** Where kernels find their pipelines. */
  readonly pipelines: PipelineCache;
  readonly #maxPending: number;
  readonly #align: number;
  #pending: GpuDispatch[] = [];
  #errors: Promise<GpuSubmitError | null>[] = [];
  #dispatched = 0;
  // Host-to-GPU copies and GPU-to-host rounds, for tests that check a run
  // keeps its tensors on the GPU.
  #uploads = 0;
  #readBacks = 0;

  /**
   * @param gpu The device.
   * @param options Pool, cache and submit threshold.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBatch } from "./gpu_batch.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   assertEquals(new GpuBatch(gpu).pendingDispatches, 0);
   *   gpu.destroy();
   * }
   * ```
   */
  constructor(gpu: GpuDevice, options: GpuBatchOptions = {}) {
    this.gpu = gpu;
    this.pool = options.pool ?? new GpuBufferPool(gpu);
    this.pipelines = options.pipelines ?? new PipelineCache(gpu);
    this.#maxPending = options.maxPendingDispatches ?? 256;
    this.#align = Math.max(16, gpu.limits.minStorageBufferOffsetAlignment);
  }

  /**
   * Dispatches recorded and not yet submitted.
   *
   * @returns The count.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBatch } from "./gpu_batch.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const batch = new GpuBatch(gpu);
   *   batch.submit();
   *   assertEquals(batch.pendingDispatches, 0);
   *   gpu.destroy();
   * }
   * ```
   */
  get pendingDispatches(): number {
    return this.#pending.length;
  }

  /**
   * Dispatches recorded since the batch was made.
   *
   * @returns The count.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBatch } from "./gpu_batch.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   assertEquals(new GpuBatch(gpu).dispatched, 0);
   *   gpu.destroy();
   * }
   * ```
   */
  get dispatched(): number {
    return this.#dispatched;
  }

  /**
   * Tensors uploaded since the batch was made (`upload` calls).
   *
   * @returns The count.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBatch } from "./gpu_batch.ts";
   * import { Tensor } from "../tensor.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const batch = new GpuBatch(gpu);
   *   batch.upload(Tensor.fromArray([1, 2], "float32"));
   *   assertEquals(batch.uploads, 1);
   *   gpu.destroy();
   * }
   * ```
   */
  get uploads(): number {
    return this.#uploads;
  }

  /**
   * Read-back rounds since the batch was made (`read` calls; one round
   * reads any number of tensors).
   *
   * @returns The count.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBatch } from "./gpu_batch.ts";
   * import { Tensor } from "../tensor.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const batch = new GpuBatch(gpu);
   *   const a = batch.upload(Tensor.fromArray([1], "float32"));
   *   const b = batch.upload(Tensor.fromArray([2], "float32"));
   *   await batch.read([a, b]);
   *   assertEquals(batch.readBacks, 1);
   *   gpu.destroy();
   * }
   * ```
   */
  get readBacks(): number {
    return this.#readBacks;
  }

  /**
   * A new GPU tensor with unspecified contents, for a kernel's output.
   *
   * @param dtype The element type.
   * @param shape The dims.
   * @returns The tensor.
   * @throws {RangeError} If it exceeds the device's binding limit.
   * @throws {TypeError} If it is float16 and the device lacks shader-f16.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBatch } from "./gpu_batch.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   assertEquals(new GpuBatch(gpu).allocate("int32", [0, 3]).size, 0);
   *   gpu.destroy();
   * }
   * ```
   */
  allocate(dtype: GpuDType, shape: readonly number[]): GpuTensor {
    this.#checkDType(dtype);
    let size = 1;
    for (const d of shape) size *= d;
    const buffer = this.pool.acquire(storageBytes(dtype, size));
    return new GpuTensor(this.pool, dtype, shape, buffer);
  }

  /**
   * Copies a CPU tensor to the device (bool widens to u32; float16 keeps
   * its 2 bytes per element).
   *
   * @param tensor A float32, float16, int32 or bool tensor.
   * @returns The GPU tensor.
   * @throws {TypeError} If the dtype cannot live on the GPU (float16 without
   * shader-f16).
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBatch } from "./gpu_batch.ts";
   * import { Tensor } from "../tensor.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const batch = new GpuBatch(gpu);
   *   const t = batch.upload(Tensor.fromArray([true, false], "bool"));
   *   assertEquals((await batch.read([t]))[0].toNested(), [true, false]);
   *   gpu.destroy();
   * }
   * ```
   */
  upload(tensor: Tensor): GpuTensor {
    const dtype = tensor.dtype;
    if (!isGpuDType(dtype)) {
      throw new TypeError(`webgpu: dtype "${dtype}" stays on the CPU`);
    }
    this.#checkDType(dtype);
    const data = dtype === "bool"
      ? Uint32Array.from(tensor.data as Uint8Array)
      : tensor.data;
    const buffer = this.pool.upload(data);
    this.#uploads++;
    return new GpuTensor(this.pool, dtype, tensor.shape, buffer);
  }

  /**
   * Records a dispatch; submits the batch when it reaches the threshold.
   *
   * @param dispatch The pipeline, buffers, parameters and workgroups.
   * @throws {GpuDeviceLostError} If the device was lost.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBatch } from "./gpu_batch.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const batch = new GpuBatch(gpu);
   *   const out = batch.allocate("int32", [1]);
   *   const pipeline = batch.pipelines.get({ op: "seven", dtype: "int32" }, () => `
   *     @group(0) @binding(0) var<storage, read> p: array<u32>;
   *     @group(0) @binding(1) var<storage, read_write> o: array<i32>;
   *     @compute @workgroup_size(1) fn main() { o[0] = i32(p[0]); }`);
   *   batch.dispatch({ pipeline, buffers: [out.buffer], params: new Uint32Array([7]), workgroups: [1] });
   *   assertEquals((await batch.read([out]))[0].toNested(), [7]);
   *   gpu.destroy();
   * }
   * ```
   */
  dispatch(dispatch: GpuDispatch): void {
    this.gpu.check();
    this.#pending.push(dispatch);
    this.#dispatched++;
    if (gpuTraceHook !== undefined) {
      gpuTraceHook.dispatched(dispatch.pipeline.label, dispatch.workgroups);
    }
    if (this.#pending.length >= this.#maxPending) this.submit();
  }

  /**
   * Encodes and submits every recorded dispatch, without waiting.
   *
   * @throws {GpuDeviceLostError} If the device was lost.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBatch } from "./gpu_batch.ts";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   new GpuBatch(gpu).submit();
   *   gpu.destroy();
   * }
   * ```
   */
  submit(): void {
    const trace = gpuTraceHook && this.#traceStart();
    this.#scoped(() => this.pool.submit([this.#encode().finish()]));
    if (trace !== undefined) {
      gpuTraceHook?.submitted(trace.count, trace.kernels, trace.start);
    }
  }

  /**
   * Submits everything recorded, then reads tensors back in one round (one
   * submit, one batch of `mapAsync`).
   *
   * @param tensors GPU tensors, not released.
   * @returns CPU tensors with the same dtypes, shapes and values.
   * @throws {GpuKernelError} If a kernel's WGSL failed to compile.
   * @throws {GpuSubmitError} If WebGPU rejected submitted work.
   * @throws {GpuDeviceLostError} If the device is or becomes lost.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuBatch } from "./gpu_batch.ts";
   * import { Tensor } from "../tensor.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const batch = new GpuBatch(gpu);
   *   const a = batch.upload(Tensor.fromArray([1], "int32", []));
   *   const b = batch.upload(Tensor.fromArray([], "float32", [0]));
   *   const [x, y] = await batch.read([a, b]);
   *   assertEquals([x.toNested(), y.shape], [1, [0]]);
   *   gpu.destroy();
   * }
   * ```
   */
  async read(tensors: readonly GpuTensor[]): Promise<Tensor[]> {
    this.#readBacks++;
    await this.pipelines.check();
    const sources = tensors.map((t) => ({
      buffer: t.buffer,
      bytes: t.byteLength,
    }));
    // readBack submits before its first await, so the scope covers it.
    const start = performance.now();
    const bytes = await this.#scoped(() =>
      this.pool.readBack(sources, this.#encode())
    );
    if (gpuTraceHook !== undefined) {
      let total = 0;
      for (const s of sources) total += s.bytes;
      gpuTraceHook.readBack(total, start);
    }
    const errors = this.#errors;
    this.#errors = [];
    const failure = (await this.gpu.watch(Promise.all(errors)))
      .find((e) => e !== null);
    if (failure) throw failure;
    return tensors.map((t, i) => toTensor(t.dtype, t.shape, bytes[i]));
  }

  // What a traced submit reports: the dispatches pending, and when.
  #traceStart(): { count: number; kernels: string; start: number } {
    const pending = this.#pending;
    const kernels = [...new Set(pending.map((d) => d.pipeline.label))];
    return {
      count: pending.length,
      kernels: kernels.join(", "),
      start: performance.now(),
    };
  }

  // float16 kernels declare f16 bindings, which need shader-f16.
  #checkDType(dtype: GpuDType): void {
    if (dtype === "float16" && !this.gpu.hasShaderF16) {
      throw new TypeError(
        `webgpu: dtype "float16" stays on the CPU: the device has no shader-f16`,
      );
    }
  }

  // Runs `work` (an encode and its submit) inside error scopes that the
  // next read() inspects, labelled with the kernels pending now.
  #scoped<T>(work: () => T): T {
    this.gpu.check();
    if (this.#pending.length === 0) return work();
    const kernels = [...new Set(this.#pending.map((d) => d.pipeline.label))]
      .join(", ");
    const device = this.gpu.device;
    device.pushErrorScope("out-of-memory");
    device.pushErrorScope("validation");
    try {
      return work();
    } finally {
      const scoped = (e: GPUError | null) =>
        e === null ? null : new GpuSubmitError(kernels, e.message.trim());
      this.#errors.push(device.popErrorScope().then(scoped));
      this.#errors.push(device.popErrorScope().then(scoped));
    }
  }

  // Hands the recorded dispatches to a new command encoder.
  #encode(): GPUCommandEncoder {
    const pending = this.#pending;
    this.#pending = [];
    return encodeDispatches(this.pool, pending, this.#align);
  }
}

// The CPU tensor for read-back bytes: bool narrows from u32 to u8; float16
// drops the padding half of an odd size.
function toTensor(
  dtype: GpuDType,
  shape: readonly number[],
  bytes: ArrayBuffer,
): Tensor {
  if (dtype === "float16") {
    let size = 1;
    for (const d of shape) size *= d;
    return new Tensor(dtype, shape, new Float16Array(bytes, 0, size));
  }
  if (dtype === "bool") {
    const wide = new Uint32Array(bytes);
    const data = allocate("bool" as DType, wide.length) as Uint8Array;
    for (let i = 0; i < wide.length; i++) data[i] = wide[i] === 0 ? 0 : 1;
    return new Tensor("bool", shape, data);
  }
  const data = isFloatDType(dtype)
    ? new Float32Array(bytes)
    : new Int32Array(bytes);
  return new Tensor(dtype, shape, data);
}
