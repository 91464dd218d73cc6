/**
 * The WebGPU tests' shared device, their skip rule, a seeded PRNG for
 * inputs and the comparison against the CPU at the tolerance table's bound.
 *
 * Skip rule: with no WebGPU adapter the GPU tests are ignored, unless
 * `RILL_REQUIRE_WEBGPU=1` (set by CI), when every one of them fails with
 * the reason. The float16 kernel tests also need shader-f16; on an adapter
 * without it they are ignored (float16 stays on the CPU there, which
 * webgpu_device_test.ts checks with the feature turned off).
 *
 * @module
 */

import { GpuDevice } from "../../../kernels/webgpu/gpu_device.ts";
import { GpuBatch } from "../../../kernels/webgpu/gpu_batch.ts";
import type { GpuTensor } from "../../../kernels/webgpu/gpu_tensor.ts";
import {
  toleranceOf,
  withinTolerance,
} from "../../../kernels/webgpu/tolerance.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import type { DType } from "../../../kernels/dtype.ts";

const found = await GpuDevice.request();
const required = Deno.env.get("RILL_REQUIRE_WEBGPU") === "1";

/** Why GPU tests cannot run here, or null when they can. */
export const gpuMissing: string | null = found instanceof GpuDevice
  ? null
  : found.explain;

/** `ignore` for every GPU test: no adapter and not required. */
export const ignoreGpu: boolean = gpuMissing !== null && !required;

/**
 * The shared device of the test run.
 *
 * @returns The device.
 * @throws {Error} If there is none (only reached when it is required).
 */
export function gpu(): GpuDevice {
  if (found instanceof GpuDevice) return found;
  throw new Error(
    `RILL_REQUIRE_WEBGPU=1 but there is no WebGPU device: ${found.explain} (${found.message})`,
  );
}

let shared: GpuBatch | null = null;

/**
 * The batch tests record into (one pool and one pipeline cache for all).
 *
 * @returns The shared batch.
 */
export function batch(): GpuBatch {
  shared ??= new GpuBatch(gpu());
  return shared;
}

/** Options of GPU tests: WebGPU keeps device-wide ops alive across tests. */
export const gpuTest = {
  ignore: ignoreGpu,
  sanitizeOps: false,
  sanitizeResources: false,
} as const;

/** Whether the device runs float16 kernels (it has shader-f16). */
export const hasF16: boolean = found instanceof GpuDevice &&
  found.hasShaderF16;

/** Options of float16 kernel tests: as {@linkcode gpuTest}, and shader-f16. */
export const f16Test = {
  ...gpuTest,
  ignore: ignoreGpu || (gpuMissing === null && !hasF16),
} as const;

/**
 * A seeded PRNG (mulberry32): the same seed gives the same inputs.
 *
 * @param seed Any 32-bit integer.
 * @returns A function giving floats in [0, 1).
 */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The float values whose bits the kernels must get exactly right. */
export const SPECIALS: readonly number[] = [
  NaN,
  Infinity,
  -Infinity,
  0,
  -0,
  1,
  -1,
];

/** Options of {@linkcode randomTensor}. */
export interface RandomOptions {
  /** Smallest value. @default {-1} */
  readonly min?: number;
  /** Largest value. @default {1} */
  readonly max?: number;
  /** Values to mix in at random places (NaN, ±Infinity, ±0). @default {[]} */
  readonly specials?: readonly number[];
  /** Integers only. @default {false} */
  readonly integers?: boolean;
}

/**
 * A tensor of seeded random values.
 *
 * @param next The PRNG.
 * @param shape The dims.
 * @param dtype float32, float16 or int32 (values round to the dtype).
 * @param options Range and special values.
 * @returns The tensor.
 */
export function randomTensor(
  next: () => number,
  shape: readonly number[],
  dtype: DType = "float32",
  options: RandomOptions = {},
): Tensor {
  const { min = -1, max = 1, specials = [], integers = false } = options;
  let size = 1;
  for (const d of shape) size *= d;
  const values = Array.from({ length: size }, () => {
    if (specials.length > 0 && next() < 0.2) {
      return specials[Math.floor(next() * specials.length)];
    }
    const v = min + (max - min) * next();
    return integers || dtype === "int32" ? Math.round(v) : v;
  });
  return Tensor.fromArray(values, dtype, shape);
}

/**
 * Asserts that a GPU result matches the CPU's: same dtype and shape, and
 * every element within the op's entry of the tolerance table for the
 * result's dtype (TOLERANCE_F16 for float16).
 *
 * @param op The tolerance table key.
 * @param gpuResult The GPU's result, read back.
 * @param cpuResult The CPU kernel's result.
 * @param magnitude For `scaled` tolerances: the op on |inputs|.
 */
export function assertMatchesCpu(
  op: string,
  gpuResult: Tensor,
  cpuResult: Tensor,
  magnitude?: Tensor,
): void {
  const tolerance = toleranceOf(op, cpuResult.dtype);
  if (tolerance === undefined) {
    throw new Error(`no tolerance for "${op}" of ${cpuResult.dtype}`);
  }
  if (gpuResult.dtype !== cpuResult.dtype) {
    throw new Error(
      `${op}: dtype ${gpuResult.dtype} on the GPU, ${cpuResult.dtype} on the CPU`,
    );
  }
  if (gpuResult.shape.join() !== cpuResult.shape.join()) {
    throw new Error(
      `${op}: shape [${gpuResult.shape}] on the GPU, [${cpuResult.shape}] on the CPU`,
    );
  }
  for (let i = 0; i < cpuResult.size; i++) {
    const g = Number(gpuResult.data[i]), c = Number(cpuResult.data[i]);
    const mag = magnitude === undefined ? 0 : Number(magnitude.data[i]);
    if (!withinTolerance(tolerance, g, c, mag)) {
      throw new Error(
        `${op}: element ${i} of [${cpuResult.shape}] is ${g} on the GPU, ${c} on the CPU` +
          ` (tolerance ${JSON.stringify(tolerance)}, magnitude ${mag})`,
      );
    }
  }
}

/**
 * Uploads tensors, runs a GPU kernel on them and reads the result back.
 *
 * @param inputs CPU tensors to upload.
 * @param kernel Records the GPU op on the uploaded tensors.
 * @returns The result, read back.
 */
export async function onGpu(
  inputs: readonly Tensor[],
  kernel: (...xs: GpuTensor[]) => GpuTensor,
): Promise<Tensor> {
  const b = batch();
  const xs = inputs.map((t) => b.upload(t));
  const out = kernel(...xs);
  const [result] = await b.read([out]);
  for (const x of xs) x.release();
  out.release();
  return result;
}

/**
 * A float16 tensor of the given element bits.
 *
 * @param bits One 16-bit pattern per element.
 * @param shape The dims (default: flat).
 * @returns The tensor.
 */
export function float16Bits(
  bits: ArrayLike<number>,
  shape: readonly number[] = [bits.length],
): Tensor {
  return new Tensor(
    "float16",
    shape,
    new Float16Array(Uint16Array.from(bits).buffer),
  );
}

/**
 * The bits of each element of a float16 or float32 tensor, every NaN as
 * -1: the CPU's typed-array stores do not keep NaN payloads, so results
 * are compared bit for bit except that any NaN matches any NaN.
 *
 * @param t A float16 or float32 tensor.
 * @returns One number per element: its bits, or -1 for any NaN.
 */
export function floatBits(t: Tensor): number[] {
  const data = t.data as Float16Array | Float32Array;
  const copy = data instanceof Float16Array
    ? new Uint16Array(Float16Array.from(data).buffer)
    : new Uint32Array(Float32Array.from(data).buffer);
  return [...copy].map((b, i) => Number.isNaN(data[i]) ? -1 : b);
}
