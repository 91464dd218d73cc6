// CPU kernel costs. The scalar cases are the interpreter's hot path: a
// `while` loop's counter and condition are one-element tensors, so each op
// there costs one of these calls.

import { cpuDevice } from "../kernels/cpu/device.ts";
import { Tensor } from "../kernels/tensor.ts";
import {
  GemmKernel,
  gemmScratchBytes,
  packedBBytes,
} from "../kernels/cpu/wasm/gemm.ts";

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

// Large float32 products run the WASM SIMD kernel (kernels/cpu/wasm/gemm.ts);
// 2·n³ flops per product, so GFLOPS = 2n³ / (time in ns).
function randomSquare(size: number): Tensor {
  let s = size;
  const data = Float32Array.from({ length: size * size }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  });
  return new Tensor("float32", [size, size], data);
}

const square384 = randomSquare(384);
const square1024 = randomSquare(1024);
const square384f64 = k.cast(square384, "float64");

Deno.bench("matmul float32 384 x 384 (wasm)", { group: "matmul" }, () => {
  k.matmul(square384, square384, {});
});

// The JS i-k-j kernel that float32 products used before the WASM one.
Deno.bench("matmul float64 384 x 384 (js)", { group: "matmul" }, () => {
  k.matmul(square384f64, square384f64, {});
});

Deno.bench(
  "matmul float32 1024 x 1024 (wasm)",
  { group: "matmul 1024", baseline: true },
  () => {
    k.matmul(square1024, square1024, {});
  },
);

// The kernel alone: operands already in wasm memory, no copies, no tensor.
const raw = new GemmKernel(new WebAssembly.Memory({ initial: 1 }));
const rawLayout = {
  a: gemmScratchBytes(),
  b: gemmScratchBytes() + 4 * 1024 * 1024,
  packedB: gemmScratchBytes() + 8 * 1024 * 1024,
  c: gemmScratchBytes() + 8 * 1024 * 1024 + packedBBytes(1024, 1024),
  m: 1024,
  k: 1024,
  n: 1024,
};
raw.memory.grow(Math.ceil((rawLayout.c + 4 * 1024 * 1024) / 65536) - 1);
const rawF32 = new Float32Array(raw.memory.buffer);
rawF32.set(square1024.data as Float32Array, rawLayout.a / 4);
rawF32.set(square1024.data as Float32Array, rawLayout.b / 4);

Deno.bench(
  "raw wasm gemm float32 1024 x 1024, 1 thread (pack B + all rows)",
  { group: "matmul 1024" },
  () => {
    raw.packB(rawLayout);
    raw.computeRows(rawLayout, { scratch: 0 });
  },
);
