// The WebGPU device of one worker: the adapter and device requested with the
// adapter's largest compute limits, what kind of adapter it is, and whether
// it is still alive.
//
// Invariants:
//   A GpuDevice exists only for a device that was granted; "no adapter" is a
//   GpuUnavailable value, never an exception, so `--device auto` can choose.
//   Once `device.lost` settles, #lost is set before any later call runs, and
//   every later check() throws a GpuDeviceLostError naming the loss reason.
//   watch() races a promise against the loss, so no caller ever waits on a
//   dead device (Deno may leave a mapAsync pending after a loss).

/** Why no GPU device could be had. */
export type GpuUnavailableReason =
  | "no-webgpu"
  | "no-adapter"
  | "device-request-failed";

/**
 * The answer of {@linkcode GpuDevice.request} when there is no usable GPU.
 *
 * @example Usage
 * ```ts
 * import { GpuUnavailable } from "./gpu_device.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const none = new GpuUnavailable("no-adapter", "requestAdapter() returned null");
 * assertEquals(none.explain, "no WebGPU adapter");
 * ```
 */
export class GpuUnavailable {
  /** The condition, for code to branch on. */
  readonly reason: GpuUnavailableReason;
  /** The details, for people. */
  readonly message: string;

  /**
   * Records why there is no GPU.
   *
   * @param reason The condition.
   * @param message The details.
   *
   * @example Usage
   * ```ts
   * import { GpuUnavailable } from "./gpu_device.ts";
   * import { assertEquals } from "@std/assert";
   *
   * assertEquals(new GpuUnavailable("no-webgpu", "").reason, "no-webgpu");
   * ```
   */
  constructor(reason: GpuUnavailableReason, message: string) {
    this.reason = reason;
    this.message = message;
  }

  /**
   * One line for `--explain`: why the GPU is not used.
   *
   * @returns For example `no WebGPU adapter`.
   *
   * @example Usage
   * ```ts
   * import { GpuUnavailable } from "./gpu_device.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const none = new GpuUnavailable("no-webgpu", "navigator.gpu is undefined");
   * assertEquals(none.explain, "no WebGPU in this runtime");
   * ```
   */
  get explain(): string {
    switch (this.reason) {
      case "no-webgpu":
        return "no WebGPU in this runtime";
      case "no-adapter":
        return "no WebGPU adapter";
      default:
        return `the WebGPU adapter refused a device: ${this.message}`;
    }
  }
}

/**
 * Thrown by every call on a device after it was lost.
 *
 * @example Usage
 * ```ts
 * import { GpuDeviceLostError } from "./gpu_device.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const e = new GpuDeviceLostError("destroyed", "device was destroyed");
 * assertEquals(e.reason, "destroyed");
 * assertEquals(e.message, "webgpu: device lost (destroyed): device was destroyed");
 * ```
 */
export class GpuDeviceLostError extends Error {
  /** `destroyed`, or `unknown` for a loss the application did not cause. */
  readonly reason: string;

  /**
   * @param reason The loss reason WebGPU gave.
   * @param detail WebGPU's message.
   *
   * @example Usage
   * ```ts
   * import { GpuDeviceLostError } from "./gpu_device.ts";
   * import { assertEquals } from "@std/assert";
   *
   * assertEquals(new GpuDeviceLostError("unknown", "").name, "GpuDeviceLostError");
   * ```
   */
  constructor(reason: string, detail: string) {
    super(`webgpu: device lost (${reason})${detail ? `: ${detail}` : ""}`);
    this.name = "GpuDeviceLostError";
    this.reason = reason;
  }
}

/** Options of {@linkcode GpuDevice.request}. */
export interface GpuDeviceOptions {
  /**
   * Passed to `requestAdapter`.
   *
   * @default {"high-performance"}
   */
  readonly powerPreference?: GPUPowerPreference;
  /**
   * The WebGPU entry point; `null` acts as a runtime without WebGPU (tests).
   *
   * @default {navigator.gpu}
   */
  readonly gpu?: GPU | null;
}

/**
 * The limits Rill asks for: the adapter's own values, not the defaults.
 *
 * @example Usage
 * ```ts
 * import { REQUESTED_LIMITS } from "./gpu_device.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(REQUESTED_LIMITS.includes("maxStorageBufferBindingSize"), true);
 * ```
 */
export const REQUESTED_LIMITS: readonly string[] = [
  "maxBufferSize",
  "maxStorageBufferBindingSize",
  "maxComputeWorkgroupStorageSize",
  "maxComputeInvocationsPerWorkgroup",
  "maxComputeWorkgroupSizeX",
  "maxComputeWorkgroupSizeY",
  "maxComputeWorkgroupSizeZ",
  "maxComputeWorkgroupsPerDimension",
  "maxStorageBuffersPerShaderStage",
];

/**
 * A granted WebGPU device with the facts placement needs.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { assert } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   assert(gpu.limits.maxStorageBufferBindingSize >= 128 * 2 ** 20);
 *   gpu.destroy();
 * } else {
 *   assert(gpu.explain.length > 0);
 * }
 * ```
 */
export class GpuDevice {
  /** The WebGPU device. */
  readonly device: GPUDevice;
  /** The adapter's description, e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`. */
  readonly description: string;
  /** Whether the adapter is a software one (llvmpipe, SwiftShader, WARP). */
  readonly isFallbackAdapter: boolean;
  /** Whether WGSL may use `f16` (the `shader-f16` feature was granted). */
  readonly hasShaderF16: boolean;
  /** The granted limits Rill relies on, by name. */
  readonly limits: Readonly<Record<string, number>> & {
    readonly maxBufferSize: number;
    readonly maxStorageBufferBindingSize: number;
    readonly maxComputeWorkgroupStorageSize: number;
    readonly maxComputeInvocationsPerWorkgroup: number;
    readonly maxComputeWorkgroupsPerDimension: number;
    readonly minStorageBufferOffsetAlignment: number;
  };
  #lost: GpuDeviceLostError | null = null;
  readonly #lostSignal: Promise<never>;

  private constructor(
    device: GPUDevice,
    adapter: GPUAdapter,
    hasShaderF16: boolean,
  ) {
    this.device = device;
    const info = adapter.info;
    this.description = info.description || info.vendor || "unknown adapter";
    this.isFallbackAdapter = info.isFallbackAdapter === true;
    this.hasShaderF16 = hasShaderF16;
    const limits: Record<string, number> = {};
    for (
      const name of [...REQUESTED_LIMITS, "minStorageBufferOffsetAlignment"]
    ) {
      limits[name] = (device.limits as unknown as Record<string, number>)[name];
    }
    this.limits = limits as GpuDevice["limits"];
    // The rejection is observed here so an unwatched loss never becomes an
    // unhandled rejection; watch() re-raises it for whoever is waiting.
    this.#lostSignal = device.lost.then((info) => {
      this.#lost = new GpuDeviceLostError(
        info.reason ?? "unknown",
        info.message,
      );
      throw this.#lost;
    });
    this.#lostSignal.catch(() => {});
    destroyAtUnload(this);
  }

  /**
   * Requests an adapter and a device with the adapter's largest compute and
   * buffer limits, and `shader-f16` when the adapter has it.
   *
   * @param options Where to find WebGPU and which adapter to prefer.
   * @returns The device, or why there is none; never throws for a missing
   * adapter.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice, GpuUnavailable } from "./gpu_device.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const none = await GpuDevice.request({ gpu: null });
   * assertEquals(none instanceof GpuUnavailable && none.reason, "no-webgpu");
   * ```
   */
  static async request(
    options: GpuDeviceOptions = {},
  ): Promise<GpuDevice | GpuUnavailable> {
    const gpu = options.gpu === undefined
      ? (globalThis.navigator as { gpu?: GPU } | undefined)?.gpu
      : options.gpu;
    if (!gpu) {
      return new GpuUnavailable("no-webgpu", "navigator.gpu is undefined");
    }
    const adapter = await gpu.requestAdapter({
      powerPreference: options.powerPreference ?? "high-performance",
    });
    if (adapter === null) {
      return new GpuUnavailable("no-adapter", "requestAdapter() returned null");
    }
    const requiredLimits: Record<string, number> = {};
    for (const name of REQUESTED_LIMITS) {
      const value = (adapter.limits as unknown as Record<string, number>)[name];
      if (typeof value === "number") requiredLimits[name] = value;
    }
    const f16 = adapter.features.has("shader-f16");
    try {
      const device = await adapter.requestDevice({
        label: "rill",
        requiredLimits,
        requiredFeatures: f16 ? ["shader-f16"] : [],
      });
      return new GpuDevice(device, adapter, f16);
    } catch (e) {
      return new GpuUnavailable(
        "device-request-failed",
        e instanceof Error ? e.message : String(e),
      );
    }
  }

  /**
   * One line for `--explain`: which adapter this is.
   *
   * @returns For example `software adapter (llvmpipe (LLVM 15.0.6, 256 bits))`.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { assertMatch } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   assertMatch(gpu.explain, /^(software|hardware) adapter \(/);
   *   gpu.destroy();
   * }
   * ```
   */
  get explain(): string {
    const kind = this.isFallbackAdapter ? "software" : "hardware";
    const f16 = this.hasShaderF16 ? ", shader-f16" : ", no shader-f16";
    const lost = this.#lost === null ? "" : `, lost (${this.#lost.reason})`;
    return `${kind} adapter (${this.description})${f16}${lost}`;
  }

  /**
   * The loss, once the device is lost.
   *
   * @returns The error every later call throws, or null while alive.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   assertEquals(gpu.lost, null);
   *   gpu.destroy();
   * }
   * ```
   */
  get lost(): GpuDeviceLostError | null {
    return this.#lost;
  }

  /**
   * Throws if the device was lost. Every entry point of the WebGPU layer
   * calls it first.
   *
   * @throws {GpuDeviceLostError} If the device was lost.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   gpu.check();
   *   gpu.destroy();
   * }
   * ```
   */
  check(): void {
    if (this.#lost !== null) throw this.#lost;
  }

  /**
   * Settles like `promise`, unless the device is lost first: then rejects
   * with the loss. Read-backs wait through this, so they never hang.
   *
   * @typeParam T The promise's value.
   * @param promise Work on this device.
   * @returns The promise's value.
   * @throws {GpuDeviceLostError} If the device is or becomes lost.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice } from "./gpu_device.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   assertEquals(await gpu.watch(Promise.resolve(7)), 7);
   *   gpu.destroy();
   * }
   * ```
   */
  watch<T>(promise: Promise<T>): Promise<T> {
    if (this.#lost !== null) {
      promise.catch(() => {});
      return Promise.reject(this.#lost);
    }
    return Promise.race([promise, this.#lostSignal]);
  }

  /**
   * Destroys the device; it reports itself lost with reason `destroyed`.
   *
   * @example Usage
   * ```ts
   * import { GpuDevice, GpuDeviceLostError } from "./gpu_device.ts";
   * import { assertRejects } from "@std/assert";
   *
   * const gpu = await GpuDevice.request();
   * if (gpu instanceof GpuDevice) {
   *   gpu.destroy();
   *   await assertRejects(() => gpu.watch(new Promise(() => {})), GpuDeviceLostError);
   * }
   * ```
   */
  destroy(): void {
    openDevices.delete(this);
    this.device.destroy();
  }
}

// The devices of this thread not destroyed yet. When the thread's event
// loop ends ("unload": a program's end, a test module's, a Worker's), they
// are destroyed, so that no device is live while the process exits under
// the driver's own threads (Deno has aborted in glibc at exit here, in runs
// that left devices open).
const openDevices = new Set<GpuDevice>();
let unloadHooked = false;

function destroyAtUnload(gpu: GpuDevice): void {
  openDevices.add(gpu);
  if (unloadHooked || typeof globalThis.addEventListener !== "function") return;
  unloadHooked = true;
  globalThis.addEventListener("unload", () => {
    for (const open of [...openDevices]) open.destroy();
  });
}
