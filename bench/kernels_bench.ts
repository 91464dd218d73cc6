// CPU kernel costs. The scalar cases are the interpreter's hot path: a
// `while` loop's counter and condition are one-element tensors, so each op
// there costs one of these calls.

import { cpuDevice } from "../kernels/cpu/device.ts";
import { Tensor } from "../kernels/tensor.ts";

const k = cpuDevice.kernels;
const one64 = Tensor.scalar(1n, "int64");
const limit64 = Tensor.scalar(1000n, "int64");
const a32 = Tensor.scalar(0.5, "float32");
const b32 = Tensor.scalar(0.25, "float32");

Deno.bench(
  "binary add int64 [1] + [1]",
  { group: "scalar", baseline: true },
  () => {
    k.binary("add", one64, one64, -1);
  },
);

Deno.bench("binary mul float32 [1] * [1]", { group: "scalar" }, () => {
  k.binary("mul", a32, b32, -1);
});

Deno.bench("compare less_than int64 [1] < [1]", { group: "scalar" }, () => {
  k.compare("less_than", one64, limit64, -1);
});

Deno.bench("scale float32 [1]", { group: "scalar" }, () => {
  k.scale(a32, 2, 1, true);
});

Deno.bench("unary exp float32 [1]", { group: "scalar" }, () => {
  k.unary("exp", a32);
});

const row = Tensor.fromArray(
  Array.from({ length: 1024 }, (_, i) => i),
  "float32",
);
const matrix = Tensor.fromArray(
  Array.from({ length: 1024 * 64 }, (_, i) => i % 7),
  "float32",
  [64, 1024],
);

Deno.bench("binary add float32 [1024] + [1024]", { group: "vector" }, () => {
  k.binary("add", row, row, -1);
});

Deno.bench("binary add float32 [64, 1024] + [1024] (broadcast)", {
  group: "vector",
}, () => {
  k.binary("add", matrix, row, -1);
});

Deno.bench(
  "reduce sum float32 [64, 1024] over dim 0",
  { group: "vector" },
  () => {
    k.reduce("sum", matrix, { dims: [0] });
  },
);

const square = Tensor.fromArray(
  Array.from({ length: 128 * 128 }, (_, i) => (i % 13) / 13),
  "float32",
  [128, 128],
);

Deno.bench("matmul float32 128 x 128", { group: "matmul" }, () => {
  k.matmul(square, square, {});
});
