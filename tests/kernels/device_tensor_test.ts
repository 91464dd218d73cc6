// Device tensors: `data` throws until the elements are read back, one batch
// per device, and a read-back tensor is an ordinary tensor from then on.

import { assertEquals, assertInstanceOf, assertThrows } from "@std/assert";
import {
  type DeviceHome,
  DeviceTensor,
  ElementsOnDevice,
  readBack,
} from "../../kernels/device_tensor.ts";
import { Tensor } from "../../kernels/tensor.ts";

// A device that keeps its elements in plain arrays and counts its batches.
function toyHome(name: string) {
  const batches: number[] = [];
  const home: DeviceHome = {
    name,
    readBack(ts) {
      batches.push(ts.length);
      for (const t of ts) {
        t.keepHostData(new Float32Array(t.stored as number[]));
      }
      return Promise.resolve();
    },
  };
  return { home, batches };
}

Deno.test("DeviceTensor: data throws ElementsOnDevice, naming the tensor and device", () => {
  const { home } = toyHome("toy");
  const t = new DeviceTensor("float32", [2, 1], home, [1, 2]);
  assertEquals([t.dtype, t.shape, t.size, t.onHost], [
    "float32",
    [2, 1],
    2,
    false,
  ]);
  const e = assertThrows(() => t.item(0), ElementsOnDevice);
  assertEquals(e.tensor, t);
  assertEquals(
    e.message,
    "a float32 tensor of shape [2, 1] is on the toy device: read it back first",
  );
});

Deno.test("readBack reads each device's tensors in one batch, once", async () => {
  const a = toyHome("a");
  const b = toyHome("b");
  const x = new DeviceTensor("float32", [2], a.home, [1, 2]);
  const y = new DeviceTensor("float32", [1], a.home, [3]);
  const z = new DeviceTensor("float32", [1], b.home, [4]);
  await readBack([x, y, x, z, Tensor.scalar(1, "int32"), undefined]);
  assertEquals([a.batches, b.batches], [[2], [1]]);
  assertEquals([x.toNested(), y.toNested(), z.toNested()], [[1, 2], [3], [4]]);
  assertEquals(x.onHost, true);
  await readBack([x, y, z]); // all on the host: nothing to do
  assertEquals([a.batches, b.batches], [[2], [1]]);
});

Deno.test("DeviceTensor: read-back data must fit the tensor", () => {
  const { home } = toyHome("toy");
  const t = new DeviceTensor("float32", [3], home, [1, 2, 3]);
  assertThrows(() => t.keepHostData(new Float32Array(2)), RangeError);
  assertInstanceOf(t, Tensor);
});
