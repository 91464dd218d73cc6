// The WebGPU device's table: where each call runs (placement), results
// that stay on the GPU until read back, and the CPU's answers within the
// tolerance table.

import { assert, assertEquals, assertFalse, assertThrows } from "@std/assert";
import { cpuDevice } from "../../../kernels/cpu/device.ts";
import {
  DeviceTensor,
  ElementsOnDevice,
  readBack,
} from "../../../kernels/device_tensor.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import {
  GPU_MIN_ELEMENTS,
  WebGpuDevice,
} from "../../../kernels/webgpu/webgpu_device.ts";
import {
  assertMatchesCpu,
  gpu,
  gpuTest,
  randomTensor,
  seeded,
} from "./_gpu.ts";

const cpu = cpuDevice.kernels;
let shared: WebGpuDevice | undefined;
const device = () => shared ??= new WebGpuDevice(gpu());
const onGpu = (t: Tensor) => t instanceof DeviceTensor && !t.onHost;

Deno.test({
  name: "WebGpuDevice keeps small, integer and bool tensors on the CPU",
  ...gpuTest,
  fn() {
    const k = device().kernels;
    const small = Tensor.full([8, 8], "float32", 2);
    const ints = Tensor.full([GPU_MIN_ELEMENTS], "int32", 2);
    assertFalse(k.binary("mul", small, small) instanceof DeviceTensor);
    assertFalse(k.binary("add", ints, ints) instanceof DeviceTensor);
    assertFalse(k.unary("exp", small) instanceof DeviceTensor);
  },
});

Deno.test({
  name:
    "WebGpuDevice runs large float32 calls on the GPU and reads them back in one batch",
  ...gpuTest,
  async fn() {
    const k = device().kernels;
    const next = seeded(7);
    const x = randomTensor(next, [130, 127]);
    const w = randomTensor(next, [127, 129]);
    const b = randomTensor(next, [129]);
    const h = k.binary("add", k.matmul(x, w), b); // matmul alone is small
    const y = k.softmax(k.unary("tanh", h));
    const s = k.reduce("sum", y, { dims: [1] });
    assert(onGpu(h) && onGpu(y) && onGpu(s));
    await readBack([h, y, s]);
    const hCpu = cpu.binary("add", cpu.matmul(x, w), b);
    assertMatchesCpu("matmul", h, hCpu);
    assertMatchesCpu("softmax", y, cpu.softmax(cpu.unary("tanh", hCpu)));
    assertEquals(s.shape, [130]);
  },
});

Deno.test({
  name:
    "WebGpuDevice: a device tensor read by a CPU-only kernel throws until read back",
  ...gpuTest,
  async fn() {
    const k = device().kernels;
    const x = Tensor.full([GPU_MIN_ELEMENTS], "float32", 3);
    const y = k.scale(x, 2, 1); // 2x + 1 on the GPU
    assertThrows(() => k.compare("greater_than", y, x), ElementsOnDevice);
    await readBack([y]);
    const more = k.compare("greater_than", y, x);
    assertEquals([more.dtype, more.item(0)], ["bool", true]);
    assertEquals(y.item(GPU_MIN_ELEMENTS - 1), 7);
  },
});

Deno.test({
  name:
    "WebGpuDevice reshapes and multiplies (Fluid's mul) without leaving the GPU",
  ...gpuTest,
  async fn() {
    const k = device().kernels;
    const next = seeded(3);
    const x = randomTensor(next, [4, 32, 128]);
    const w = randomTensor(next, [128, 40]);
    const y = k.mul2d(k.unary("relu", x), w, 2, 1);
    const flat = k.reshape(y, [0, -1]);
    assert(onGpu(y) && onGpu(flat));
    assertEquals([y.shape, flat.shape], [[4, 32, 40], [4, 1280]]);
    await readBack([flat]);
    assertMatchesCpu(
      "matmul",
      flat,
      cpu.reshape(cpu.mul2d(cpu.unary("relu", x), w, 2, 1), [4, 1280]),
    );
  },
});
