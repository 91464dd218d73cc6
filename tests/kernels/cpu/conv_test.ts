import { assert, assertEquals, assertThrows } from "@std/assert";
import { conv2d, conv2dTranspose } from "../../../kernels/cpu/conv.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import type { Conv2dTransposeKernelOptions } from "../../../kernels/kernel_options.ts";
import {
  type Ref,
  refAbs,
  type RefConv,
  refConv2d,
  refConvTranspose,
  refOf,
  refTranspose,
  seededValues,
} from "../../_helpers/conv_reference.ts";

type Dtype = "float32" | "float64";

function tensorOf(shape: number[], seed: number, dtype: Dtype): Tensor {
  const size = shape.reduce((p, d) => p * d, 1);
  return Tensor.fromArray(seededValues(size, seed), dtype, shape);
}

// |got − want| ≤ 2^-14 · Σ|terms| for float32 (the sgemm's bound for sums
// of up to 1024 terms), 1e-14 for float64.
function assertClose(got: Tensor, want: Ref, magnitude: Ref, dtype: Dtype) {
  assertEquals(got.shape, want.shape);
  const rtol = dtype === "float32" ? 2 ** -14 : 1e-14;
  for (let i = 0; i < want.data.length; i++) {
    const d = Math.abs(Number(got.data[i]) - want.data[i]);
    assert(
      d <= rtol * magnitude.data[i] + 1e-30,
      `element ${i}: ${got.data[i]} vs ${want.data[i]}`,
    );
  }
}

function checkConv(
  xShape: number[],
  fShape: number[],
  o: RefConv,
  dtype: Dtype = "float32",
): void {
  const x = tensorOf(xShape, 1, dtype), f = tensorOf(fShape, 2, dtype);
  const got = conv2d(x, f, o);
  const want = refConv2d(refOf(x), refOf(f), o);
  const magnitude = refConv2d(refAbs(refOf(x)), refAbs(refOf(f)), o);
  assertClose(got, want, magnitude, dtype);
}

Deno.test("conv2d() matches the reference on every path and option", () => {
  for (const dtype of ["float32", "float64"] as const) {
    checkConv([1, 3, 7, 9], [4, 3, 3, 3], {}, dtype);
    checkConv([2, 4, 10, 11], [6, 2, 3, 3], {
      groups: 2,
      paddings: [1, 2, 0, 1],
      strides: [2, 1],
    }, dtype);
    checkConv([1, 3, 13, 13], [5, 3, 3, 2], {
      dilations: [2, 3],
      paddings: [2, 2, 3, 3],
    }, dtype);
    checkConv([1, 16, 17, 17], [16, 16, 1, 1], {}, dtype);
    // The last input row and column reach no tap.
    checkConv([1, 3, 8, 12], [4, 3, 3, 3], { strides: [2, 2] }, dtype);
    checkConv(
      [1, 3, 8, 12],
      [3, 1, 3, 3],
      { strides: [2, 1], groups: 3 },
      dtype,
    );
    checkConv([2, 5, 12, 20], [7, 5, 3, 5], {
      strides: [3, 1],
      dilations: [1, 2],
      paddings: [0, 2, 4, 1],
    }, dtype);
    checkConv([1, 4, 11, 12], [8, 1, 3, 3], {
      groups: 4,
      strides: [2, 1],
      dilations: [2, 1],
      paddings: [2, 1, 1, 0],
    }, dtype);
    checkConv([1, 16, 17, 17], [16, 16, 3, 3], {
      strides: [2, 2],
      paddings: [1, 1, 1, 1],
    }, dtype);
    // Depthwise: one input channel per group, multiplier 1 and 2.
    checkConv(
      [1, 8, 9, 9],
      [8, 1, 3, 3],
      { groups: 8, paddings: [1, 1, 1, 1] },
      dtype,
    );
    checkConv([2, 4, 9, 9], [8, 1, 5, 5], {
      groups: 4,
      paddings: [2, 1, 2, 0],
      strides: [2, 3],
      dilations: [1, 2],
    }, dtype);
    checkConv([2, 4, 9, 10], [8, 1, 3, 3], {
      groups: 4,
      paddings: [2, 1, 0, 2],
      strides: [2, 3],
      dilations: [2, 1],
    }, dtype);
    checkConv(
      [1, 2, 2, 2],
      [2, 1, 3, 3],
      { groups: 2, paddings: [1, 1, 1, 1] },
      dtype,
    );
    checkConv([1, 3, 16, 16], [3, 1, 7, 7], {
      groups: 3,
      paddings: [15, 15, 15, 15],
      dilations: [5, 5],
    }, dtype);
  }
});

Deno.test("conv2d() gives exact sums of small integers", () => {
  const x = Tensor.fromArray([[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]]], "float32");
  const w = Tensor.fromArray([[[[1, 1, 1], [1, 1, 1], [1, 1, 1]]]], "float32");
  assertEquals(conv2d(x, w, { paddings: [1, 1, 1, 1] }).toNested(), [[[
    [12, 21, 16],
    [27, 45, 33],
    [24, 39, 28],
  ]]]);
  // Depthwise, same sums.
  const x2 = Tensor.fromArray([[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[
    [
      1,
      2,
      3,
    ],
    [4, 5, 6],
    [7, 8, 9],
  ]]], "float32"); // [2, 1, 3, 3]
  assertEquals(
    conv2d(x2, w, { paddings: [1, 1, 1, 1], groups: 1 }).toNested(),
    [
      [[[12, 21, 16], [27, 45, 33], [24, 39, 28]]],
      [[[12, 21, 16], [27, 45, 33], [24, 39, 28]]],
    ],
  );
});

Deno.test("conv2d() reads and writes NHWC with channelLast", () => {
  const nchw = tensorOf([2, 4, 6, 5], 3, "float32");
  const f = tensorOf([6, 2, 3, 3], 4, "float32");
  const o = { groups: 2, paddings: [1, 0, 1, 1], strides: [1, 2] };
  const nhwc = Tensor.fromArray(
    Array.from(refTranspose(refOf(nchw), [0, 2, 3, 1]).data),
    "float32",
    [2, 6, 5, 4],
  );
  const got = conv2d(nhwc, f, { ...o, channelLast: true });
  const want = refTranspose(refOf(conv2d(nchw, f, o)), [0, 2, 3, 1]);
  assertEquals(got.shape, want.shape);
  assertEquals(Array.from(got.data as Float32Array), Array.from(want.data));
});

Deno.test("conv2d() refuses channels that disagree with groups, naming the shapes", () => {
  const x = Tensor.zeros([1, 4, 5, 5], "float32");
  assertThrows(
    () => conv2d(x, Tensor.zeros([6, 3, 3, 3], "float32"), { groups: 2 }),
    RangeError,
    "conv2d: input [1, 4, 5, 5] and filter [6, 3, 3, 3] with groups 2: the input has 4 channels, the filter takes 3 × 2",
  );
  assertThrows(
    () => conv2d(x, Tensor.zeros([5, 2, 3, 3], "float32"), { groups: 2 }),
    RangeError,
    "5 output channels do not split into 2 groups",
  );
  assertThrows(
    () => conv2d(x, Tensor.zeros([1, 4, 7, 7], "float32")),
    RangeError,
    "does not fit",
  );
  assertThrows(
    () => conv2d(x, Tensor.zeros([1, 4, 3, 3], "float64")),
    TypeError,
  );
});

function checkTranspose(
  xShape: number[],
  fShape: number[],
  o: Conv2dTransposeKernelOptions,
  dtype: Dtype = "float32",
): void {
  const x = tensorOf(xShape, 5, dtype), f = tensorOf(fShape, 6, dtype);
  const got = conv2dTranspose(x, f, o);
  const want = refConvTranspose(refOf(x), refOf(f), o);
  const magnitude = refConvTranspose(refAbs(refOf(x)), refAbs(refOf(f)), o);
  assertClose(got, want, magnitude, dtype);
}

Deno.test("conv2dTranspose() matches the gathering reference", () => {
  for (const dtype of ["float32", "float64"] as const) {
    checkTranspose([1, 3, 4, 5], [3, 2, 3, 3], {}, dtype);
    checkTranspose([2, 4, 4, 4], [4, 3, 3, 3], {
      strides: [2, 2],
      paddings: [1, 1, 1, 1],
      groups: 2,
    }, dtype);
    checkTranspose([1, 2, 5, 3], [2, 2, 2, 3], {
      strides: [3, 2],
      paddings: [0, 1, 2, 0],
      dilations: [2, 1],
      outputSize: [14, 5],
    }, dtype);
  }
});

Deno.test("conv2dTranspose() refuses an output size beyond a stride", () => {
  const x = Tensor.zeros([1, 1, 3, 3], "float32");
  const f = Tensor.zeros([1, 1, 3, 3], "float32");
  assertEquals(
    conv2dTranspose(x, f, { strides: [2, 2], outputSize: [8, 7] }).shape,
    [1, 1, 8, 7],
  );
  assertThrows(
    () => conv2dTranspose(x, f, { strides: [2, 2], outputSize: [9, 7] }),
    RangeError,
    "output size [9, 7] is not within a stride of [7, 7]",
  );
  assertThrows(
    () => conv2dTranspose(x, Tensor.zeros([2, 1, 3, 3], "float32")),
    RangeError,
    "the input has 1 channels, the filter 2",
  );
});
