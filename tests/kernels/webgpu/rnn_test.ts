// The WebGPU rnn kernel against the CPU's, at the bound its GPU_KERNELS
// entry states, for each mode Paddle saves, stacked and bidirectional.

import { assertEquals, assertThrows } from "@std/assert";
import { rnn as cpuRnn, RNN_GATES } from "../../../kernels/cpu/rnn.ts";
import type {
  RnnKernelOptions,
  RnnMode,
} from "../../../kernels/kernel_options.ts";
import { rnn } from "../../../kernels/webgpu/rnn.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import {
  assertMatchesCpu,
  batch,
  gpuTest,
  randomTensor,
  seeded,
} from "./_gpu.ts";

interface Net {
  readonly x: Tensor;
  readonly pre: Tensor[];
  readonly weights: Tensor[];
  readonly options: RnnKernelOptions;
}

// A network with Paddle's initialization, U(±1/√H), and states in [-1, 1].
function net(
  mode: RnnMode,
  [t, b, i]: number[],
  hidden: number,
  layers = 1,
  bidirectional = false,
): Net {
  const next = seeded(t * 31 + hidden);
  const dirs = bidirectional ? 2 : 1, cells = layers * dirs;
  const gh = RNN_GATES[mode] * hidden, k = 1 / Math.sqrt(hidden);
  const u = (shape: number[]) =>
    randomTensor(next, shape, "float32", { min: -k, max: k });
  const mats: Tensor[] = [], biases: Tensor[] = [];
  for (let c = 0; c < cells; c++) {
    mats.push(u([gh, c < dirs ? i : dirs * hidden]), u([gh, hidden]));
    biases.push(u([gh]), u([gh]));
  }
  const states = mode === "LSTM" ? 2 : 1;
  return {
    x: randomTensor(next, [t, b, i], "float32", { min: -2, max: 2 }),
    pre: Array.from(
      { length: states },
      () => randomTensor(next, [cells, b, hidden]),
    ),
    weights: [...mats, ...biases],
    options: { mode, layers, bidirectional, hidden },
  };
}

async function check(n: Net): Promise<void> {
  const bt = batch();
  const up = (t: Tensor) => bt.upload(t);
  const outs = rnn(
    bt,
    up(n.x),
    n.pre.map(up),
    n.weights.map(up),
    n.options,
  );
  const got = await bt.read(outs);
  for (const t of outs) t.release();
  const want = cpuRnn(n.x, n.pre, n.weights, n.options);
  assertEquals(got.length, want.length);
  got.forEach((g, k) => assertMatchesCpu("rnn", g, want[k]));
}

Deno.test({
  name: "rnn() matches the CPU for LSTM, GRU, RNN_TANH and RNN_RELU",
  ...gpuTest,
  fn: async () => {
    await check(net("LSTM", [12, 3, 7], 16));
    await check(net("GRU", [40, 2, 5], 33)); // LSTNet's GRU, odd H
    await check(net("RNN_TANH", [9, 4, 6], 8));
    await check(net("RNN_RELU", [9, 4, 6], 8));
  },
});

Deno.test({
  name:
    "rnn() matches the CPU stacked, bidirectional, one step and one hidden unit",
  ...gpuTest,
  fn: async () => {
    await check(net("LSTM", [7, 2, 5], 6, 2, true));
    await check(net("GRU", [5, 3, 4], 9, 3));
    await check(net("GRU", [1, 1, 3], 4, 1, true));
    await check(net("RNN_TANH", [6, 5, 2], 1, 2));
  },
});

Deno.test({
  name: "rnn() leaves an empty sequence to the CPU and refuses other dtypes",
  ...gpuTest,
  fn() {
    const bt = batch();
    const n = net("GRU", [2, 1, 3], 4);
    assertThrows(
      () =>
        rnn(
          bt,
          bt.upload(Tensor.zeros([0, 1, 3], "float32")),
          n.pre.map((t) => bt.upload(t)),
          n.weights.map((t) => bt.upload(t)),
          n.options,
        ),
      RangeError,
      "rnn: input [0, 1, 3] is empty, which the CPU runs",
    );
    assertThrows(
      () =>
        rnn(
          bt,
          bt.upload(Tensor.zeros([2, 1, 3], "int32")),
          [],
          [],
          n.options,
        ),
      TypeError,
      "rnn: the GPU kernel takes float32, got int32",
    );
  },
});
