// Choosing the device (cpu, webgpu, auto), and a program run on the GPU
// printing what it prints on the CPU: read-backs where values leave the
// device (print, a loop condition, a CPU-only op, fetch).

import { assert, assertEquals, assertMatch, assertRejects } from "@std/assert";
import {
  elementwiseAdd,
  Executor,
  fillConstant,
  go,
  greaterThan,
  lessThan,
  matmul,
  mean,
  print,
  Program,
  reduceSum,
  relu,
  softmax,
  Tensor,
  uniformRandom,
  whileLoop,
} from "../../../mod.ts";
import { DeviceTensor } from "../../../kernels/device_tensor.ts";
import { GpuDevice } from "../../../kernels/webgpu/gpu_device.ts";
import { chooseDevice } from "../../../runtime/run/device_choice.ts";
import { ProgramError } from "../../../runtime/core/errors.ts";
import { gpuTest } from "../../kernels/webgpu/_gpu.ts";
import { int64 } from "../../_helpers/int64.ts";

function smallProgram(): Program {
  const p = new Program();
  p.guard(() => print(fillConstant({ shape: [2], value: 1 })));
  return p;
}

// A layer over 200×128 float32 inputs, looped while a value computed on the
// device stays small, printed and fetched.
function layerProgram(): [Program, string[]] {
  const p = new Program();
  const names = p.guard(() => {
    const x = uniformRandom({ shape: [200, 128], seed: 1 });
    const w = uniformRandom({
      shape: [128, 128],
      seed: 2,
      min: -0.1,
      max: 0.1,
    });
    const b = uniformRandom({ shape: [128], seed: 3 });
    const h = relu(elementwiseAdd(matmul(x, w), b));
    const y = softmax(h);
    const rows = reduceSum(y, { dim: [1] });
    const i = int64(0);
    const going = lessThan(i, int64(3));
    whileLoop(going, () => {
      elementwiseAdd(h, x, { out: h });
      elementwiseAdd(i, int64(1), { out: i });
      lessThan(i, int64(3), { out: going });
    });
    print(mean(rows), { message: "rows" });
    print(greaterThan(mean(h), fillConstant({ shape: [1], value: 1 })));
    return [h.name, rows.name];
  });
  return [p, names];
}

Deno.test("chooseDevice: cpu never asks for an adapter; auto keeps small programs on the CPU", async () => {
  const cpu = await chooseDevice("cpu", smallProgram().desc, NaN);
  assertEquals([cpu.device.name, cpu.reason], ["cpu", "cpu (--device cpu)"]);
  const auto = await chooseDevice("auto", smallProgram().desc, NaN);
  assertEquals(auto.device.name, "cpu");
  assert(auto.reason.startsWith("cpu (auto: no float tensor"), auto.reason);
});

Deno.test("chooseDevice: auto counts a large float16 tensor, as the GPU may take float16", async () => {
  const p = new Program();
  p.guard(() =>
    print(fillConstant({ shape: [128, 128], dtype: "float16", value: 1 }))
  );
  const auto = await chooseDevice("auto", p.desc, NaN);
  assert(!auto.reason.includes("no float tensor"), auto.reason);
});

Deno.test({
  name:
    "chooseDevice: auto takes the CPU on a software adapter, webgpu the GPU",
  ...gpuTest,
  async fn() {
    const [program] = layerProgram();
    const gpu = await GpuDevice.request();
    const fallback = gpu instanceof GpuDevice && gpu.isFallbackAdapter;
    if (gpu instanceof GpuDevice) gpu.destroy();
    const auto = await chooseDevice("auto", program.desc, NaN);
    assertEquals(auto.device.name, fallback ? "cpu" : "webgpu", auto.reason);
    const webgpu = await chooseDevice("webgpu", program.desc, NaN);
    assertEquals(webgpu.device.name, "webgpu");
    assert(webgpu.reason.startsWith("webgpu ("), webgpu.reason);
    // The placement rule, with the device's buffer limit.
    assertMatch(
      webgpu.reason,
      /; float32( and float16)? tensors of 16384 elements to \d+ [MG]iB run there, the rest on the CPU\)$/,
    );
  },
});

Deno.test({
  name: "chooseDevice: webgpu without an adapter is a usage error",
  ignore: !gpuTest.ignore,
  async fn() {
    await assertRejects(
      () => chooseDevice("webgpu", smallProgram().desc, NaN),
      ProgramError,
      "--device webgpu:",
    );
  },
});

Deno.test({
  name:
    "Executor on webgpu prints and fetches what the CPU does, within the tolerance",
  ...gpuTest,
  async fn() {
    const [program, names] = layerProgram();
    const run = async (device: "cpu" | "webgpu") => {
      const lines: string[] = [];
      const result = await new Executor({ device, print: (l) => lines.push(l) })
        .run(program, { fetch: names });
      return { lines, result };
    };
    const cpu = await run("cpu");
    const gpu = await run("webgpu");
    assert(gpu.result.device.startsWith("webgpu"), gpu.result.device);
    assertEquals(gpu.lines[1], cpu.lines[1]); // the comparison, exactly
    assertEquals(gpu.lines[0].slice(0, 6), "rows 1");
    for (const name of names) {
      const [g, c] = [gpu.result.fetched[name], cpu.result.fetched[name]];
      if (!(g instanceof DeviceTensor) || !(c instanceof Tensor)) {
        throw new Error(`${name}: not computed on the GPU`);
      }
      let worst = 0;
      for (let i = 0; i < c.size; i++) {
        worst = Math.max(
          worst,
          Math.abs(Number(g.item(i)) - Number(c.item(i))),
        );
      }
      assert(worst < 1e-4, `${name}: off by ${worst}`);
    }
  },
});

Deno.test({
  name:
    "Executor with workers runs the CPU kernels on every worker, and says so",
  ...gpuTest,
  async fn() {
    const p = new Program();
    p.guard(() => {
      // A movable goroutine makes the run pooled.
      const x = uniformRandom({ shape: [200, 128], seed: 1 });
      go(() => print(mean(x)));
    });
    const { device } = await new Executor({
      device: "webgpu",
      workers: 2,
      print: () => {},
    }).run(p);
    assert(device.startsWith("cpu (webgpu ("), device);
    assert(device.endsWith("but a run with workers uses the CPU)"), device);
  },
});
