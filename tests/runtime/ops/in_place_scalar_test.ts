import { assertEquals } from "@std/assert";
import { cpuDevice } from "../../../kernels/cpu/device.ts";
import type { Device } from "../../../kernels/device.ts";
import type { BinaryKind } from "../../../kernels/kernel_kinds.ts";
import type { DType } from "../../../kernels/dtype.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import { InPlaceScalar } from "../../../runtime/ops/in_place_scalar.ts";

const STARTS: Record<string, [number | bigint, number | bigint]> = {
  int64: [2n ** 63n - 3n, 1n],
  int32: [2147483645, 1],
  float32: [0.1, 0.2],
  float64: [0.1, 0.2],
};

Deno.test("InPlaceScalar.apply() fills the tensor it made with the kernel's results, pass after pass", () => {
  for (const kind of ["add", "sub", "mul"] as BinaryKind[]) {
    for (const [dtype, [start, step]] of Object.entries(STARTS)) {
      const site = InPlaceScalar.of(kind)!;
      const y = Tensor.scalar(step, dtype as DType);
      let expected = Tensor.scalar(start, dtype as DType);
      let held: Tensor = expected;
      const made: Tensor[] = [];
      for (let pass = 0; pass < 5; pass++) {
        const next = cpuDevice.kernels.binary(kind, expected, y, -1);
        held = site.apply(cpuDevice, held, y, held)!;
        made.push(held);
        assertEquals(held.item(0), next.item(0), `${kind} ${dtype} ${pass}`);
        assertEquals(held.shape, next.shape);
        expected = next;
      }
      // Made once, by the first pass, then written into.
      assertEquals(new Set(made.slice(1)).size, 1);
    }
  }
});

Deno.test("InPlaceScalar.apply() makes a new tensor when the output holds another", () => {
  const site = InPlaceScalar.of("add")!;
  const one = Tensor.scalar(1, "int32");
  const first = site.apply(cpuDevice, one, one, undefined)!;
  const kept = site.apply(cpuDevice, first, one, first)!;
  assertEquals(kept === first, true);
  // The output was rebound to a tensor someone else may hold: not touched.
  const other = Tensor.scalar(7, "int32");
  const fresh = site.apply(cpuDevice, other, one, other)!;
  assertEquals([fresh === other, other.item(0), fresh.item(0)], [false, 7, 8]);
  assertEquals(first.item(0), 3);
});

Deno.test("InPlaceScalar.apply() leaves other operands and devices to the kernel", () => {
  const site = InPlaceScalar.of("add")!;
  const gpu: Device = { name: "webgpu", kernels: cpuDevice.kernels };
  const one = Tensor.scalar(1, "int32");
  assertEquals(site.apply(gpu, one, one, undefined), undefined);
  const made = site.apply(cpuDevice, one, one, undefined)!;
  assertEquals(site.apply(gpu, made, one, made), undefined);
  assertEquals(made.item(0), 2);
  assertEquals(InPlaceScalar.of("div"), undefined);
});
