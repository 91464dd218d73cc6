// Compute pipelines cached by (op, dtype, variant), each compiled once.
//
// Why synchronous creation: kernels encode work without awaiting, so an op
// costs no microtask hop. WGSL errors are therefore collected through an
// error scope around each compilation and raised by check(), which every
// read-back awaits before it trusts a result.
//
// Invariants:
//   At most one pipeline per key, built by the first get() for it; later
//   get()s return the same object and never call `wgsl` again.
//   Keys are nested maps (op → dtype → variant), never joined strings, since
//   op names contain "_" (style.md).
//   A failed compilation is reported by the next check(), as a
//   GpuKernelError naming the op and variant, and leaves the cache then, so
//   a later get() compiles (and fails, and is reported) again.

import type { GpuDevice } from "./gpu_device.ts";

/** A pipeline's key. */
export interface PipelineKey {
  /** The kernel's name, e.g. `matmul` or `elementwise_add`. */
  readonly op: string;
  /** The element type it computes in, e.g. `float32`. */
  readonly dtype: string;
  /**
   * Whatever else changes the WGSL: shape class, tile size, flags.
   *
   * @default {""}
   */
  readonly variant?: string;
}

/**
 * A WGSL compilation or validation failure, naming the kernel.
 *
 * @example Usage
 * ```ts
 * import { GpuKernelError } from "./pipeline_cache.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const e = new GpuKernelError({ op: "matmul", dtype: "float32" }, "bad");
 * assertEquals(e.op, "matmul");
 * ```
 */
export class GpuKernelError extends Error {
  /** The kernel's op name. */
  readonly op: string;
  /** The kernel's dtype. */
  readonly dtype: string;
  /** The kernel's variant. */
  readonly variant: string;

  /**
   * @param key The kernel.
   * @param detail WebGPU's message.
   *
   * @example Usage
   * ```ts
   * import { GpuKernelError } from "./pipeline_cache.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const e = new GpuKernelError({ op: "relu", dtype: "float32", variant: "flat" }, "x");
   * assertEquals(e.message, 'webgpu: kernel "relu" (float32, flat) failed to compile: x');
   * ```
   */
  constructor(key: PipelineKey, detail: string) {
    const variant = key.variant ?? "";
    super(
      `webgpu: kernel "${key.op}" (${key.dtype}${
        variant ? `, ${variant}` : ""
      }) failed to compile: ${detail}`,
    );
    this.name = "GpuKernelError";
    this.op = key.op;
    this.dtype = key.dtype;
    this.variant = variant;
  }
}

/**
 * Compute pipelines by key, compiled once each.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { PipelineCache } from "./pipeline_cache.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const cache = new PipelineCache(gpu);
 *   const wgsl = () => "@compute @workgroup_size(1) fn main() {}";
 *   const a = cache.get({ op: "noop", dtype: "float32" }, wgsl);
 *   assertEquals(cache.get({ op: "noop", dtype: "float32" }, wgsl), a);
 *   assertEquals(cache.compiled, 1);
 *   await cache.check();
 *   gpu.destroy();
 * }
 * ```
 */
export class PipelineCache {
  /** The device the pipelines belong to. */
  readonly gpu: GpuDevice;
  readonly #byOp = new Map<
    string,
    Map<string, Map<string, GPUComputePipeline>>
  >();
  #pending: Promise<GpuKernelError | null>[] = [];
  #failed: [Map<string, GPUComputePipeline>, string, GPUComputePipeline][] = [];
  #compiled = 0;

  /**
   * @param gpu The device.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { PipelineCache } from "./pipeline_cache.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   assertEquals(new PipelineCache(gpu).compiled, 0);
   *   gpu.destroy();
   * }
   * ```
   */
  constructor(gpu: GpuDevice) {
    this.gpu = gpu;
  }

  /**
   * How many pipelines were compiled.
   *
   * @returns The count of distinct keys seen.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { PipelineCache } from "./pipeline_cache.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const cache = new PipelineCache(gpu);
   *   const wgsl = () => "@compute @workgroup_size(1) fn main() {}";
   *   cache.get({ op: "a", dtype: "float32" }, wgsl);
   *   cache.get({ op: "a", dtype: "int32" }, wgsl);
   *   assertEquals(cache.compiled, 2);
   *   gpu.destroy();
   * }
   * ```
   */
  get compiled(): number {
    return this.#compiled;
  }

  /**
   * The pipeline for a key, compiling `wgsl()` (entry point `main`, layout
   * `auto`) the first time the key is seen.
   *
   * @param key The kernel's op, dtype and variant.
   * @param wgsl Builds the WGSL source; called at most once per key.
   * @returns The compute pipeline.
   * @throws {GpuDeviceLostError} If the device was lost.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { PipelineCache } from "./pipeline_cache.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const cache = new PipelineCache(gpu);
   *   const p = cache.get({ op: "noop", dtype: "float32", variant: "x" }, () =>
   *     "@compute @workgroup_size(1) fn main() {}");
   *   assertEquals(p.label, "noop float32 x");
   *   gpu.destroy();
   * }
   * ```
   */
  get(key: PipelineKey, wgsl: () => string): GPUComputePipeline {
    const variant = key.variant ?? "";
    let byDtype = this.#byOp.get(key.op);
    if (byDtype === undefined) this.#byOp.set(key.op, byDtype = new Map());
    let byVariant = byDtype.get(key.dtype);
    if (byVariant === undefined) byDtype.set(key.dtype, byVariant = new Map());
    const cached = byVariant.get(variant);
    if (cached !== undefined) return cached;
    const pipeline = this.#compile(key, wgsl(), () => {
      this.#failed.push([byVariant, variant, pipeline]);
    });
    byVariant.set(variant, pipeline);
    return pipeline;
  }

  /**
   * Waits for the validation of every pipeline compiled since the last
   * check and throws the first failure.
   *
   * @throws {GpuKernelError} If a WGSL source failed to compile or validate.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { GpuKernelError, PipelineCache } from "./pipeline_cache.ts";
   * import { assertRejects } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const cache = new PipelineCache(gpu);
   *   cache.get({ op: "broken", dtype: "float32" }, () => "fn main( {");
   *   await assertRejects(() => cache.check(), GpuKernelError);
   *   gpu.destroy();
   * }
   * ```
   */
  async check(): Promise<void> {
    if (this.#pending.length === 0) return;
    const pending = this.#pending;
    this.#pending = [];
    const errors = await this.gpu.watch(Promise.all(pending));
    const failure = errors.find((e) => e !== null);
    if (failure) {
      for (const [byVariant, variant, pipeline] of this.#failed) {
        if (byVariant.get(variant) === pipeline) byVariant.delete(variant);
      }
      this.#failed = [];
      throw failure;
    }
  }

  #compile(
    key: PipelineKey,
    code: string,
    onFailure: () => void,
  ): GPUComputePipeline {
    this.gpu.check();
    const device = this.gpu.device;
    const label = [key.op, key.dtype, key.variant].filter((s) => s).join(" ");
    device.pushErrorScope("validation");
    const module = device.createShaderModule({ label, code });
    const pipeline = device.createComputePipeline({
      label,
      layout: "auto",
      compute: { module, entryPoint: "main" },
    });
    this.#compiled++;
    this.#pending.push(
      device.popErrorScope().then((e) => {
        if (e === null) return null;
        onFailure();
        return new GpuKernelError(key, e.message.trim());
      }),
    );
    return pipeline;
  }
}
