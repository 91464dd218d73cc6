import { assertEquals, assertThrows } from "@std/assert";
import { matmul as cpuMatmul } from "../../../kernels/cpu/matmul.ts";
import { unary as cpuUnary } from "../../../kernels/cpu/elementwise.ts";
import { chooseKernel, matmul } from "../../../kernels/webgpu/matmul.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import type { GpuMatmulOptions } from "../../../kernels/webgpu/matmul.ts";
import type { DType } from "../../../kernels/dtype.ts";
import {
  assertMatchesCpu,
  batch,
  f16Test,
  gpuTest,
  onGpu,
  randomTensor,
  seeded,
} from "./_gpu.ts";

// Runs one product on both devices and compares at TOLERANCE.matmul (or
// TOLERANCE_F16.matmul), the magnitude being the product of the absolute
// values.
async function check(
  xShape: number[],
  yShape: number[],
  options: GpuMatmulOptions = {},
  seed = 1,
  dtype: DType = "float32",
): Promise<Tensor> {
  const next = seeded(seed);
  const x = randomTensor(next, xShape, dtype);
  const y = randomTensor(next, yShape, dtype);
  const got = await onGpu([x, y], (a, b) => matmul(batch(), a, b, options));
  const want = cpuMatmul(x, y, options);
  const magnitude = cpuMatmul(
    cpuUnary("abs", x),
    cpuUnary("abs", y),
    { ...options, alpha: Math.abs(options.alpha ?? 1) },
  );
  assertMatchesCpu("matmul", got, want, magnitude);
  return got;
}

Deno.test({
  name: "matmul() matches the CPU on square shapes of every kernel",
  ...gpuTest,
  fn: async () => {
    for (const n of [1, 2, 7, 16, 33, 64, 100, 128]) {
      await check([n, n], [n, n]);
    }
  },
});

Deno.test({
  name: "matmul() matches the CPU on shapes that are not tile multiples",
  ...gpuTest,
  fn: async () => {
    await check([1000, 7], [7, 33]);
    await check([33, 1000], [1000, 1]);
    await check([1, 1000], [1000, 7]);
    await check([37, 20], [20, 36]); // vec4 kernel, partial tiles
    await check([65, 12], [12, 132]);
    await check([200, 33], [33, 68]); // scalar-blocked kernel
  },
});

Deno.test({
  name: "matmul() honours transposeX, transposeY and alpha",
  ...gpuTest,
  fn: async () => {
    const flags = [[true, false], [false, true], [true, true]];
    for (const [transposeX, transposeY] of flags) {
      for (const [m, k, n, alpha] of [[40, 36, 44, -0.5], [5, 7, 3, 3]]) {
        await check(
          transposeX ? [k, m] : [m, k],
          transposeY ? [n, k] : [k, n],
          { transposeX, transposeY, alpha },
        );
      }
    }
  },
});

Deno.test({
  name: "matmul() broadcasts batch dims like the CPU",
  ...gpuTest,
  fn: async () => {
    assertEquals((await check([2, 3, 8, 12], [12, 16])).shape, [2, 3, 8, 16]);
    assertEquals((await check([3, 1, 5, 7], [4, 7, 6])).shape, [3, 4, 5, 6]);
    assertEquals(
      (await check([1, 40, 36], [2, 40, 44], { transposeX: true })).shape,
      [2, 36, 44],
    );
  },
});

Deno.test({
  name: "matmul() treats 1-D operands as the CPU does",
  ...gpuTest,
  fn: async () => {
    assertEquals((await check([7], [7, 5])).shape, [5]);
    assertEquals((await check([5, 7], [7])).shape, [5]);
    assertEquals((await check([7], [7], { transposeX: true })).shape, [1]);
    assertEquals((await check([3, 4, 7], [7])).shape, [3, 4]);
  },
});

Deno.test({
  name: "matmul() gives exact small integer products",
  ...gpuTest,
  fn: async () => {
    const x = Tensor.fromArray([[1, 2], [3, 4]], "float32");
    const y = Tensor.fromArray([[5, 6], [7, 8]], "float32");
    const got = await onGpu([x, y], (a, b) => matmul(batch(), a, b));
    assertEquals(got.toNested(), [[19, 22], [43, 50]]);
  },
});

Deno.test({
  name: "matmul() handles empty operands and K = 0",
  ...gpuTest,
  fn: async () => {
    assertEquals((await check([0, 4], [4, 3])).shape, [0, 3]);
    assertEquals((await check([2, 0, 4], [4, 3])).shape, [2, 0, 3]);
    const zeros = await check([3, 0], [0, 8]);
    assertEquals(zeros.toNested(), [[0, 0, 0, 0, 0, 0, 0, 0], [
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
    ], [0, 0, 0, 0, 0, 0, 0, 0]]);
  },
});

Deno.test({
  name: "matmul() propagates NaN and ±Infinity as the CPU does",
  ...gpuTest,
  fn: async () => {
    const next = seeded(9);
    for (const [m, k, n] of [[3, 5, 4], [40, 36, 44]]) {
      const opts = { specials: [NaN, Infinity, -Infinity] };
      const x = randomTensor(next, [m, k], "float32", opts);
      const y = randomTensor(next, [k, n]);
      const got = await onGpu([x, y], (a, b) => matmul(batch(), a, b));
      const want = cpuMatmul(x, y);
      for (let i = 0; i < want.size; i++) {
        const c = want.data[i] as number, g = got.data[i] as number;
        if (!Number.isFinite(c)) assertEquals(g, c, `element ${i}`);
      }
    }
  },
});

Deno.test({
  name: "matmul() rejects mismatched shapes and rank 0",
  ...gpuTest,
  fn: () => {
    const b = batch();
    const x = b.upload(Tensor.zeros([2, 3], "float32"));
    const y = b.upload(Tensor.zeros([4, 2], "float32"));
    const s = b.upload(Tensor.zeros([], "float32"));
    assertThrows(() => matmul(b, x, y), RangeError, "inner dims 3 and 4");
    assertThrows(() => matmul(b, s, y), RangeError, "rank >= 1");
    for (const t of [x, y, s]) t.release();
  },
});

// float16: f16 operands, f32 accumulation, one rounding per result.
const f16 = (
  xShape: number[],
  yShape: number[],
  options: GpuMatmulOptions = {},
) => check(xShape, yShape, options, 2, "float16");

Deno.test({
  name: "matmul() on float16 matches the CPU with every kernel and odd shape",
  ...f16Test,
  fn: async () => {
    for (const n of [1, 7, 16, 33, 64, 100]) {
      assertEquals((await f16([n, n], [n, n])).dtype, "float16");
    }
    await f16([1000, 7], [7, 33]); // scalar-blocked, odd N
    await f16([33, 1000], [1000, 1]);
    await f16([1, 1000], [1000, 7]);
    await f16([37, 20], [20, 36]); // vec4 kernel, partial tiles
    await f16([65, 12], [12, 132]);
    await f16([200, 33], [33, 68]);
  },
});

Deno.test({
  name: "matmul() on float16 honours transposes, alpha, batches and vectors",
  ...f16Test,
  fn: async () => {
    const flags = [[true, false], [false, true], [true, true]];
    for (const [transposeX, transposeY] of flags) {
      for (const [m, k, n, alpha] of [[40, 36, 44, -0.5], [5, 7, 3, 3]]) {
        await f16(
          transposeX ? [k, m] : [m, k],
          transposeY ? [n, k] : [k, n],
          { transposeX, transposeY, alpha },
        );
      }
    }
    assertEquals((await f16([3, 1, 5, 7], [4, 7, 6])).shape, [3, 4, 5, 6]);
    assertEquals((await f16([7], [7, 5])).shape, [5]);
    assertEquals((await f16([3, 4, 7], [7])).shape, [3, 4]);
    assertEquals((await f16([0, 4], [4, 3])).shape, [0, 3]);
    assertEquals((await f16([3, 0], [0, 5])).toNested(), [
      [0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0],
    ]);
  },
});

Deno.test({
  name: "matmul() on float16 gives NaN, ±Infinity and overflow as the CPU",
  ...f16Test,
  fn: async () => {
    const next = seeded(10);
    for (const [m, k, n] of [[3, 5, 4], [40, 36, 44], [33, 7, 9]]) {
      const opts = { specials: [NaN, Infinity, -Infinity] };
      const x = randomTensor(next, [m, k], "float16", opts);
      const y = randomTensor(next, [k, n], "float16");
      const got = await onGpu([x, y], (a, b) => matmul(batch(), a, b));
      const want = cpuMatmul(x, y);
      for (let i = 0; i < want.size; i++) {
        const c = want.data[i] as number, g = got.data[i] as number;
        if (!Number.isFinite(c)) assertEquals(g, c, `element ${i}`);
      }
    }
    // 300 · 300 overflows float16 (the f32 accumulator does not); 200 · 300
    // + 100 · 55 = 65500 rounds to 65504; alpha brings a sum back in range.
    const x = Tensor.fromArray([[300, 300], [200, 100], [-300, 0]], "float16");
    const y = Tensor.fromArray([[300, 100], [55, -100]], "float16");
    const got = await onGpu([x, y], (a, b) => matmul(batch(), a, b));
    assertEquals(got.toNested(), cpuMatmul(x, y).toNested());
    assertEquals(got.toNested(), [[Infinity, 0], [65504, 10000], [
      -Infinity,
      -30000,
    ]]);
    const scaled = await onGpu(
      [x, y],
      (a, b) => matmul(batch(), a, b, { alpha: 0.5 }),
    );
    assertEquals(scaled.item(0), 53248); // 106500 / 2, rounded
    assertEquals(
      scaled.toNested(),
      cpuMatmul(x, y, { alpha: 0.5 }).toNested(),
    );
  },
});

Deno.test("chooseKernel() picks by shape", () => {
  assertEquals(chooseKernel(512, 512, 512), "vec4-blocked");
  assertEquals(chooseKernel(512, 510, 512), "scalar-blocked");
  assertEquals(chooseKernel(4, 4, 4), "simple");
});
