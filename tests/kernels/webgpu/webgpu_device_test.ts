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

Deno.test({
  name:
    "WebGpuDevice moves, cuts, gathers and casts on the GPU, matching the CPU",
  ...gpuTest,
  async fn() {
    const k = device().kernels;
    const next = seeded(31);
    const x = randomTensor(next, [129, 130], "float32", {
      min: -5e9,
      max: 5e9,
      specials: [NaN, Infinity, -Infinity, -0],
    });
    const index = Tensor.fromArray([128, 0, 7, 7], "int64");
    const steps = (d: typeof k) => {
      const t = d.transpose(x, [-1, 0]); // [130, 129]
      const s = d.slice(t, [0, 1], [3, -100], [-1, 120]); // [126, 120]
      const c = d.concat([s, d.transpose(s, [0, 1])], 1); // [126, 240]
      const [a, b] = d.split(c, -1, { sections: [-1, 40] });
      const [p, q] = d.splitNearEqual(b, 2, 0);
      const g = d.gather(x, index, 1); // [129, 4]
      const i = d.cast(a, "int32"); // int32 on the GPU
      const it = d.transpose(i, [1, 0]); // stays there: already on it
      const f = d.cast(it, "float32");
      return { t, s, c, a, b, p, q, g, i, it, f };
    };
    const got = steps(k), want = steps(cpu);
    for (const [name, t] of Object.entries(got)) {
      assert(onGpu(t), `${name} is on the GPU`);
    }
    await readBack(Object.values(got));
    for (const [name, t] of Object.entries(got)) {
      const op = name === "i" || name === "f" ? "cast" : "copy";
      assertMatchesCpu(op, t, want[name as keyof typeof want]);
    }
  },
});

Deno.test({
  name:
    "WebGpuDevice leaves small, host int32 and mixed-dtype moves and host casts to the CPU",
  ...gpuTest,
  async fn() {
    const k = device().kernels;
    const small = Tensor.full([8, 8], "float32", 2);
    const ints = Tensor.full([GPU_MIN_ELEMENTS], "int32", 2);
    const large = Tensor.full([GPU_MIN_ELEMENTS], "float32", 2.5);
    assertFalse(k.transpose(small, [1, 0]) instanceof DeviceTensor);
    assertFalse(k.slice(ints, [0], [1], [5]) instanceof DeviceTensor);
    assertFalse(
      k.gather(ints, Tensor.scalar(3, "int32")) instanceof DeviceTensor,
    );
    assertFalse(k.cast(large, "int32") instanceof DeviceTensor);
    assertFalse(k.concat([large, ints]) instanceof DeviceTensor);
    // A device tensor with no GPU path reads back as every CPU-only op does.
    const y = k.scale(large, 2); // on the GPU
    assertThrows(() => k.concat([y, ints]), ElementsOnDevice);
    assertThrows(() => k.cast(y, "bool"), ElementsOnDevice);
    await readBack([y]);
    assertEquals(k.concat([y, ints]).item(GPU_MIN_ELEMENTS), 2);
  },
});

Deno.test({
  name: "WebGpuDevice: bad moves of device tensors fail with the CPU's message",
  ...gpuTest,
  fn() {
    const k = device().kernels;
    const x = Tensor.full([GPU_MIN_ELEMENTS / 16, 16], "float32", 1);
    const y = k.scale(x, 3); // on the GPU
    assert(onGpu(y));
    const calls: [(d: typeof k, t: Tensor) => unknown][] = [
      [(d, t) => d.transpose(t, [0, 0])],
      [(d, t) => d.slice(t, [2], [0], [1])],
      [(d, t) => d.split(t, 1, { num: 3 })],
      [(d, t) => d.splitNearEqual(t, 0, 0)],
      [(d, t) => d.concat([t, t], 2)],
      [(d, t) => d.gather(t, Tensor.fromArray([2 ** 40], "int64"), 1)],
      [(d, t) => d.gather(t, Tensor.fromArray([16], "int32"), -1)],
    ];
    for (const [call] of calls) {
      let message = "";
      try {
        call(cpu, x);
      } catch (e) {
        message = (e as Error).message;
      }
      assert(message !== "");
      assertThrows(() => call(k, y), RangeError, message);
    }
  },
});
