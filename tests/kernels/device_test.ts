import { assertEquals } from "@std/assert";
import type { Device } from "../../kernels/device.ts";
import {
  BINARY_KINDS,
  COMPARE_KINDS,
  LOGICAL_KINDS,
  REDUCE_KINDS,
  UNARY_KINDS,
} from "../../kernels/kernel_kinds.ts";
import { cpuDevice } from "../../kernels/cpu/device.ts";
import { Tensor } from "../../kernels/tensor.ts";

Deno.test("a Device runs every listed kind through its kernel table", () => {
  const device: Device = cpuDevice;
  const x = Tensor.fromArray([1, 2], "float32");
  const y = Tensor.fromArray([2, 2], "float32");
  for (const kind of BINARY_KINDS) {
    assertEquals(device.kernels.binary(kind, x, y).shape, [2]);
  }
  for (const kind of COMPARE_KINDS) {
    assertEquals(device.kernels.compare(kind, x, y).dtype, "bool");
  }
  for (const kind of LOGICAL_KINDS) {
    assertEquals(device.kernels.logical(kind, x, y).dtype, "bool");
  }
  for (const kind of UNARY_KINDS) {
    assertEquals(device.kernels.unary(kind, x).dtype, "float32");
  }
  for (const kind of REDUCE_KINDS) {
    assertEquals(device.kernels.reduce(kind, x).shape, [1]);
  }
});
