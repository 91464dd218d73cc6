/**
 * The WebGPU device: the CPU's kernel table with the entries of
 * `GPU_KERNELS` (gpu_kernels.ts) laid over it, so a call runs on the GPU
 * where its kernel has an entry and placement says the GPU (docs/architecture.md §6).
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
 * tensor's upload is kept with its elements, so a weight (and any reshape
 * of it) is uploaded once.
 *
 * @module
 */
import { reshapeDims } from "../layout.ts";
import type { DType } from "../dtype.ts";
import { cpuDevice } from "../cpu/device.ts";
import type { Device, Kernels } from "../device.ts";
import { DeviceTensor } from "../device_tensor.ts";
import type { Tensor } from "../tensor.ts";
import { GpuBatch } from "./gpu_batch.ts";
import type { GpuDevice } from "./gpu_device.ts";
import { GPU_KERNELS, type GpuPlacement } from "./gpu_kernels.ts";
import type { GpuTensor } from "./gpu_tensor.ts";
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
  // The uploads of host tensors, by their elements and kept as long as
  // those live: a tensor never changes, and a reshape of a host tensor
  // shares its elements, so a parameter and every view of it (Paddle's
  // reshape2 of a conv bias to [1, C, 1, 1], run after run) go up once.
  readonly #uploads = new WeakMap<object, GpuTensor>();
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

  /**
   * How many tensors went to the GPU and how many read-back rounds came
   * from it since the device was made (a run of a model on the GPU uploads
   * each parameter once, its feeds, and reads back its fetches in one
   * round).
   *
   * @returns The counts.
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
   *   const y = device.kernels.binary("add", device.kernels.unary("exp", x), x);
   *   await readBack([y]);
   *   assertEquals(device.traffic(), { uploads: 1, readBacks: 1 });
   *   gpu.destroy();
   * }
   * ```
   */
  traffic(): { uploads: number; readBacks: number } {
    return { uploads: this.#batch.uploads, readBacks: this.#batch.readBacks };
  }

  // The CPU's table with each entry of GPU_KERNELS laid over its kernel:
  // a call the entry places here runs on the GPU, unless the GPU cannot
  // take it (#run); every other call, and every kernel without an entry,
  // runs on the CPU. reshape (GPU_VIEWS) is no kernel here but a view of a
  // tensor already on the GPU.
  // The template takes five parameters, the most an entry's kernel has
  // (GpuKernelTable's type allows no more), and passes them on as they
  // come: a rest parameter would build an argument list per call, about a
  // tenth of a small call's time. A missing argument passes as undefined,
  // which every kernel reads as absent.
  #table(cpu: Kernels): Kernels {
    const on = this.#placement();
    const kernels = { ...cpu } as unknown as Record<string, AnyKernel>;
    for (const [name, entry] of Object.entries(GPU_KERNELS)) {
      const onCpu = kernels[name];
      const placed = entry.placed as (
        on: GpuPlacement,
        ...args: unknown[]
      ) => boolean;
      const run = entry.run as (
        on: GpuPlacement,
        ...args: unknown[]
      ) => GpuTensor | GpuTensor[];
      kernels[name] = (a, b, c, d, e) =>
        placed(on, a, b, c, d, e)
          ? this.#run(() => run(on, a, b, c, d, e)) ?? onCpu(a, b, c, d, e)
          : onCpu(a, b, c, d, e);
    }
    return {
      ...kernels as unknown as Kernels,
      reshape: (x, shape) =>
        x instanceof DeviceTensor && x.home === this.#home
          ? this.#wrap(
            (x.stored as GpuTensor).view(reshapeDims(x.shape, shape)),
          )
          : cpu.reshape(x, shape),
    };
  }

  // What the entries of GPU_KERNELS ask of this device.
  #placement(): GpuPlacement {
    return {
      batch: this.#batch,
      floatDTypes: this.floatDTypes,
      gpu: (t) => this.#gpu(t),
      computes: (ts) => this.#placeOnGpu(ts),
      moves: (ts) => this.#placeMove(ts),
      holds: (t) => this.#isHere(t),
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

  // The GPU kernel's result as tensors, or undefined when the GPU cannot
  // take the call (a buffer above the device's limits): the CPU does it.
  #run(kernel: () => GpuTensor | GpuTensor[]): Tensor | Tensor[] | undefined {
    try {
      const result = kernel();
      return Array.isArray(result)
        ? result.map((g) => this.#wrap(g))
        : this.#wrap(result);
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
    // Another device's tensor has no elements here to key by.
    const key = t instanceof DeviceTensor ? t : t.data;
    let g = this.#uploads.get(key);
    if (g === undefined || g.dtype !== t.dtype) {
      this.#uploads.set(key, g = this.#batch.upload(t));
    }
    return g.shape.length === t.shape.length &&
        g.shape.every((d, i) => d === t.shape[i])
      ? g
      : g.view(t.shape);
  }

  async #readBack(tensors: readonly DeviceTensor[]): Promise<void> {
    const hosts = await this.#batch.read(
      tensors.map((t) => t.stored as GpuTensor),
    );
    tensors.forEach((t, i) => t.keepHostData(hosts[i].data));
  }
}

// A kernel, called with its arguments as they come.
type AnyKernel = (...args: unknown[]) => unknown;
