// The normalizations, the transposed convolution and rnn, which run in WGSL since
// 2026-11-28, each beside Rill's CPU kernel on one representative shape:
//   layer_norm   [16, 128, 768], a BERT-base layer's activations;
//   group_norm   [8, 64, 56, 56], 32 groups (a diffusion U-Net block);
//   instance_norm [8, 64, 56, 56];
//   conv2d_transpose 2×2 stride 2, 64→32 channels, [8, 64, 56, 56] (a
//   U-Net's upsampling);
//   rnn, an LSTM of 256 units over 64 steps of a batch of 16 (128 inputs).
// A GPU iteration records the kernel on operands already uploaded and
// reads back its result (the first output for the normalizations). Run:
//   XDG_RUNTIME_DIR=/tmp/xdg deno bench -A bench/webgpu_paddle_kernels.ts

import * as cpuConv from "../kernels/cpu/conv.ts";
import * as cpuNorm from "../kernels/cpu/norm.ts";
import { rnn as cpuRnn } from "../kernels/cpu/rnn.ts";
import type { RnnKernelOptions } from "../kernels/kernel_options.ts";
import { GpuBatch } from "../kernels/webgpu/gpu_batch.ts";
import { GpuDevice } from "../kernels/webgpu/gpu_device.ts";
import type { GpuTensor } from "../kernels/webgpu/gpu_tensor.ts";
import { conv2dTranspose } from "../kernels/webgpu/conv_transpose.ts";
import * as gpuNorm from "../kernels/webgpu/norm.ts";
import { rnn } from "../kernels/webgpu/rnn.ts";
import { Tensor } from "../kernels/tensor.ts";
import { randomFloat32 } from "./_timings.ts";

const gpu = await GpuDevice.request();
if (!(gpu instanceof GpuDevice)) {
  throw new Error(`webgpu_paddle_kernels: no WebGPU device: ${gpu.explain}`);
}
const batch = new GpuBatch(gpu);

function tensor(shape: number[], seed: number): Tensor {
  const size = shape.reduce((a, d) => a * d, 1);
  return new Tensor("float32", shape, randomFloat32(size, seed));
}

// Reads back the first result and releases them all.
async function finish(outs: GpuTensor | GpuTensor[]): Promise<void> {
  const list = Array.isArray(outs) ? outs : [outs];
  await batch.read([list[0]]);
  for (const t of list) t.release();
}

const seq = tensor([16, 128, 768], 1);
const hidden = { scale: tensor([768], 2), bias: tensor([768], 3) };
const gSeq = batch.upload(seq);
const gHidden = {
  scale: batch.upload(hidden.scale),
  bias: batch.upload(hidden.bias),
};
Deno.bench("layer_norm [16, 128, 768], cpu", { group: "layer_norm" }, () => {
  cpuNorm.layerNorm(seq, { ...hidden, beginNormAxis: 2 });
});
Deno.bench("layer_norm [16, 128, 768], webgpu", {
  group: "layer_norm",
}, async () => {
  await finish(
    gpuNorm.layerNorm(batch, gSeq, { ...gHidden, beginNormAxis: 2 }),
  );
});

const image = tensor([8, 64, 56, 56], 4);
const channels = { scale: tensor([64], 5), bias: tensor([64], 6) };
const gImage = batch.upload(image);
const gChannels = {
  scale: batch.upload(channels.scale),
  bias: batch.upload(channels.bias),
};
Deno.bench("group_norm [8, 64, 56, 56] 32 groups, cpu", {
  group: "group_norm",
}, () => {
  cpuNorm.groupNorm(image, { ...channels, groups: 32 });
});
Deno.bench("group_norm [8, 64, 56, 56] 32 groups, webgpu", {
  group: "group_norm",
}, async () => {
  await finish(gpuNorm.groupNorm(batch, gImage, { ...gChannels, groups: 32 }));
});
Deno.bench("instance_norm [8, 64, 56, 56], cpu", {
  group: "instance_norm",
}, () => {
  cpuNorm.instanceNorm(image, channels);
});
Deno.bench("instance_norm [8, 64, 56, 56], webgpu", {
  group: "instance_norm",
}, async () => {
  await finish(gpuNorm.instanceNorm(batch, gImage, gChannels));
});

const up = tensor([64, 32, 2, 2], 7);
const gUp = batch.upload(up);
Deno.bench("conv2d_transpose 2×2/2 64→32 [8, 64, 56, 56], cpu", {
  group: "conv2d_transpose",
}, () => {
  cpuConv.conv2dTranspose(image, up, { strides: [2, 2] });
});
Deno.bench("conv2d_transpose 2×2/2 64→32 [8, 64, 56, 56], webgpu", {
  group: "conv2d_transpose",
}, async () => {
  await finish(conv2dTranspose(batch, gImage, gUp, { strides: [2, 2] }));
});

const lstm: RnnKernelOptions = {
  mode: "LSTM",
  layers: 1,
  bidirectional: false,
  hidden: 256,
};
const sequence = tensor([64, 16, 128], 8);
const lstmStates = [tensor([1, 16, 256], 9), tensor([1, 16, 256], 10)];
const lstmWeights = [
  tensor([1024, 128], 11),
  tensor([1024, 256], 12),
  tensor([1024], 13),
  tensor([1024], 14),
];
const gSequence = batch.upload(sequence);
const gStates = lstmStates.map((t) => batch.upload(t));
const gWeights = lstmWeights.map((t) => batch.upload(t));
Deno.bench("rnn LSTM 256 units, 64 steps, batch 16, cpu", {
  group: "rnn",
}, () => {
  cpuRnn(sequence, lstmStates, lstmWeights, lstm);
});
Deno.bench("rnn LSTM 256 units, 64 steps, batch 16, webgpu", {
  group: "rnn",
}, async () => {
  await finish(rnn(batch, gSequence, gStates, gWeights, lstm));
});
