// The WebGPU convolution, pooling and batch normalization kernels against
// the CPU's, at the bounds their GPU_KERNELS entries state.

import { assert, assertEquals } from "@std/assert";
import { conv2d as cpuConv2d } from "../../../kernels/cpu/conv.ts";
import { pool2d as cpuPool2d } from "../../../kernels/cpu/pool.ts";
import { batchNorm as cpuBatchNorm } from "../../../kernels/cpu/norm.ts";
import { unary as cpuUnary } from "../../../kernels/cpu/elementwise.ts";
import { conv2d } from "../../../kernels/webgpu/conv.ts";
import {
  MAX_WINDOW,
  pool2d,
  poolFitsGpu,
} from "../../../kernels/webgpu/pool.ts";
import { affineOf, batchNorm } from "../../../kernels/webgpu/batch_norm.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import type { PoolKind } from "../../../kernels/kernel_kinds.ts";
import type {
  BatchNormKernelOptions,
  Conv2dKernelOptions,
  Pool2dKernelOptions,
} from "../../../kernels/kernel_options.ts";
import {
  assertMatchesCpu,
  batch,
  gpuTest,
  onGpu,
  randomTensor,
  seeded,
  SPECIALS,
} from "./_gpu.ts";

// Runs one convolution on both devices; the magnitude is |x| convolved
// with |filter|.
async function checkConv(
  xShape: number[],
  fShape: number[],
  options: Conv2dKernelOptions,
  seed = 1,
): Promise<Tensor> {
  const next = seeded(seed);
  const x = randomTensor(next, xShape), f = randomTensor(next, fShape);
  const got = await onGpu([x, f], (a, b) => conv2d(batch(), a, b, options));
  const abs = (t: Tensor) => cpuUnary("abs", t);
  assertMatchesCpu(
    "conv2d",
    got,
    cpuConv2d(x, f, options),
    cpuConv2d(abs(x), abs(f), options),
  );
  return got;
}

Deno.test({
  name: "conv2d() matches the CPU through im2col and the matmul kernels",
  ...gpuTest,
  fn: async () => {
    await checkConv([2, 3, 9, 11], [4, 3, 3, 3], { paddings: [1, 1, 1, 1] });
    await checkConv([1, 8, 12, 12], [16, 8, 3, 3], {
      strides: [2, 2],
      paddings: [1, 0, 1, 2],
    });
    await checkConv([2, 4, 10, 9], [6, 2, 3, 2], {
      groups: 2,
      dilations: [2, 3],
      paddings: [2, 2, 3, 3],
    });
    await checkConv([1, 16, 7, 7], [12, 16, 1, 1], {});
  },
});

Deno.test({
  name: "conv2d() matches the CPU through the depthwise kernel",
  ...gpuTest,
  fn: async () => {
    await checkConv([2, 8, 13, 13], [8, 1, 3, 3], {
      groups: 8,
      paddings: [1, 1, 1, 1],
    });
    await checkConv([1, 4, 16, 15], [8, 1, 5, 5], {
      groups: 4,
      strides: [2, 2],
      paddings: [2, 1, 2, 2],
    });
    // Rows of whole vec4s, unit stride across: four columns at a time.
    await checkConv([2, 6, 12, 16], [6, 1, 3, 3], {
      groups: 6,
      paddings: [1, 1, 1, 1],
    });
    await checkConv([1, 4, 9, 8], [8, 1, 5, 5], {
      groups: 4,
      strides: [2, 1],
      dilations: [2, 1],
      paddings: [4, 3, 2, 2],
    });
    await checkConv([1, 2, 5, 4], [2, 1, 3, 1], { groups: 2 });
    await checkConv([1, 3, 20, 20], [3, 1, 7, 7], {
      groups: 3,
      dilations: [5, 5],
      paddings: [15, 15, 15, 15],
    });
  },
});

Deno.test({
  name: "conv2d() reads and writes NHWC like the CPU",
  ...gpuTest,
  fn: async () => {
    const got = await checkConv([2, 7, 6, 4], [6, 2, 3, 3], {
      groups: 2,
      paddings: [1, 1, 0, 1],
      channelLast: true,
    });
    assertEquals(got.shape, [2, 7, 5, 6]);
    await checkConv([1, 9, 9, 5], [5, 1, 3, 3], {
      groups: 5,
      paddings: [1, 1, 1, 1],
      channelLast: true,
    });
  },
});

Deno.test({
  name: "conv2d() gives exact small integer sums",
  ...gpuTest,
  fn: async () => {
    const x = Tensor.fromArray(
      [[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]]],
      "float32",
    );
    const w = Tensor.fromArray(
      [[[[1, 1, 1], [1, 1, 1], [1, 1, 1]]]],
      "float32",
    );
    const got = await onGpu(
      [x, w],
      (a, b) => conv2d(batch(), a, b, { paddings: [1, 1, 1, 1] }),
    );
    assertEquals(got.toNested(), [[[[12, 21, 16], [27, 45, 33], [
      24,
      39,
      28,
    ]]]]);
  },
});

// Runs one pooling on both devices; an average's magnitude is the average
// of |x| over the same windows.
async function checkPool(
  kind: PoolKind,
  shape: number[],
  options: Pool2dKernelOptions,
  specials: readonly number[] = [],
): Promise<void> {
  const x = randomTensor(seeded(7), shape, "float32", {
    min: -4,
    max: 4,
    specials,
  });
  const got = await onGpu([x], (a) => pool2d(batch(), kind, a, options));
  const magnitude = kind === "avg"
    ? cpuPool2d("avg", cpuUnary("abs", x), options)
    : undefined;
  assertMatchesCpu(
    `pool2d_${kind}`,
    got,
    cpuPool2d(kind, x, options),
    magnitude,
  );
}

Deno.test({
  name: "pool2d() matches the CPU for every window rule",
  ...gpuTest,
  fn: async () => {
    const options: Pool2dKernelOptions[] = [
      { ksize: [2, 2], strides: [2, 2] },
      { ksize: [3, 3], strides: [2, 2], paddings: [1, 1, 1, 1] },
      {
        ksize: [3, 3],
        strides: [2, 2],
        paddings: [1, 1, 1, 1],
        exclusive: false,
      },
      {
        ksize: [3, 2],
        strides: [2, 3],
        paddings: [1, 2, 0, 1],
        ceilMode: true,
      },
      { ksize: [3, 4], adaptive: true },
      { ksize: [1, 1], adaptive: true },
      { ksize: [9, 11] }, // global pooling, resolved
      { ksize: [2, 2], paddings: [1, 1, 1, 1], channelLast: true },
    ];
    for (const o of options) {
      for (const kind of ["max", "avg"] as const) {
        await checkPool(kind, [2, 3, 9, 11], o);
      }
    }
  },
});

Deno.test({
  name: "pool2d() keeps NaN and infinities as the CPU does",
  ...gpuTest,
  fn: async () => {
    for (const kind of ["max", "avg"] as const) {
      await checkPool(
        kind,
        [1, 2, 8, 8],
        { ksize: [2, 2], strides: [2, 2] },
        SPECIALS,
      );
    }
  },
});

Deno.test("poolFitsGpu() keeps long windows on the CPU, whole-image averages aside", () => {
  assert(!poolFitsGpu("max", [1, 1, 64, 64], { ksize: [33, 32] }));
  assert(poolFitsGpu("max", [1, 1, 64, 64], { ksize: [32, 32] }));
  assert(poolFitsGpu("avg", [1, 1, 64, 64], { ksize: [64, 64] }));
  assertEquals(MAX_WINDOW, 1024);
});

// Runs one batch normalization on both devices; the magnitude is
// |x·A| + |B| (batch_norm.ts).
async function checkBatchNorm(
  shape: number[],
  channelLast = false,
): Promise<void> {
  const next = seeded(9);
  const x = randomTensor(next, shape, "float32", { min: -5, max: 5 });
  const c = shape[channelLast || shape.length === 2 ? shape.length - 1 : 1];
  const options: BatchNormKernelOptions = {
    mean: randomTensor(next, [c]),
    variance: randomTensor(next, [c], "float32", { min: 0.1, max: 3 }),
    scale: randomTensor(next, [c]),
    bias: randomTensor(next, [c]),
    epsilon: 1e-5,
    channelLast,
  };
  const got = await onGpu([x], (a) => batchNorm(batch(), a, options));
  const [a, b] = affineOf(options, c);
  const magnitude = cpuBatchNorm(cpuUnary("abs", x), {
    mean: Tensor.zeros([c], "float64"),
    variance: Tensor.fromArray(Array.from(a, (v) => 1 / (v * v)), "float64"),
    bias: Tensor.fromArray(Array.from(b, Math.abs), "float64"),
    epsilon: 0,
    channelLast,
  });
  assertMatchesCpu("batch_norm", got, cpuBatchNorm(x, options), magnitude);
}

Deno.test({
  name: "batchNorm() matches the CPU as an affine map per channel",
  ...gpuTest,
  fn: async () => {
    await checkBatchNorm([2, 6, 7, 5]); // inner 35: scalar kernel
    await checkBatchNorm([2, 6, 8, 8]); // inner 64: vec4 kernel
    await checkBatchNorm([3, 5, 4, 7], true);
    await checkBatchNorm([40, 12]);
  },
});
