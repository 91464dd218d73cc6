// The WebGPU kernel table: its entries name kernels of the catalog, bound
// exactly the kinds and widths the GPU runs, and every kernel without an
// entry is the CPU's own function on the WebGPU device.

import { assert, assertEquals } from "@std/assert";
import { cpuDevice } from "../../../kernels/cpu/device.ts";
import type { Kernels } from "../../../kernels/device.ts";
import {
  ACTIVATION_KINDS,
  COMPARE_KINDS,
} from "../../../kernels/kernel_kinds.ts";
import { GPU_BINARY, GPU_UNARY } from "../../../kernels/webgpu/elementwise.ts";
import {
  GPU_KERNELS,
  type GpuBound,
} from "../../../kernels/webgpu/gpu_kernels.ts";
import { GPU_REDUCE } from "../../../kernels/webgpu/reduce.ts";
import { WebGpuDevice } from "../../../kernels/webgpu/webgpu_device.ts";
import { DeviceTensor, readBack } from "../../../kernels/device_tensor.ts";
import type { Tensor } from "../../../kernels/tensor.ts";
import { gpu, gpuTest, randomTensor, seeded } from "./_gpu.ts";

const cpu = cpuDevice.kernels;

// The kinds an entry bounds, and those it bounds for float16.
function kindsOf(
  bounds: Readonly<Record<string, GpuBound | undefined>> | undefined,
): [string[], string[]] {
  const entries = Object.entries(bounds ?? {});
  return [
    entries.map(([kind]) => kind).sort(),
    entries.filter(([, b]) => b?.float16 !== undefined).map(([kind]) => kind)
      .sort(),
  ];
}

Deno.test("GPU_KERNELS names only kernels of the catalog", () => {
  const names = Object.keys(GPU_KERNELS);
  assert(names.length > 0);
  assertEquals(names.filter((name) => !(name in cpu)), []);
});

Deno.test("GPU_KERNELS bounds each kind the GPU runs, in each width it runs there", () => {
  const sorted = (kinds: readonly string[]) => [...new Set(kinds)].sort();
  assertEquals(
    kindsOf(GPU_KERNELS.binary?.tolerance),
    [
      sorted([...GPU_BINARY.float32, ...GPU_BINARY.int32]),
      sorted(GPU_BINARY.float16),
    ],
  );
  assertEquals(kindsOf(GPU_KERNELS.unary?.tolerance), [
    sorted(GPU_UNARY),
    sorted(GPU_UNARY),
  ]);
  assertEquals(kindsOf(GPU_KERNELS.compare?.tolerance), [
    sorted(COMPARE_KINDS),
    sorted(COMPARE_KINDS),
  ]);
  assertEquals(kindsOf(GPU_KERNELS.reduce?.tolerance), [
    sorted([...GPU_REDUCE.float32, ...GPU_REDUCE.int32]),
    sorted(GPU_REDUCE.float16),
  ]);
  assertEquals(kindsOf(GPU_KERNELS.activation?.tolerance), [
    sorted(ACTIVATION_KINDS),
    sorted(ACTIVATION_KINDS),
  ]);
});

Deno.test("GPU_KERNELS gives every other kernel a float32 bound", () => {
  const kinded = [
    "binary",
    "unary",
    "compare",
    "reduce",
    "pool2d",
    "activation",
  ];
  for (const [name, entry] of Object.entries(GPU_KERNELS)) {
    if (kinded.includes(name)) continue;
    assert((entry.tolerance as GpuBound).float32 !== undefined, name);
  }
});

Deno.test({
  name: "WebGpuDevice runs every kernel without a GPU entry as the CPU's own",
  ...gpuTest,
  fn() {
    const kernels = new WebGpuDevice(gpu()).kernels;
    for (const name of Object.keys(cpu) as (keyof Kernels)[]) {
      const onCpu = kernels[name] === cpu[name];
      // reshape is a view on the GPU, without a kernel there.
      const gpuEntry = name in GPU_KERNELS || name === "reshape";
      assertEquals(onCpu, !gpuEntry, name);
    }
  },
});

// Every element of the GPU's results within `atol` of the CPU's: the
// entries' wiring (options passed on, host parameters uploaded); the
// kernel tests hold the bounds themselves.
async function assertEntryMatches(
  gpuResults: Tensor[],
  cpuResults: Tensor[],
  atol: number,
): Promise<void> {
  assert(gpuResults.every((t) => t instanceof DeviceTensor));
  await readBack(gpuResults);
  assertEquals(gpuResults.length, cpuResults.length);
  gpuResults.forEach((g, k) => {
    assertEquals(g.shape, cpuResults[k].shape);
    for (let i = 0; i < g.size; i++) {
      const a = Number(g.data[i]), b = Number(cpuResults[k].data[i]);
      assert(Math.abs(a - b) <= atol, `result ${k}[${i}]: ${a} vs ${b}`);
    }
  });
}

Deno.test({
  name:
    "GPU_KERNELS' norm, conv2d_transpose and rnn entries pass their options on through WebGpuDevice",
  ...gpuTest,
  fn: async () => {
    const kernels = new WebGpuDevice(gpu()).kernels;
    const next = seeded(5);
    const x = randomTensor(next, [4, 8, 24, 24]); // above GPU_MIN_ELEMENTS
    const c8 = {
      scale: randomTensor(next, [8]),
      bias: randomTensor(next, [8]),
    };
    const norm = { ...c8, epsilon: 0.5, groups: 4 };
    await assertEntryMatches(
      kernels.groupNorm(x, norm),
      cpu.groupNorm(x, norm),
      1e-5,
    );
    const nhwc = { ...norm, groups: 2, channelLast: true };
    const y = randomTensor(next, [4, 24, 24, 8]);
    await assertEntryMatches(
      kernels.groupNorm(y, nhwc),
      cpu.groupNorm(y, nhwc),
      1e-5,
    );
    await assertEntryMatches(
      kernels.instanceNorm(x, { ...c8, epsilon: 0.25 }),
      cpu.instanceNorm(x, { ...c8, epsilon: 0.25 }),
      1e-5,
    );
    const row = { scale: randomTensor(next, [576]), beginNormAxis: 2 };
    await assertEntryMatches(
      kernels.layerNorm(x, row),
      cpu.layerNorm(x, row),
      1e-5,
    );
    const up = randomTensor(next, [8, 3, 3, 3]);
    const options = {
      strides: [2, 2],
      paddings: [1, 1, 1, 1],
      outputSize: [48, 48],
    };
    await assertEntryMatches(
      [kernels.conv2dTranspose(x, up, options)],
      [cpu.conv2dTranspose(x, up, options)],
      1e-4,
    );
    const seq = randomTensor(next, [64, 8, 40]);
    const gru = [[9, 40], [9, 3], [9], [9]].map((s) => randomTensor(next, s));
    const rnnOptions = {
      mode: "GRU",
      layers: 1,
      bidirectional: false,
      hidden: 3,
    } as const;
    const h0 = [randomTensor(next, [1, 8, 3])];
    await assertEntryMatches(
      kernels.rnn(seq, h0, gru, rnnOptions),
      cpu.rnn(seq, h0, gru, rnnOptions),
      1e-5,
    );
  },
});
