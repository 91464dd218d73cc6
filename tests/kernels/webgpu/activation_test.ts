// Paddle's activations on the GPU against the CPU's, at the bounds of
// GPU_KERNELS.activation: random values with NaN and ±Infinity in several
// shapes (both templates), a dense sweep of float32 over the range where
// results stay normal, and every float16 value.

import { assertEquals, assertThrows } from "@std/assert";
import { activation as cpuActivation } from "../../../kernels/cpu/activation.ts";
import {
  ACTIVATION_KINDS,
  type ActivationKind,
} from "../../../kernels/kernel_kinds.ts";
import { activation } from "../../../kernels/webgpu/activation.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import {
  assertMatchesCpu,
  batch,
  f16Test,
  float16Bits,
  gpuTest,
  onGpu,
  randomTensor,
  seeded,
  SPECIALS,
} from "./_gpu.ts";

// Paddle's defaults, and other values each kind's bound allows.
const PARAMS: Readonly<Record<ActivationKind, readonly number[][]>> = {
  gelu: [[]],
  gelu_tanh: [[]],
  swish: [[1], [1.7], [-0.5]],
  hard_swish: [[6, 6, 3], [4, 5, 2.5]],
  hard_sigmoid: [[0.2, 0.5], [1 / 6, 0.5], [0.3, -1.5]],
  leaky_relu: [[0.02], [0.1], [1.5]],
  relu6: [[6], [2.5]],
  elu: [[1], [0.3]],
  clip: [[-1.5, 2.5], [0, 6]],
  thresholded_relu: [[1, 0], [-0.5, 2.5]],
};

Deno.test({
  name:
    "activation() matches the CPU for every kind, with NaN, ±Infinity and ±0",
  ...gpuTest,
  fn: async () => {
    const next = seeded(41);
    for (const kind of ACTIVATION_KINDS) {
      for (const params of PARAMS[kind]) {
        for (const shape of [[1000], [7, 33], [], [3], [0, 4]]) {
          for (const [min, max] of [[-3, 3], [-100, 100]]) {
            const x = randomTensor(next, shape, "float32", {
              min,
              max,
              specials: SPECIALS,
            });
            const got = await onGpu(
              [x],
              (a) => activation(batch(), kind, a, params),
            );
            assertMatchesCpu(kind, got, cpuActivation(kind, x, params));
          }
        }
      }
    }
  },
});

Deno.test({
  name: "activation() matches the CPU on a dense float32 sweep of [-110, 60]",
  ...gpuTest,
  fn: async () => {
    const n = 1 << 18;
    const x = Tensor.fromArray(
      Array.from({ length: n }, (_, i) => -110 + 170 * i / n),
      "float32",
    );
    for (const kind of ACTIVATION_KINDS) {
      for (const params of PARAMS[kind]) {
        const got = await onGpu(
          [x],
          (a) => activation(batch(), kind, a, params),
        );
        assertMatchesCpu(kind, got, cpuActivation(kind, x, params));
      }
    }
  },
});

Deno.test({
  name: "activation() matches the CPU on every float16 value",
  ...f16Test,
  fn: async () => {
    const all = float16Bits(Array.from({ length: 65536 }, (_, i) => i));
    for (const kind of ACTIVATION_KINDS) {
      for (const params of PARAMS[kind]) {
        const got = await onGpu(
          [all],
          (a) => activation(batch(), kind, a, params),
        );
        assertEquals(got.dtype, "float16");
        assertMatchesCpu(kind, got, cpuActivation(kind, all, params));
      }
    }
  },
});

Deno.test({
  name:
    "activation() refuses an integer tensor, which the device runs on the CPU",
  ...gpuTest,
  fn: () => {
    const x = batch().upload(Tensor.fromArray([1, 2], "int32"));
    assertThrows(
      () => activation(batch(), "relu6", x, [6]),
      TypeError,
      'relu6: no GPU kernel for dtype "int32"',
    );
    x.release();
  },
});
