// The WebGPU kernel table: its entries name kernels of the catalog, bound
// exactly the kinds and widths the GPU runs, and every kernel without an
// entry is the CPU's own function on the WebGPU device.

import { assert, assertEquals } from "@std/assert";
import { cpuDevice } from "../../../kernels/cpu/device.ts";
import {
  ACTIVATION_KINDS,
  COMPARE_KINDS,
  type Kernels,
} from "../../../kernels/device.ts";
import { GPU_BINARY, GPU_UNARY } from "../../../kernels/webgpu/elementwise.ts";
import {
  GPU_KERNELS,
  type GpuBound,
} from "../../../kernels/webgpu/gpu_kernels.ts";
import { GPU_REDUCE } from "../../../kernels/webgpu/reduce.ts";
import { WebGpuDevice } from "../../../kernels/webgpu/webgpu_device.ts";
import { gpu, gpuTest } from "./_gpu.ts";

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
