// The WebGPU layer, instance and group normalization kernels against the
// CPU's, at the bound GPU_KERNELS.layerNorm argues: each output's
// magnitude is worked out here in float64 from the groups' statistics.

import { assert, assertEquals } from "@std/assert";
import {
  groupNorm as cpuGroupNorm,
  instanceNorm as cpuInstanceNorm,
  layerNorm as cpuLayerNorm,
} from "../../../kernels/cpu/norm.ts";
import {
  groupNorm,
  instanceNorm,
  layerNorm,
} from "../../../kernels/webgpu/norm.ts";
import type { GpuTensor } from "../../../kernels/webgpu/gpu_tensor.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import {
  assertMatchesCpu,
  batch,
  gpuTest,
  randomTensor,
  seeded,
} from "./_gpu.ts";

// Where element i of X is normalized: its group and its scale's index.
type Place = (i: number) => [group: number, param: number];

interface Params {
  readonly scale?: Tensor;
  readonly bias?: Tensor;
  readonly epsilon: number;
}

// The magnitudes of [Y, Mean, second statistic] (see gpu_kernels.ts):
// m = mean|x|, M = mean((|x| + m)²), v the variance, per group.
function magnitudes(
  x: Tensor,
  groups: number,
  place: Place,
  params: Params,
  statShape: readonly number[],
  inverse: boolean,
): Tensor[] {
  const xs = Array.from(x.data as Float32Array);
  const count = new Float64Array(groups), sum = new Float64Array(groups);
  const abs = new Float64Array(groups);
  xs.forEach((v, i) => {
    const [r] = place(i);
    count[r]++, sum[r] += v, abs[r] += Math.abs(v);
  });
  const mean = sum.map((s, r) => s / count[r]);
  const m = abs.map((a, r) => a / count[r]);
  const variance = new Float64Array(groups), big = new Float64Array(groups);
  xs.forEach((v, i) => {
    const [r] = place(i);
    variance[r] += (v - mean[r]) ** 2 / count[r];
    big[r] += (Math.abs(v) + m[r]) ** 2 / count[r];
  });
  const eps = params.epsilon;
  const inv = variance.map((v) => 1 / Math.sqrt(v + eps));
  const widen = (r: number) => 1 + big[r] / (variance[r] + eps);
  const s = (j: number) => Math.abs(Number(params.scale?.data[j] ?? 1));
  const b = (j: number) => Math.abs(Number(params.bias?.data[j] ?? 0));
  const y = xs.map((v, i) => {
    const [r, j] = place(i);
    return (Math.abs(v) + m[r]) * inv[r] * s(j) * widen(r) + b(j);
  });
  const second = inverse ? inv.map((v, r) => v * widen(r)) : big;
  return [
    Tensor.fromArray(y, "float64", x.shape),
    Tensor.fromArray(Array.from(m), "float64", statShape),
    Tensor.fromArray(Array.from(second), "float64", statShape),
  ];
}

async function compare(
  op: string,
  x: Tensor,
  run: (x: GpuTensor) => GpuTensor[],
  cpu: Tensor[],
  mags: Tensor[],
): Promise<void> {
  const b = batch();
  const input = b.upload(x);
  const outs = run(input);
  const got = await b.read(outs);
  input.release();
  for (const t of outs) t.release();
  assertEquals(got.length, 3);
  got.forEach((g, k) => assertMatchesCpu(op, g, cpu[k], mags[k]));
}

function params(next: () => number, size: number, affine: boolean): Params {
  return affine
    ? {
      scale: randomTensor(next, [size], "float32", { min: -2, max: 2 }),
      bias: randomTensor(next, [size]),
      epsilon: 1e-5,
    }
    : { epsilon: 1e-5 };
}

function upload(p: Params): { scale?: GpuTensor; bias?: GpuTensor } {
  return {
    scale: p.scale && batch().upload(p.scale),
    bias: p.bias && batch().upload(p.bias),
  };
}

async function checkLayer(
  shape: number[],
  axis: number,
  affine = true,
  offset = 0,
): Promise<void> {
  const next = seeded(shape.length * 31 + axis);
  const x = randomTensor(next, shape, "float32", {
    min: offset - 3,
    max: offset + 3,
  });
  const right = shape.slice(axis).reduce((a, d) => a * d, 1);
  const left = x.size / Math.max(right, 1);
  const p = params(next, right, affine);
  await compare(
    "layer_norm",
    x,
    (a) =>
      layerNorm(batch(), a, {
        ...upload(p),
        epsilon: p.epsilon,
        beginNormAxis: axis,
      }),
    cpuLayerNorm(x, { ...p, beginNormAxis: axis }),
    magnitudes(x, left, (i) => [Math.floor(i / right), i % right], p, [
      left,
    ], false),
  );
}

Deno.test({
  name:
    "layerNorm() matches the CPU for each begin_norm_axis, with and without scale and bias",
  ...gpuTest,
  fn: async () => {
    await checkLayer([4, 7, 33], 2); // a transformer's [batch, seq, hidden]
    await checkLayer([4, 7, 33], 1);
    await checkLayer([3, 5], 1, false);
    await checkLayer([2, 3, 4, 5], 1);
    await checkLayer([1, 5000], 1); // one long row: 64 shares of 79
    await checkLayer([6, 130], 1, true, 1000); // a large mean
    await checkLayer([9], 0); // the whole tensor is one row
    await checkLayer([1100, 33], 1); // many short rows: one invocation each
  },
});

async function checkInstance(shape: number[], affine = true): Promise<void> {
  const next = seeded(shape[0] * 7 + shape[1]);
  const x = randomTensor(next, shape, "float32", { min: -4, max: 4 });
  const [n, c] = shape;
  const plane = shape.slice(2).reduce((a, d) => a * d, 1);
  const p = params(next, c, affine);
  await compare(
    "instance_norm",
    x,
    (a) => instanceNorm(batch(), a, { ...upload(p), epsilon: p.epsilon }),
    cpuInstanceNorm(x, p),
    magnitudes(
      x,
      n * c,
      (i) => {
        const r = Math.floor(i / plane);
        return [r, r % c];
      },
      p,
      [n * c],
      true,
    ),
  );
}

Deno.test({
  name:
    "instanceNorm() matches the CPU, its second statistic 1 / sqrt(variance + epsilon)",
  ...gpuTest,
  fn: async () => {
    await checkInstance([2, 3, 17, 19]);
    await checkInstance([1, 5, 64, 64], false);
    await checkInstance([3, 4, 1]); // one element per plane: variance 0
    await checkInstance([2, 6]); // rank 2: planes of one element
    await checkInstance([64, 20, 3, 5]); // 1280 planes of 15, one invocation each
  },
});

async function checkGroup(
  shape: number[],
  groups: number,
  channelLast = false,
  affine = true,
): Promise<void> {
  const next = seeded(shape.length * 13 + groups);
  const x = randomTensor(next, shape, "float32", { min: -2, max: 5 });
  const rank = shape.length;
  const c = shape[channelLast ? rank - 1 : 1], n = shape[0];
  const positions = x.size / (n * c), width = c / groups;
  const p = params(next, c, affine);
  const place: Place = channelLast
    ? (i) => {
      const image = Math.floor(i / (positions * c)), ch = i % c;
      return [image * groups + Math.floor(ch / width), ch];
    }
    : (i) => [
      Math.floor(i / (width * positions)),
      Math.floor(i / positions) % c,
    ];
  await compare(
    "group_norm",
    x,
    (a) =>
      groupNorm(batch(), a, {
        ...upload(p),
        epsilon: p.epsilon,
        groups,
        channelLast,
      }),
    cpuGroupNorm(x, { ...p, groups, channelLast }),
    magnitudes(x, n * groups, place, p, [n, groups], false),
  );
}

Deno.test({
  name:
    "groupNorm() matches the CPU in NCHW and NHWC, odd sizes and one channel per group",
  ...gpuTest,
  fn: async () => {
    await checkGroup([2, 32, 9, 7], 8);
    await checkGroup([2, 9, 5, 6], 3, true);
    await checkGroup([3, 6, 11], 6); // one channel per group: instance norm
    await checkGroup([1, 12, 4, 4], 1, false, false); // one group per image
    await checkGroup([4, 10], 5, true);
    await checkGroup([2, 16, 4, 6], 4); // planes of whole vec4s
    await checkGroup([256, 2, 3, 8], 4, true); // 1024 NHWC groups of 12
  },
});

Deno.test({
  name:
    "the normalizations give empty results, NaN statistics of empty groups, and NaN groups",
  ...gpuTest,
  fn: async () => {
    const b = batch();
    const empty = b.upload(Tensor.zeros([0, 4], "float32"));
    const [y, mean] = await b.read(layerNorm(b, empty));
    assertEquals([y.shape, mean.shape], [[0, 4], [0]]);
    const planes = b.upload(Tensor.zeros([2, 3, 0], "float32"));
    const [, m, inv] = await b.read(instanceNorm(b, planes));
    assert([...m.data, ...inv.data].every((v) => Number.isNaN(v)));
    const x = Tensor.fromArray([[1, NaN, 2], [1, 2, 4]], "float32");
    const [z] = await b.read(layerNorm(b, b.upload(x)));
    const cpu = cpuLayerNorm(x)[0];
    assert([0, 1, 2].every((i) => Number.isNaN(z.data[i] as number)));
    assert(
      [3, 4, 5].every((i) =>
        Math.abs(Number(z.data[i]) - Number(cpu.data[i])) < 1e-5
      ),
    );
  },
});

Deno.test({
  name:
    "the normalizations refuse a scale of the wrong size and a bad begin_norm_axis",
  ...gpuTest,
  fn() {
    const b = batch();
    const x = b.upload(Tensor.zeros([2, 6], "float32"));
    const scale = b.upload(Tensor.zeros([5], "float32"));
    let message = "";
    try {
      groupNorm(b, x, { groups: 2, scale });
    } catch (e) {
      message = (e as Error).message;
    }
    assertEquals(
      message,
      "group_norm: scale [5] does not have 6 elements for input [2, 6]",
    );
    try {
      layerNorm(b, x, { beginNormAxis: 2 });
    } catch (e) {
      message = (e as Error).message;
    }
    assertEquals(
      message,
      "layer_norm: begin_norm_axis 2 is outside [0, 2) for input [2, 6]",
    );
  },
});
