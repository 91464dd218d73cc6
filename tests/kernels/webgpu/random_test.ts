// Random fills on the GPU against the CPU's: uniform float32 bit for bit,
// gaussian within the tolerance table, and the WebGPU device's placement
// (large float32 fills drawn on the GPU and left there).

import { assert, assertEquals, assertFalse, assertThrows } from "@std/assert";
import { cpuDevice } from "../../../kernels/cpu/device.ts";
import { gaussianRandom, uniformRandom } from "../../../kernels/cpu/fill.ts";
import type { CounterKey } from "../../../kernels/counter_random.ts";
import { DeviceTensor, readBack } from "../../../kernels/device_tensor.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import { gaussianFill, uniformFill } from "../../../kernels/webgpu/random.ts";
import {
  GPU_MIN_ELEMENTS,
  WebGpuDevice,
} from "../../../kernels/webgpu/webgpu_device.ts";
import { assertMatchesCpu, batch, gpu, gpuTest } from "./_gpu.ts";

const SIZES = [1, 7, 33, 1000, 100_003];
const KEYS: CounterKey[] = [[0, 0], [7, 0], [0x9e3779b9, 0xffffffff]];

// Bits of a float32 tensor's elements, to compare exactly (+0 vs -0).
function floatBits(t: Tensor): Uint32Array {
  return new Uint32Array(Float32Array.from(t.data as Float32Array).buffer);
}

// The first element whose bits differ, or -1.
function firstDifference(a: Tensor, b: Tensor): number {
  const [x, y] = [floatBits(a), floatBits(b)];
  assertEquals(x.length, y.length);
  return x.findIndex((v, i) => v !== y[i]);
}

// The magnitude of the gaussian tolerance: |mean| + 6·|std| everywhere.
function gaussianMagnitude(n: number, mean: number, std: number): Tensor {
  return Tensor.full([n], "float32", Math.abs(mean) + 6 * Math.abs(std));
}

Deno.test({
  name: "uniformFill() gives the CPU's float32 bits on odd sizes",
  ...gpuTest,
  async fn() {
    const b = batch();
    const bounds = [[-1, 1], [0, 1], [2, 3], [0.1, 0.7], [-3.3, 1e5]];
    for (const key of KEYS) {
      for (const [min, max] of bounds) {
        for (const n of SIZES) {
          const out = uniformFill(b, [n], min, max, key);
          const [got] = await b.read([out]);
          out.release();
          const want = uniformRandom([n], "float32", min, max, key);
          assertEquals(
            firstDifference(got, want),
            -1,
            `n ${n}, [${min}, ${max}), key ${key}`,
          );
        }
      }
    }
  },
});

Deno.test({
  name: "uniformFill() keeps the shape and rejects bounds beyond float32",
  ...gpuTest,
  async fn() {
    const b = batch();
    const out = uniformFill(b, [3, 11], -2, 2, [5, 6]);
    const [got] = await b.read([out]);
    out.release();
    assertEquals(got.shape, [3, 11]);
    assertEquals(
      firstDifference(got, uniformRandom([3, 11], "float32", -2, 2, [5, 6])),
      -1,
    );
    assertThrows(
      () => uniformFill(b, [4], -3e38, 3e38, [0, 0]),
      RangeError,
      "not finite in float32",
    );
    assertThrows(() => uniformFill(b, [4], 0, 1e39, [0, 0]), RangeError);
  },
});

Deno.test({
  name: "gaussianFill() is the CPU's within the tolerance table on odd sizes",
  ...gpuTest,
  async fn() {
    const b = batch();
    const params = [[0, 1], [3, 0.5], [-1000, 2]];
    for (const key of KEYS) {
      for (const [mean, std] of params) {
        for (const n of SIZES) {
          const out = gaussianFill(b, [n], mean, std, key);
          const [got] = await b.read([out]);
          out.release();
          assertMatchesCpu(
            "gaussian_random",
            got,
            gaussianRandom([n], "float32", mean, std, key),
            gaussianMagnitude(n, mean, std),
          );
        }
      }
    }
    assertThrows(() => gaussianFill(b, [4], 0, 1e38, [0, 0]), RangeError);
  },
});

let shared: WebGpuDevice | undefined;
const device = () => shared ??= new WebGpuDevice(gpu());

Deno.test({
  name:
    "WebGpuDevice draws large float32 fills on the GPU, where they stay, with the CPU's values",
  ...gpuTest,
  async fn() {
    const k = device().kernels;
    const shape = [GPU_MIN_ELEMENTS + 3];
    const u = k.uniformRandom(shape, "float32", -1, 1, [1, 2]);
    const g = k.gaussianRandom(shape, "float32", 0, 1, [1, 2]);
    for (const t of [u, g]) {
      assert(t instanceof DeviceTensor && !t.onHost, "on the GPU");
    }
    await readBack([u, g]);
    const cpu = cpuDevice.kernels;
    assertEquals(
      firstDifference(u, cpu.uniformRandom(shape, "float32", -1, 1, [1, 2])),
      -1,
    );
    assertMatchesCpu(
      "gaussian_random",
      g,
      cpu.gaussianRandom(shape, "float32", 0, 1, [1, 2]),
      gaussianMagnitude(shape[0], 0, 1),
    );
  },
});

Deno.test({
  name:
    "WebGpuDevice draws small, integer and float64 fills, and bounds beyond float32, on the CPU",
  ...gpuTest,
  fn() {
    const k = device().kernels;
    const big = [GPU_MIN_ELEMENTS];
    const key: CounterKey = [3, 4];
    const onCpu = [
      k.uniformRandom([GPU_MIN_ELEMENTS - 1], "float32", 0, 1, key),
      k.gaussianRandom([8], "float32", 0, 1, key),
      k.uniformRandom(big, "int32", 0, 100, key),
      k.uniformRandom(big, "float64", 0, 1, key),
      k.gaussianRandom(big, "float64", 0, 1, key),
      k.uniformRandom(big, "float32", -3e38, 3e38, key),
    ];
    for (const t of onCpu) assertFalse(t instanceof DeviceTensor);
    assertEquals(
      onCpu[2].toNested(),
      uniformRandom(big, "int32", 0, 100, key).toNested(),
    );
  },
});
