import { assertEquals } from "@std/assert";
import {
  BINARY_KINDS,
  COMPARE_KINDS,
  type Device,
  LOGICAL_KINDS,
  REDUCE_KINDS,
  UNARY_KINDS,
} from "../../kernels/device.ts";
import { cpuDevice } from "../../kernels/cpu/device.ts";
import { Tensor } from "../../kernels/tensor.ts";

Deno.test("the kind lists name each kind once", () => {
  for (
    const list of [
      BINARY_KINDS,
      COMPARE_KINDS,
      LOGICAL_KINDS,
      UNARY_KINDS,
      REDUCE_KINDS,
    ]
  ) {
    assertEquals(new Set(list).size, list.length);
  }
  assertEquals(
    [BINARY_KINDS, COMPARE_KINDS, LOGICAL_KINDS, UNARY_KINDS, REDUCE_KINDS].map(
      (l) => l.length,
    ),
    [9, 6, 3, 14, 5],
  );
});

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
