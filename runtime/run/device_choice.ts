/**
 * Which device a run's tensor kernels use, and why (`--device`, the
 * `device` option of Executor, `--explain`).
 *
 * - `cpu` never touches WebGPU.
 * - `webgpu` uses the GPU, or fails with a ProgramError (exit 1) when
 *   there is none.
 * - `auto` (the default) uses the GPU on a hardware adapter and the CPU on
 *   a software adapter or none (on llvmpipe the CPU kernels are faster).
 *   Asking for an adapter takes 0.1–0.3 s, so `auto` asks only when the
 *   program declares a float tensor big enough to go to the GPU
 *   (docs/architecture.md §6's placement) and, on Linux, the machine has a GPU device
 *   node; otherwise it runs on the CPU without asking.
 *
 * @module
 */
import type { ProgramDesc } from "../../gen/rill/v1/framework_pb.ts";
import { cpuDevice } from "../../kernels/cpu/device.ts";
import type { Device } from "../../kernels/device.ts";
import type { GpuUnavailable } from "../../kernels/webgpu/gpu_device.ts";
import { GPU_MIN_ELEMENTS } from "../../kernels/webgpu/gpu_min_elements.ts";
import type { WebGpuDevice } from "../../kernels/webgpu/webgpu_device.ts";
import { ProgramError } from "../core/errors.ts";

/** The devices one may ask for by name. */
export type DeviceName = "auto" | "cpu" | "webgpu";

/** A device and why it was chosen. */
export interface DeviceChoice {
  /** The device. */
  readonly device: Device;
  /** One line: the device's name and the reason. */
  readonly reason: string;
}

/**
 * Chooses the device for a program.
 *
 * @param wanted What was asked for.
 * @param desc The program.
 * @param batch The feeds' batch size, standing in for `-1` dims (NaN: none).
 * @returns The device and the reason.
 * @throws {ProgramError} For `webgpu` when no adapter exists.
 *
 * @example Usage
 * ```ts
 * import { chooseDevice } from "./device_choice.ts";
 * import { fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => fillConstant({ shape: [2] }));
 * const choice = await chooseDevice("auto", p.desc, NaN);
 * assertEquals(choice.device.name, "cpu");
 * ```
 */
export async function chooseDevice(
  wanted: DeviceName,
  desc: ProgramDesc,
  batch: number,
): Promise<DeviceChoice> {
  if (wanted === "cpu") {
    return { device: cpuDevice, reason: "cpu (--device cpu)" };
  }
  if (wanted === "auto" && !hasLargeFloatTensor(desc, batch)) {
    return {
      device: cpuDevice,
      reason:
        `cpu (auto: no float tensor of ${GPU_MIN_ELEMENTS} elements or more)`,
    };
  }
  if (wanted === "auto" && !mayHaveGpu()) {
    return {
      device: cpuDevice,
      reason: "cpu (auto: no GPU device node in /dev/dri or /dev/nvidia*)",
    };
  }
  const gpu = await theGpu();
  // A WebGpuDevice holds its GPU; a GpuUnavailable says why there is none.
  if (!("gpu" in gpu)) {
    if (wanted === "webgpu") {
      throw new ProgramError(`--device webgpu: ${gpu.explain}`);
    }
    return { device: cpuDevice, reason: `cpu (auto: ${gpu.explain})` };
  }
  if (wanted === "auto" && gpu.gpu.isFallbackAdapter) {
    const reason = `cpu (auto: ${gpu.gpu.explain}; the CPU kernels are faster)`;
    return { device: cpuDevice, reason };
  }
  return { device: gpu, reason: `webgpu (${gpu.gpu.explain}; ${rule(gpu)})` };
}

// Which tensors go to the GPU (docs/architecture.md §6), as --explain tells it.
function rule(gpu: WebGpuDevice): string {
  const limit = gpu.gpu.limits.maxStorageBufferBindingSize;
  return `${gpu.floatDTypes.join(" and ")} tensors of ${GPU_MIN_ELEMENTS} ` +
    `elements to ${formatBytes(limit)} run there, the rest on the CPU`;
}

function formatBytes(n: number): string {
  return n >= 2 ** 30 && n % 2 ** 30 === 0
    ? `${n / 2 ** 30} GiB`
    : `${Math.floor(n / 2 ** 20)} MiB`;
}

// This thread's GPU, asked for once: an adapter takes about 0.3 s to find.
// The WebGPU modules load only here, for a run that may use the GPU.
let gpuOnce: Promise<WebGpuDevice | GpuUnavailable> | undefined;

function theGpu(): Promise<WebGpuDevice | GpuUnavailable> {
  gpuOnce ??= (async () => {
    await quietVulkan();
    const [{ GpuDevice }, { WebGpuDevice }] = await Promise.all([
      import("../../kernels/webgpu/gpu_device.ts"),
      import("../../kernels/webgpu/webgpu_device.ts"),
    ]);
    const gpu = await GpuDevice.request();
    return gpu instanceof GpuDevice ? new WebGpuDevice(gpu) : gpu;
  })();
  return gpuOnce;
}

// On Linux, Mesa's Vulkan loader prints "error: XDG_RUNTIME_DIR is invalid
// or not set" to stderr when that variable is unset: give it a private
// directory first, so that a run prints only the program's output.
async function quietVulkan(): Promise<void> {
  if (Deno.build.os !== "linux" || Deno.env.get("XDG_RUNTIME_DIR")) return;
  try {
    const dir = await Deno.makeTempDir({ prefix: "rill-" });
    Deno.env.set("XDG_RUNTIME_DIR", dir);
  } catch {
    // Without a temporary directory only the warning is lost.
  }
}

// Whether this machine may have a hardware GPU: on Linux a GPU shows as a
// render node (/dev/dri/renderD*) or an NVIDIA device; without one, WebGPU
// can offer only a software adapter, which `auto` would not use, so it need
// not spend 0.1–0.3 s asking. Elsewhere, ask.
function mayHaveGpu(): boolean {
  if (Deno.build.os !== "linux") return true;
  for (const [dir, prefix] of [["/dev/dri", "renderD"], ["/dev", "nvidia"]]) {
    try {
      for (const entry of Deno.readDirSync(dir)) {
        if (entry.name.startsWith(prefix)) return true;
      }
    } catch {
      // No such directory, or not readable: no GPU there.
    }
  }
  return false;
}

// Whether a float32 or float16 variable is declared with at least
// GPU_MIN_ELEMENTS elements, a -1 dim taken as `batch` (1 when unknown).
function hasLargeFloatTensor(desc: ProgramDesc, batch: number): boolean {
  const b = Number.isNaN(batch) ? 1 : batch;
  for (const block of desc.blocks) {
    for (const v of block.vars) {
      const tensor = v.type?.lodTensor?.tensor ?? v.type?.selectedRows;
      if (tensor === undefined) continue;
      if (tensor.dataType !== FP32 && tensor.dataType !== FP16) continue;
      let size = 1;
      for (const d of tensor.dims) size *= d < 0 ? b : Number(d);
      if (size >= GPU_MIN_ELEMENTS) return true;
    }
  }
  return false;
}

// VarType.Type FP16 and FP32 (framework.proto).
const FP16 = 4;
const FP32 = 5;
