import { assertEquals, assertThrows } from "@std/assert";
import * as cpu from "../../../kernels/cpu/reduce.ts";
import { unary as cpuUnary } from "../../../kernels/cpu/elementwise.ts";
import { GPU_REDUCE, reduce, softmax } from "../../../kernels/webgpu/reduce.ts";
import type { ReduceKernelOptions } from "../../../kernels/device.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import {
  assertMatchesCpu,
  batch,
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
