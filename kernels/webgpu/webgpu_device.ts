/**
 * The WebGPU device: the CPU's kernel table with WGSL entries where a GPU
 * kernel exists and placement says the GPU (docs/architecture.md §6).
 *
 * Placement, decided per call from the operands alone:
 *   - float operands of one dtype only: float32, and float16 where the GPU
 *     has shader-f16 (`floatDTypes`, fixed when the device is made; without
 *     shader-f16 float16 stays on the CPU like any other dtype); integer
 *     and bool tensors stay on the CPU, so loop counters and conditions
 *     never wait for the GPU; mixed dtypes promote on the CPU;
 *   - on the GPU when an operand already lives there, or when one has at
 *     least GPU_MIN_ELEMENTS elements; small float tensors stay on the CPU;
 *   - an op with no GPU kernel runs on the CPU. If an operand is on the
 *     GPU, its `data` throws `ElementsOnDevice`: the runtime reads the op's
 *     inputs back in one batch and runs it again (device_tensor.ts).
 * A comparison of float operands placed on the GPU gives a bool tensor that
 * stays there (u32 0 or 1) until something reads it: a condition reads it
 * back, an op with no bool GPU kernel reads it back as above.
 * Data movement (transpose, concat, split, slice, gather) copies bits, so
 * it also takes int32 operands, but only ones already on the GPU (a cast's
 * result): it runs here when its operands all have one dtype, a float one
 * of `floatDTypes` or int32, and one is on this device or is a float one of
 * at least GPU_MIN_ELEMENTS. A cast (between float32, int32 and, with
 * shader-f16, float16) runs here only when its operand already is here:
 * casting a host tensor on the GPU would put an integer result there. A
 * random fill has no operands: a float32 one of at least GPU_MIN_ELEMENTS
 * is drawn here (the same counter-based draws as on the CPU), any other on
 * the CPU.
 * A result computed on the GPU stays there as a DeviceTensor; a host
 * tensor's upload is kept with it, so a weight is uploaded once.
 *
 * @module
 */
import { reshapeDims } from "../layout.ts";
import { shapeSize } from "../_shape.ts";
import type { DType } from "../dtype.ts";
import { cpuDevice } from "../cpu/device.ts";
import type { Device, Kernels } from "../device.ts";
import { DeviceTensor } from "../device_tensor.ts";
import type { Tensor } from "../tensor.ts";
import {
  binary,
  compare,
  GPU_BINARY,
  GPU_UNARY,
  scale,
  unary,
} from "./elementwise.ts";
import { GpuBatch } from "./gpu_batch.ts";
import type { GpuDevice } from "./gpu_device.ts";
import type { GpuTensor } from "./gpu_tensor.ts";
import { matmul } from "./matmul.ts";
import { cast, gpuCasts } from "./cast.ts";
import { gather } from "./gather.ts";
import { concat, slice, split, splitNearEqual, transpose } from "./shape.ts";
import { GPU_REDUCE, reduce, softmax } from "./reduce.ts";
import { gaussianFill, uniformFill } from "./random.ts";
import { GPU_MIN_ELEMENTS } from "./gpu_min_elements.ts";

export { GPU_MIN_ELEMENTS } from "./gpu_min_elements.ts";

/** Options of {@linkcode WebGpuDevice}. */
export interface WebGpuDeviceOptions {
  /**
   * Place float16 operands on the GPU. Honoured only where the GPU has
   * shader-f16 (`GpuDevice.hasShaderF16`), which float16 kernels need.
   *
   * @default {gpu.hasShaderF16}
   */
  readonly float16?: boolean;
}

/**
 * The WebGPU device of one worker.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { WebGpuDevice } from "./webgpu_device.ts";
 * import { readBack } from "../device_tensor.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const device = new WebGpuDevice(gpu);
 *   const x = Tensor.full([128, 128], "float32", 2);
 *   const y = device.kernels.binary("mul", x, x); // on the GPU
 *   await readBack([y]);
 *   assertEquals(y.item(0), 4);
 *   gpu.destroy();
 * }
 * ```
 */
export class WebGpuDevice implements Device {
  /** The device's name. */
  readonly name = "webgpu";
  /** The kernels. */
  readonly kernels: Kernels;
  /** The GPU. */
  readonly gpu: GpuDevice;
  /**
   * The float dtypes whose operands go to the GPU: float32, and float16
   * where the GPU has shader-f16 (and the options allow it).
   */
  readonly floatDTypes: readonly DType[];
  readonly #batch: GpuBatch;
  // The uploads of host tensors, kept as long as the tensor lives.
  readonly #uploads = new WeakMap<Tensor, GpuTensor>();
  // Where this device's tensors are, for `readBack`.
  readonly #home: {
    name: string;
    readBack(ts: readonly DeviceTensor[]): Promise<void>;
  };

  /**
   * @param gpu The GPU.
   * @param options Whether to place float16 on the GPU.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { WebGpuDevice } from "./webgpu_device.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   const device = new WebGpuDevice(gpu, { float16: false });
   *   assertEquals(device.floatDTypes, ["float32"]);
   *   gpu.destroy();
   * }
   * ```
   */
  constructor(gpu: GpuDevice, options: WebGpuDeviceOptions = {}) {
    this.gpu = gpu;
    const float16 = (options.float16 ?? true) && gpu.hasShaderF16;
    this.floatDTypes = float16 ? ["float32", "float16"] : ["float32"];
    this.#batch = new GpuBatch(gpu);
    this.#home = {
      name: this.name,
      readBack: (ts) => this.#readBack(ts),
    };
    this.kernels = this.#table(cpuDevice.kernels);
  }

  // The CPU's table, with GPU entries where they apply.
  #table(cpu: Kernels): Kernels {
    const b = this.#batch;
    const on = (...ts: Tensor[]) => this.#placeOnGpu(ts);
    return {
      ...cpu,
      binary: (kind, x, y, axis) =>
        on(x, y) && listed(GPU_BINARY, x.dtype, kind)
          ? this.#run(() =>
            binary(b, kind, this.#gpu(x), this.#gpu(y), axis)
          ) ??
            cpu.binary(kind, x, y, axis)
          : cpu.binary(kind, x, y, axis),
      compare: (kind, x, y, axis) =>
        on(x, y)
          ? this.#run(() =>
            compare(b, kind, this.#gpu(x), this.#gpu(y), axis)
          ) ?? cpu.compare(kind, x, y, axis)
          : cpu.compare(kind, x, y, axis),
      unary: (kind, x) =>
        on(x) && GPU_UNARY.includes(kind)
          ? this.#run(() => unary(b, kind, this.#gpu(x))) ?? cpu.unary(kind, x)
          : cpu.unary(kind, x),
      scale: (x, s, bias, after) =>
        on(x)
          ? this.#run(() => scale(b, this.#gpu(x), s, bias, after)) ??
            cpu.scale(x, s, bias, after)
          : cpu.scale(x, s, bias, after),
      reduce: (kind, x, options) =>
        on(x) && listed(GPU_REDUCE, x.dtype, kind)
          ? this.#run(() => reduce(b, kind, this.#gpu(x), options)) ??
            cpu.reduce(kind, x, options)
          : cpu.reduce(kind, x, options),
      softmax: (x, axis) =>
        on(x)
          ? this.#run(() => softmax(b, this.#gpu(x), axis)) ??
            cpu.softmax(x, axis)
          : cpu.softmax(x, axis),
      matmul: (x, y, options) =>
        on(x, y)
          ? this.#run(() =>
            matmul(b, this.#gpu(x), this.#gpu(y), {
              transposeX: options?.transposeX,
              transposeY: options?.transposeY,
              alpha: options?.alpha,
            })
          ) ?? cpu.matmul(x, y, options)
          : cpu.matmul(x, y, options),
      mul2d: (x, y, xCols = 1, yCols = 1, options) =>
        on(x, y)
          ? this.#run(() => this.#mul2d(x, y, xCols, yCols)) ??
            cpu.mul2d(x, y, xCols, yCols, options)
          : cpu.mul2d(x, y, xCols, yCols, options),
      ...this.#moves(cpu),
      ...this.#fills(cpu),
      reshape: (x, shape) =>
        x instanceof DeviceTensor && x.home === this.#home
          ? this.#wrap(
            (x.stored as GpuTensor).view(reshapeDims(x.shape, shape)),
          )
          : cpu.reshape(x, shape),
    };
  }

  // The data-movement entries: GPU copies where #placeMove says so.
  #moves(cpu: Kernels): Partial<Kernels> {
    const b = this.#batch;
    const on = (...ts: Tensor[]) => this.#placeMove(ts);
    const g = (t: Tensor) => this.#gpu(t);
    return {
      transpose: (x, axes) =>
        on(x)
          ? this.#run(() => transpose(b, g(x), axes)) ?? cpu.transpose(x, axes)
          : cpu.transpose(x, axes),
      concat: (xs, axis) =>
        on(...xs)
          ? this.#run(() => concat(b, xs.map(g), axis)) ?? cpu.concat(xs, axis)
          : cpu.concat(xs, axis),
      split: (x, axis, options) =>
        on(x)
          ? this.#runAll(() => split(b, g(x), axis, options)) ??
            cpu.split(x, axis, options)
          : cpu.split(x, axis, options),
      splitNearEqual: (x, num, axis) =>
        on(x)
          ? this.#runAll(() => splitNearEqual(b, g(x), num, axis)) ??
            cpu.splitNearEqual(x, num, axis)
          : cpu.splitNearEqual(x, num, axis),
      slice: (x, axes, starts, ends) =>
        on(x)
          ? this.#run(() => slice(b, g(x), axes, starts, ends)) ??
            cpu.slice(x, axes, starts, ends)
          : cpu.slice(x, axes, starts, ends),
      // The index stays on the host: the kernel checks and uploads it.
      gather: (x, index, axis) =>
        on(x)
          ? this.#run(() => gather(b, g(x), index, axis)) ??
            cpu.gather(x, index, axis)
          : cpu.gather(x, index, axis),
      cast: (x, dtype) =>
        this.#isHere(x) && gpuCasts(x.dtype, dtype) &&
          (dtype === "int32" || this.floatDTypes.includes(dtype))
          ? this.#run(() => cast(b, g(x), dtype)) ?? cpu.cast(x, dtype)
          : cpu.cast(x, dtype),
    };
  }

  // The random fills: a large float32 fill is drawn here, where it stays
  // (the same values as the CPU's, see random.ts); the rest on the CPU.
  #fills(cpu: Kernels): Partial<Kernels> {
    const b = this.#batch;
    const large = (shape: readonly number[], dtype: DType) =>
      dtype === "float32" && shapeSize(shape) >= GPU_MIN_ELEMENTS;
    return {
      uniformRandom: (shape, dtype, min, max, key) =>
        large(shape, dtype)
          ? this.#run(() => uniformFill(b, shape, min, max, key)) ??
            cpu.uniformRandom(shape, dtype, min, max, key)
          : cpu.uniformRandom(shape, dtype, min, max, key),
      gaussianRandom: (shape, dtype, mean, std, key) =>
        large(shape, dtype)
          ? this.#run(() => gaussianFill(b, shape, mean, std, key)) ??
            cpu.gaussianRandom(shape, dtype, mean, std, key)
          : cpu.gaussianRandom(shape, dtype, mean, std, key),
    };
  }

  // Whether a data-movement call on `ts` runs here: one dtype, a float one
  // of floatDTypes or int32, and one operand already here or a large float
  // one (an int32 host tensor alone never moves to the GPU).
  #placeMove(ts: readonly Tensor[]): boolean {
    let here = false;
    for (const t of ts) {
      if (t.dtype !== ts[0].dtype) return false;
      const float = this.floatDTypes.includes(t.dtype);
      if (!float && t.dtype !== "int32") return false;
      if (this.#isHere(t)) here = true;
      else if (float && t.size >= GPU_MIN_ELEMENTS) here = true;
    }
    return here;
  }

  #isHere(t: Tensor): boolean {
    return t instanceof DeviceTensor && t.home === this.#home;
  }

  // As #run, for kernels with several results.
  #runAll(kernel: () => GpuTensor[]): Tensor[] | undefined {
    try {
      return kernel().map((g) => this.#wrap(g));
    } catch (error) {
      if (error instanceof RangeError) return undefined;
      throw error;
    }
  }

  // Whether a call on `ts` runs here: one dtype, of floatDTypes, and one
  // operand already here or large.
  #placeOnGpu(ts: readonly Tensor[]): boolean {
    let large = false;
    for (const t of ts) {
      if (t.dtype !== ts[0].dtype) return false;
      if (!this.floatDTypes.includes(t.dtype)) return false;
      if (t instanceof DeviceTensor && t.home === this.#home) large = true;
      else if (t.size >= GPU_MIN_ELEMENTS) large = true;
    }
    return large;
  }

  // The GPU kernel's result as a tensor, or undefined when the GPU cannot
  // take the call (a buffer above the device's limits): the CPU does it.
  #run(kernel: () => GpuTensor): Tensor | undefined {
    try {
      return this.#wrap(kernel());
    } catch (error) {
      if (error instanceof RangeError) return undefined;
      throw error;
    }
  }

  #wrap(g: GpuTensor): DeviceTensor {
    return new DeviceTensor(g.dtype, g.shape, this.#home, g);
  }

  // A tensor's elements on the GPU: its own, or its upload.
  #gpu(t: Tensor): GpuTensor {
    if (t instanceof DeviceTensor && t.home === this.#home) {
      return t.stored as GpuTensor;
    }
    let g = this.#uploads.get(t);
    if (g === undefined) this.#uploads.set(t, g = this.#batch.upload(t));
    return g;
  }

  // Fluid's mul: X and Y flattened to matrices at their column dims.
  #mul2d(x: Tensor, y: Tensor, xCols: number, yCols: number): GpuTensor {
    const prod = (dims: readonly number[]) => dims.reduce((p, d) => p * d, 1);
    const [xRows, xRest] = [x.shape.slice(0, xCols), x.shape.slice(xCols)];
    const [yRows, yRest] = [y.shape.slice(0, yCols), y.shape.slice(yCols)];
    if (prod(xRest) !== prod(yRows)) {
      throw new RangeError("mul: shapes do not match"); // the CPU says how
    }
    const product = matmul(
      this.#batch,
      this.#gpu(x).view([prod(xRows), prod(xRest)]),
      this.#gpu(y).view([prod(yRows), prod(yRest)]),
    );
    return product.view([...xRows, ...yRest]);
  }

  async #readBack(tensors: readonly DeviceTensor[]): Promise<void> {
    const hosts = await this.#batch.read(
      tensors.map((t) => t.stored as GpuTensor),
    );
    tensors.forEach((t, i) => t.keepHostData(hosts[i].data));
  }
}

// Whether a per-dtype table of kinds (GPU_BINARY, GPU_REDUCE) lists `kind`
// for `dtype`.
function listed<K>(
  table: Readonly<Partial<Record<DType, readonly K[]>>>,
  dtype: DType,
  kind: K,
): boolean {
  return table[dtype]?.includes(kind) ?? false;
}
