import { assertEquals, assertThrows } from "@std/assert";
import * as cpu from "../../../kernels/cpu/reduce.ts";
import { unary as cpuUnary } from "../../../kernels/cpu/elementwise.ts";
import { GPU_REDUCE, reduce, softmax } from "../../../kernels/webgpu/reduce.ts";
import type { ReduceKernelOptions } from "../../../kernels/kernel_options.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import {
  assertMatchesCpu,
  batch,
  f16Test,
  gpuTest,
  onGpu,
  randomTensor,
  seeded,
} from "./_gpu.ts";

// [shape, options]: every dim, several dims, all, keep_dim, rank 0, odd
// and empty shapes.
const CASES: [number[], ReduceKernelOptions][] = [
  [[1000], {}],
  [[7, 33], { dims: [1] }],
  [[7, 33], { dims: [0], keepDim: true }],
  [[3, 5, 7], { dims: [0, 2] }],
  [[3, 5, 7], { dims: [-1], keepDim: true }],
  [[2, 3, 4, 5], { dims: [1, 2] }],
  [[4, 100], { reduceAll: true, dims: [0] }],
  [[], {}],
  [[], { keepDim: true }],
  [[1], { dims: [0] }],
  [[200, 1000], { dims: [1] }],
  [[0, 3], { dims: [1] }],
];

Deno.test({
  name: "reduce() matches the CPU for float32 sum, mean, max and min",
  ...gpuTest,
  fn: async () => {
    const next = seeded(7);
    for (const kind of GPU_REDUCE.float32) {
      for (const [shape, options] of CASES) {
        const x = randomTensor(next, shape, "float32", { min: -10, max: 10 });
        const got = await onGpu([x], (a) => reduce(batch(), kind, a, options));
        const magnitude = cpu.reduce(kind, cpuUnary("abs", x), options);
        assertMatchesCpu(
          `reduce_${kind}`,
          got,
          cpu.reduce(kind, x, options),
          magnitude,
        );
      }
    }
  },
});

Deno.test({
  name: "reduce() propagates NaN and ±Infinity as the CPU does",
  ...gpuTest,
  fn: async () => {
    const next = seeded(8);
    const specials = [NaN, Infinity, -Infinity];
    for (const kind of GPU_REDUCE.float32) {
      const x = randomTensor(next, [9, 40], "float32", { specials });
      const got = await onGpu(
        [x],
        (a) => reduce(batch(), kind, a, { dims: [1] }),
      );
      const want = cpu.reduce(kind, x, { dims: [1] });
      for (let i = 0; i < want.size; i++) {
        const c = want.data[i] as number;
        if (!Number.isFinite(c)) {
          assertEquals(got.data[i], c, `${kind} row ${i}`);
        }
      }
    }
  },
});

Deno.test({
  name: "reduce() matches the CPU exactly on int32, wrapping sums",
  ...gpuTest,
  fn: async () => {
    const next = seeded(9);
    for (const kind of GPU_REDUCE.int32) {
      for (const [shape, options] of CASES.filter(([s]) => !s.includes(0))) {
        const x = randomTensor(next, shape, "int32", { min: -2e9, max: 2e9 });
        const got = await onGpu([x], (a) => reduce(batch(), kind, a, options));
        assertEquals(
          got.toNested(),
          cpu.reduce(kind, x, options).toNested(),
          kind,
        );
      }
    }
  },
});

Deno.test({
  name: "reduce() of an empty dim: sum 0, mean NaN, max raises",
  ...gpuTest,
  fn: async () => {
    const x = Tensor.zeros([2, 0], "float32");
    const sum = await onGpu(
      [x],
      (a) => reduce(batch(), "sum", a, { dims: [1] }),
    );
    const mean = await onGpu(
      [x],
      (a) => reduce(batch(), "mean", a, { dims: [1] }),
    );
    assertEquals([sum.toNested(), mean.toNested()], [[0, 0], [NaN, NaN]]);
    const g = batch().upload(x);
    assertThrows(
      () => reduce(batch(), "max", g, { dims: [1] }),
      RangeError,
      "empty dim",
    );
    assertThrows(() => reduce(batch(), "prod", g), TypeError, "no GPU kernel");
    g.release();
  },
});

Deno.test({
  name: "softmax() matches the CPU on every axis, odd shapes and rank 0",
  ...gpuTest,
  fn: async () => {
    const next = seeded(10);
    const cases: [number[], number][] = [
      [[1000], -1],
      [[7, 33], -1],
      [[7, 33], 0],
      [[3, 5, 7], 1],
      [[1], 0],
      [[], -1],
      [[0, 5], -1],
    ];
    for (const [shape, axis] of cases) {
      const x = randomTensor(next, shape, "float32", { min: -20, max: 20 });
      const got = await onGpu([x], (a) => softmax(batch(), a, axis));
      assertMatchesCpu("softmax", got, cpu.softmax(x, axis));
    }
  },
});

Deno.test({
  name: "softmax() gives NaN rows for NaN or +Infinity, as the CPU",
  ...gpuTest,
  fn: async () => {
    const x = Tensor.fromArray(
      [[1, NaN, 2], [1, Infinity, 2], [-Infinity, 0, 1], [
        -Infinity,
        -Infinity,
        -Infinity,
      ]],
      "float32",
    );
    const got = await onGpu([x], (a) => softmax(batch(), a));
    assertMatchesCpu("softmax", got, cpu.softmax(x));
  },
});

// float16: accumulated in f32 and rounded once, against the CPU's float64
// accumulation rounded once (TOLERANCE_F16).

Deno.test({
  name: "reduce() matches the CPU for float16 sum, mean, max and min",
  ...f16Test,
  fn: async () => {
    const next = seeded(17);
    for (const kind of GPU_REDUCE.float16) {
      for (const [shape, options] of CASES) {
        for (const [min, max] of [[-10, 10], [0, 1e-3]]) {
          const x = randomTensor(next, shape, "float16", { min, max });
          const got = await onGpu(
            [x],
            (a) => reduce(batch(), kind, a, options),
          );
          assertEquals(got.dtype, "float16");
          const magnitude = cpu.reduce(kind, cpuUnary("abs", x), options);
          assertMatchesCpu(
            `reduce_${kind}`,
            got,
            cpu.reduce(kind, x, options),
            magnitude,
          );
        }
      }
    }
  },
});

Deno.test({
  name:
    "reduce() on float16 propagates NaN and ±Infinity and overflows as the CPU",
  ...f16Test,
  fn: async () => {
    const x = Tensor.fromArray([
      [60000, 60000, 0], // the sum overflows: Infinity; the mean does not
      [65504, 65504, -65504], // f32 partial sums do not overflow
      [-60000, -10000, 1],
      [NaN, 1, 2],
      [Infinity, -Infinity, 1],
      [Infinity, 1, 2],
      [2 ** -24, 2 ** -24, -(2 ** -24)], // subnormal
    ], "float16");
    for (const kind of GPU_REDUCE.float16) {
      for (const dims of [[1], [0]]) {
        const got = await onGpu([x], (a) => reduce(batch(), kind, a, { dims }));
        const want = cpu.reduce(kind, x, { dims });
        const magnitude = cpu.reduce(kind, cpuUnary("abs", x), { dims });
        assertMatchesCpu(`reduce_${kind}`, got, want, magnitude);
      }
    }
    const sums = await onGpu(
      [x],
      (a) => reduce(batch(), "sum", a, { dims: [1] }),
    );
    assertEquals([...sums.data.slice(0, 3)], [Infinity, 65504, -Infinity]);
  },
});

Deno.test({
  name: "reduce() of an empty float16 dim: sum 0, mean NaN",
  ...f16Test,
  fn: async () => {
    const x = Tensor.zeros([3, 0], "float16");
    const sum = await onGpu(
      [x],
      (a) => reduce(batch(), "sum", a, { dims: [1] }),
    );
    const mean = await onGpu(
      [x],
      (a) => reduce(batch(), "mean", a, { dims: [1] }),
    );
    assertEquals([sum.dtype, sum.toNested()], ["float16", [0, 0, 0]]);
    assertEquals(mean.toNested(), [NaN, NaN, NaN]);
  },
});

Deno.test({
  name: "softmax() matches the CPU on float16: every axis, odd shapes, rank 0",
  ...f16Test,
  fn: async () => {
    const next = seeded(18);
    const cases: [number[], number][] = [
      [[1000], -1],
      [[7, 33], -1],
      [[7, 33], 0],
      [[3, 5, 7], 1],
      [[1], 0],
      [[], -1],
      [[0, 5], -1],
    ];
    for (const [shape, axis] of cases) {
      const x = randomTensor(next, shape, "float16", { min: -20, max: 20 });
      const got = await onGpu([x], (a) => softmax(batch(), a, axis));
      assertEquals(got.dtype, "float16");
      assertMatchesCpu("softmax", got, cpu.softmax(x, axis));
    }
    const specials = Tensor.fromArray(
      [[1, NaN, 2], [1, Infinity, 2], [-Infinity, 0, 1], [
        -Infinity,
        -Infinity,
        -Infinity,
      ], [-20, 0, -20]], // exp(-20) is a float16 subnormal
      "float16",
    );
    const got = await onGpu([specials], (a) => softmax(batch(), a));
    assertMatchesCpu("softmax", got, cpu.softmax(specials));
  },
});
