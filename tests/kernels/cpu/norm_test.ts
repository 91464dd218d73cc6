import { assertEquals, assertThrows } from "@std/assert";
import {
  batchNorm,
  groupNorm,
  instanceNorm,
  layerNorm,
} from "../../../kernels/cpu/norm.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import {
  refBatchNorm,
  refGroupNorm,
  refInstanceNorm,
  refLayerNorm,
  refOf,
  refTranspose,
  seededValues,
} from "../../_helpers/conv_reference.ts";

const f32 = (values: ArrayLike<number>) => Array.from(values, Math.fround);

function input(shape: number[], seed: number): Tensor {
  const size = shape.reduce((p, d) => p * d, 1);
  return Tensor.fromArray(
    seededValues(size, seed, { lo: -3, hi: 5 }),
    "float32",
    shape,
  );
}

function vector(values: number[]): Tensor {
  return Tensor.fromArray(values, "float32");
}

// The kernels compute in float64 and round once, as the references are
// rounded here: the seeded inputs give the same float32 values.
Deno.test("batchNorm() normalizes each channel by the given statistics", () => {
  const x = input([2, 3, 4, 5], 1);
  const mean = f32([0.5, -1, 2]), variance = f32([4, 0.25, 9]);
  const scale = f32([1.5, -2, 0.5]), bias = f32([0, 1, -3]);
  const got = batchNorm(x, {
    mean: vector(mean),
    variance: vector(variance),
    scale: vector(scale),
    bias: vector(bias),
    epsilon: 1e-5,
  });
  const want = refBatchNorm(refOf(x), mean, variance, { scale, bias });
  assertEquals(Array.from(got.data as Float32Array), f32(want.data));
  // Channels last: the same values, transposed.
  const nhwc = Tensor.fromArray(
    Array.from(refTranspose(refOf(x), [0, 2, 3, 1]).data),
    "float32",
    [2, 4, 5, 3],
  );
  const last = batchNorm(nhwc, {
    mean: vector(mean),
    variance: vector(variance),
    scale: vector(scale),
    bias: vector(bias),
    channelLast: true,
  });
  assertEquals(
    Array.from(last.data as Float32Array),
    Array.from(refTranspose(refOf(got), [0, 2, 3, 1]).data),
  );
});

Deno.test("batchNorm() refuses statistics of the wrong size", () => {
  assertThrows(
    () =>
      batchNorm(input([1, 3, 2, 2], 1), {
        mean: vector([0, 0]),
        variance: vector([1, 1, 1]),
      }),
    RangeError,
    "batch_norm: mean [2] does not have one element per channel of input [1, 3, 2, 2] (3)",
  );
});

Deno.test("layerNorm() normalizes the rows from beginNormAxis", () => {
  const x = input([2, 3, 4], 2);
  for (const axis of [0, 1, 2]) {
    const right = x.shape.slice(axis).reduce((p, d) => p * d, 1);
    const scale = seededValues(right, 3), bias = seededValues(right, 4);
    const [y, mean, variance] = layerNorm(x, {
      beginNormAxis: axis,
      scale: vector(scale),
      bias: vector(bias),
    });
    const want = refLayerNorm(refOf(x), axis, { scale, bias });
    assertEquals(Array.from(y.data as Float32Array), f32(want.y.data));
    assertEquals(Array.from(mean.data as Float32Array), f32(want.mean));
    assertEquals(Array.from(variance.data as Float32Array), f32(want.variance));
    assertEquals(mean.shape, [x.size / right]);
  }
  assertThrows(() => layerNorm(x, { beginNormAxis: 3 }), RangeError);
});

Deno.test("instanceNorm() normalizes each image's channels", () => {
  const x = input([2, 3, 4, 5], 5);
  const scale = [1, 2, 3], bias = [0.5, 0, -1];
  const [y, mean, inv] = instanceNorm(x, {
    scale: vector(scale),
    bias: vector(bias),
  });
  const want = refInstanceNorm(refOf(x), { scale, bias });
  assertEquals(Array.from(y.data as Float32Array), f32(want.y.data));
  assertEquals(Array.from(mean.data as Float32Array), f32(want.mean));
  assertEquals(
    Array.from(inv.data as Float32Array),
    f32(want.variance.map((v) => 1 / Math.sqrt(v + 1e-5))),
  );
  assertEquals(inv.shape, [6]);
});

Deno.test("groupNorm() normalizes groups of channels, NCHW and NHWC", () => {
  const x = input([2, 6, 3, 4], 6);
  const scale = seededValues(6, 7), bias = seededValues(6, 8);
  const [y, mean, variance] = groupNorm(x, {
    groups: 3,
    scale: vector(scale),
    bias: vector(bias),
  });
  const want = refGroupNorm(refOf(x), 3, { scale, bias });
  assertEquals(Array.from(y.data as Float32Array), f32(want.y.data));
  assertEquals(Array.from(mean.data as Float32Array), f32(want.mean));
  assertEquals(Array.from(variance.data as Float32Array), f32(want.variance));
  assertEquals(mean.shape, [2, 3]);
  const nhwc = Tensor.fromArray(
    Array.from(refTranspose(refOf(x), [0, 2, 3, 1]).data),
    "float32",
    [2, 3, 4, 6],
  );
  const [yLast, meanLast] = groupNorm(nhwc, {
    groups: 3,
    scale: vector(scale),
    bias: vector(bias),
    channelLast: true,
  });
  assertEquals(
    Array.from(yLast.data as Float32Array),
    Array.from(refTranspose(refOf(y), [0, 2, 3, 1]).data),
  );
  assertEquals(Array.from(meanLast.data as Float32Array), f32(want.mean));
  assertThrows(
    () => groupNorm(x, { groups: 4 }),
    RangeError,
    "group_norm: input [2, 6, 3, 4] does not split into 4 groups of channels",
  );
});
