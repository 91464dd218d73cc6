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
import type { DType } from "../../../kernels/dtype.ts";
import { COMPARE_KINDS } from "../../../kernels/kernel_kinds.ts";
import {
  GPU_MIN_ELEMENTS,
  WebGpuDevice,
} from "../../../kernels/webgpu/webgpu_device.ts";
import {
  assertMatchesCpu,
  f16Test,
  gpu,
  gpuTest,
  hasF16,
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
    assertThrows(() => k.binary("mod", y, x), ElementsOnDevice);
    await readBack([y]);
    const rest = k.binary("mod", y, x);
    assertEquals([rest.dtype, rest.item(0)], ["float32", 1]);
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

const FLOATS: DType[] = hasF16 ? ["float32", "float16"] : ["float32"];

Deno.test({
  name:
    "WebGpuDevice compares on the GPU: bool results stay there, the CPU's bits",
  ...gpuTest,
  async fn() {
    const k = device().kernels;
    const next = seeded(41);
    for (const dtype of FLOATS) {
      const opts = {
        min: -3,
        max: 3,
        integers: true,
        specials: [NaN, Infinity, -Infinity, -0],
      };
      const x = randomTensor(next, [129, 130], dtype, opts);
      const y = randomTensor(next, [130], dtype, opts);
      for (const kind of COMPARE_KINDS) {
        const got = k.compare(kind, x, y);
        assert(onGpu(got), `${kind} of ${dtype} is on the GPU`);
        assertEquals(got.dtype, "bool");
        // A condition reads it back first, as the runtime does.
        assertThrows(() => got.item(0), ElementsOnDevice);
        await readBack([got]);
        assertEquals([...got.data], [...cpu.compare(kind, x, y).data], kind);
      }
      // Operands already on the GPU compare there, whatever their size.
      const doubled = k.scale(x, 2);
      const small = k.slice(doubled, [0], [0], [1]);
      const z = k.compare("less_than", small, k.slice(x, [0], [0], [1]));
      assert(onGpu(small) && onGpu(z));
      await readBack([z]);
      const want = cpu.compare(
        "less_than",
        cpu.scale(cpu.slice(x, [0], [0], [1]), 2),
        cpu.slice(x, [0], [0], [1]),
      );
      assertEquals([...z.data], [...want.data]);
      // A bool result feeds CPU-only kernels through a read-back.
      const both = k.compare("greater_equal", x, y);
      assertThrows(() => k.logical("and", both, both), ElementsOnDevice);
      await readBack([both]);
      assertEquals(k.logical("and", both, both).toNested(), both.toNested());
    }
    const small = Tensor.full([8, 8], "float32", 2);
    const ints = Tensor.full([GPU_MIN_ELEMENTS], "int32", 2);
    const large = Tensor.full([GPU_MIN_ELEMENTS], "float32", 2);
    assertFalse(k.compare("equal", small, small) instanceof DeviceTensor);
    assertFalse(k.compare("equal", ints, ints) instanceof DeviceTensor);
    assertFalse(k.compare("equal", large, ints) instanceof DeviceTensor);
  },
});

Deno.test({
  name:
    "WebGpuDevice runs float16 on the GPU with shader-f16, under float32's rule",
  ...f16Test,
  async fn() {
    const k = device().kernels;
    assertEquals(device().floatDTypes, ["float32", "float16"]);
    const next = seeded(43);
    const x = randomTensor(next, [130, 127], "float16");
    const w = randomTensor(next, [127, 129], "float16");
    const b = randomTensor(next, [129], "float16");
    const h = k.binary("add", k.matmul(x, w), b); // matmul alone is small
    const t = k.unary("tanh", h);
    const y = k.softmax(t);
    const s = k.reduce("sum", y, { dims: [1] });
    const c = k.scale(k.transpose(y, [1, 0]), 3, 1);
    const f = k.cast(h, "float32");
    const i = k.cast(k.scale(h, 100), "int32");
    const back = k.cast(f, "float16");
    const steps = { h, t, y, s, c, f, i, back };
    for (const [name, v] of Object.entries(steps)) {
      assert(onGpu(v), `${name} is on the GPU`);
    }
    await readBack(Object.values(steps));
    assertEquals([h.dtype, s.dtype, f.dtype, i.dtype], [
      "float16",
      "float16",
      "float32",
      "int32",
    ]);
    // Each step against the CPU on the GPU's own inputs.
    const mm = cpu.matmul(x, w);
    assertMatchesCpu(
      "matmul",
      h,
      cpu.binary("add", mm, b),
      cpu.binary(
        "add",
        cpu.matmul(cpu.unary("abs", x), cpu.unary("abs", w)),
        cpu.unary("abs", b),
      ),
    );
    assertMatchesCpu("tanh", t, cpu.unary("tanh", h));
    assertMatchesCpu("softmax", y, cpu.softmax(t));
    assertMatchesCpu(
      "reduce_sum",
      s,
      cpu.reduce("sum", y, { dims: [1] }),
      cpu.reduce("sum", y, { dims: [1] }),
    );
    assertMatchesCpu("scale", c, cpu.scale(cpu.transpose(y, [1, 0]), 3, 1));
    assertMatchesCpu("cast", f, cpu.cast(h, "float32"));
    assertMatchesCpu("cast", i, cpu.cast(cpu.scale(h, 100), "int32"));
    assertEquals(back.toNested(), h.toNested());
    // Small, and mixed with float32, float16 stays on the CPU.
    const small = Tensor.full([8, 8], "float16", 2);
    const large32 = Tensor.full([GPU_MIN_ELEMENTS], "float32", 2);
    const large16 = Tensor.full([GPU_MIN_ELEMENTS], "float16", 2);
    assertFalse(k.binary("mul", small, small) instanceof DeviceTensor);
    assertFalse(k.binary("add", large16, large32) instanceof DeviceTensor);
    assertFalse(k.concat([large16, large32]) instanceof DeviceTensor);
    assert(onGpu(k.unary("exp", large16)));
  },
});

Deno.test({
  name: "WebGpuDevice without shader-f16 keeps float16 on the CPU",
  ...gpuTest,
  async fn() {
    const d = new WebGpuDevice(gpu(), { float16: false });
    const k = d.kernels;
    assertEquals(d.floatDTypes, ["float32"]);
    const next = seeded(44);
    const x = randomTensor(next, [130, 127], "float16");
    const w = randomTensor(next, [127, 129], "float16");
    const results = [
      k.matmul(x, w),
      k.binary("add", x, x),
      k.unary("exp", x),
      k.scale(x, 2),
      k.reduce("sum", x),
      k.softmax(x),
      k.compare("less_than", x, x),
      k.transpose(x, [1, 0]),
      k.gather(x, Tensor.fromArray([0, 3], "int32"), 1),
    ];
    for (const r of results) assertFalse(r instanceof DeviceTensor);
    assertEquals(results[1].toNested(), cpu.binary("add", x, x).toNested());
    // float32 still runs here; a cast of its result to float16 reads it back.
    const y = k.scale(Tensor.full([GPU_MIN_ELEMENTS], "float32", 1.5), 2);
    assert(onGpu(y));
    assertThrows(() => k.cast(y, "float16"), ElementsOnDevice);
    await readBack([y]);
    const h = k.cast(y, "float16");
    assertEquals([h instanceof DeviceTensor, h.dtype, h.item(0)], [
      false,
      "float16",
      3,
    ]);
  },
});
