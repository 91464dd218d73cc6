import { assertEquals } from "@std/assert";
import { cpuDevice } from "../../../kernels/cpu/device.ts";
import { Tensor } from "../../../kernels/tensor.ts";

Deno.test("cpuDevice is named cpu and frozen", () => {
  assertEquals(cpuDevice.name, "cpu");
  assertEquals(Object.isFrozen(cpuDevice), true);
  assertEquals(Object.isFrozen(cpuDevice.kernels), true);
});

Deno.test("cpuDevice offers every kernel as a function", () => {
  const names = Object.keys(cpuDevice.kernels).sort();
  assertEquals(names, [
    "activation",
    "addN",
    "argMax",
    "batchNorm",
    "binary",
    "broadcastTo",
    "cast",
    "compare",
    "concat",
    "conv2d",
    "conv2dTranspose",
    "fill",
    "gather",
    "gaussianRandom",
    "groupNorm",
    "instanceNorm",
    "layerNorm",
    "logical",
    "logicalNot",
    "matmul",
    "mean",
    "mul2d",
    "oneHot",
    "pool2d",
    "range",
    "reduce",
    "reshape",
    "rnn",
    "scale",
    "slice",
    "softmax",
    "split",
    "splitNearEqual",
    "stack",
    "topK",
    "transpose",
    "unary",
    "uniformRandom",
  ]);
  for (const fn of Object.values(cpuDevice.kernels)) {
    assertEquals(typeof fn, "function");
  }
});

Deno.test("cpuDevice runs an interpreter-style scalar loop", () => {
  const k = cpuDevice.kernels;
  let i = Tensor.scalar(0n, "int64");
  const one = Tensor.scalar(1n, "int64");
  const limit = Tensor.scalar(1000n, "int64");
  while (k.compare("less_than", i, limit, -1).item() === true) {
    i = k.binary("add", i, one, -1);
  }
  assertEquals(i.item(), 1000n);
  assertEquals(i.shape, [1]);
});
