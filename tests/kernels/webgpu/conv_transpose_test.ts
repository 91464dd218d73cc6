// The WebGPU transposed convolution against the CPU's, at the bound its
// GPU_KERNELS entry states, for the attribute sets Paddle writes.

import { assertEquals, assertThrows } from "@std/assert";
import { conv2dTranspose as cpuConv2dTranspose } from "../../../kernels/cpu/conv.ts";
import { unary as cpuUnary } from "../../../kernels/cpu/elementwise.ts";
import { conv2dTranspose } from "../../../kernels/webgpu/conv_transpose.ts";
import type { Conv2dTransposeKernelOptions } from "../../../kernels/kernel_options.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import {
  assertMatchesCpu,
  batch,
  gpuTest,
  onGpu,
  randomTensor,
  seeded,
} from "./_gpu.ts";

// Runs one transposed convolution on both devices; the magnitude is |x|
// transposed-convolved with |filter|.
async function check(
  xShape: number[],
  fShape: number[],
  options: Conv2dTransposeKernelOptions = {},
  seed = 3,
): Promise<Tensor> {
  const next = seeded(seed);
  const x = randomTensor(next, xShape), f = randomTensor(next, fShape);
  const got = await onGpu(
    [x, f],
    (a, b) => conv2dTranspose(batch(), a, b, options),
  );
  const abs = (t: Tensor) => cpuUnary("abs", t);
  assertMatchesCpu(
    "conv2d_transpose",
    got,
    cpuConv2dTranspose(x, f, options),
    cpuConv2dTranspose(abs(x), abs(f), options),
  );
  return got;
}

Deno.test({
  name:
    "conv2dTranspose() matches the CPU: a U-Net's 2×2 stride-2 upsampling and odd sizes",
  ...gpuTest,
  fn: async () => {
    const y = await check([2, 8, 7, 9], [8, 4, 2, 2], { strides: [2, 2] });
    assertEquals(y.shape, [2, 4, 14, 18]);
    await check([1, 3, 5, 5], [3, 2, 3, 3]); // stride 1, no padding
    await check([1, 5, 6, 4], [5, 3, 3, 1], { strides: [1, 3] });
  },
});

Deno.test({
  name:
    "conv2dTranspose() matches the CPU with paddings, output sizes and dilations",
  ...gpuTest,
  fn: async () => {
    // 3×3 stride 2 padding 1 with output_padding 1: exactly twice the input.
    const y = await check([1, 4, 5, 6], [4, 3, 3, 3], {
      strides: [2, 2],
      paddings: [1, 1, 1, 1],
      outputSize: [10, 12],
    });
    assertEquals(y.shape, [1, 3, 10, 12]);
    await check([2, 2, 4, 5], [2, 3, 4, 3], {
      strides: [3, 2],
      paddings: [0, 2, 1, 0], // 4-value, uneven
    });
    await check([1, 3, 6, 6], [3, 2, 3, 3], {
      dilations: [2, 3],
      paddings: [2, 2, 1, 1],
    });
    await check([1, 2, 3, 3], [2, 2, 3, 3], {
      strides: [2, 2],
      dilations: [2, 1],
      outputSize: [10, 8],
    });
  },
});

Deno.test({
  name:
    "conv2dTranspose() matches the CPU with groups, one channel per group and NHWC",
  ...gpuTest,
  fn: async () => {
    await check([2, 6, 5, 4], [6, 2, 3, 3], { groups: 3, strides: [2, 1] });
    await check([1, 4, 5, 5], [4, 1, 4, 4], { groups: 4, strides: [2, 2] });
    await check([2, 5, 4, 6], [6, 3, 2, 3], {
      channelLast: true,
      strides: [2, 2],
      paddings: [1, 0, 0, 1],
    });
  },
});

Deno.test({
  name:
    "conv2dTranspose() cuts the columns by images above 64 MB and matches the CPU",
  ...gpuTest,
  fn: async () => {
    // 4 MB of columns an image: 17 images run in two parts.
    await check([17, 4, 32, 32], [4, 64, 4, 4], { strides: [2, 2] });
  },
});

Deno.test({
  name:
    "conv2dTranspose() gives empty results, and refuses what the CPU refuses",
  ...gpuTest,
  fn: async () => {
    const y = await check([0, 2, 3, 3], [2, 2, 2, 2]);
    assertEquals(y.shape, [0, 2, 4, 4]);
    const b = batch();
    const x = b.upload(Tensor.zeros([1, 3, 4, 4], "float32"));
    const f = b.upload(Tensor.zeros([2, 2, 3, 3], "float32"));
    assertThrows(
      () => conv2dTranspose(b, x, f),
      RangeError,
      "conv2d_transpose: input [1, 3, 4, 4] and filter [2, 2, 3, 3] with groups 1: the input has 3 channels, the filter 2",
    );
    const g = b.upload(Tensor.zeros([3, 2, 3, 3], "float32"));
    assertThrows(
      () => conv2dTranspose(b, x, g, { strides: [2, 2], outputSize: [11, 9] }),
      RangeError,
      "is not within a stride of",
    );
  },
});
