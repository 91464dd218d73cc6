import { assertEquals, assertThrows } from "@std/assert";
import {
  broadcastTo,
  concat,
  gather,
  reshape,
  slice,
  split,
  splitNearEqual,
  stack,
  transpose,
} from "../../../kernels/cpu/shape.ts";
import { Tensor } from "../../../kernels/tensor.ts";

function iota(
  shape: number[],
  dtype: "int32" | "int64" | "float32" = "int32",
): Tensor {
  const n = shape.reduce((p, d) => p * d, 1);
  return Tensor.fromArray(Array.from({ length: n }, (_, i) => i), dtype, shape);
}

// --- reshape()

Deno.test("reshape() infers -1 and copies 0 dims", () => {
  const x = iota([2, 3, 4]);
  assertEquals(reshape(x, [-1, 4]).shape, [6, 4]);
  assertEquals(reshape(x, [0, -1]).shape, [2, 12]);
  assertEquals(reshape(x, [0, 0, 2, 2]).shape, [2, 3, 2, 2]);
  assertEquals(reshape(x, [24]).toNested(), [...x.data]);
});

Deno.test("reshape() shares storage with its input", () => {
  const x = iota([2, 3]);
  assertEquals(reshape(x, [3, 2]).data === x.data, true);
});

Deno.test("reshape() handles rank 0 and empty tensors", () => {
  assertEquals(reshape(Tensor.scalar(5, "int32"), []).shape, []);
  assertEquals(reshape(Tensor.fromArray([5], "int32", []), [1, 1]).toNested(), [
    [5],
  ]);
  assertEquals(reshape(Tensor.zeros([0, 3], "int32"), [3, -1]).shape, [3, 0]);
  assertEquals(reshape(Tensor.zeros([0, 3], "int32"), [1, 0, 0]).shape, [
    1,
    3,
    0,
  ]);
});

Deno.test("reshape() rejects a wrong count, two -1s and an ambiguous -1", () => {
  const x = iota([2, 3]);
  assertThrows(() => reshape(x, [4, 2]), RangeError);
  assertThrows(() => reshape(x, [-1, -1]), RangeError);
  assertThrows(() => reshape(x, [4, -1]), RangeError);
  assertThrows(() => reshape(x, [-2, 3]), RangeError);
  assertThrows(() => reshape(Tensor.zeros([0], "int32"), [0, -1]), RangeError);
});

// --- transpose()

Deno.test("transpose() permutes [2, 3, 4] by [2, 0, 1]", () => {
  const x = iota([2, 3, 4]);
  const out = transpose(x, [2, 0, 1]);
  assertEquals(out.shape, [4, 2, 3]);
  for (const [i, j, k] of [[0, 0, 0], [1, 2, 3], [0, 1, 2], [1, 0, 3]]) {
    // out[k][i][j] === x[i][j][k]
    assertEquals(out.item(k * 6 + i * 3 + j), x.item(i * 12 + j * 4 + k));
  }
});

Deno.test("transpose() accepts negative axes and keeps int64 exact", () => {
  const x = Tensor.fromArray([[2n ** 60n + 1n, 2n], [3n, 4n]], "int64");
  assertEquals(transpose(x, [-1, -2]).toNested(), [[2n ** 60n + 1n, 3n], [
    2n,
    4n,
  ]]);
});

Deno.test("transpose() handles rank 0 and empty tensors", () => {
  assertEquals(transpose(Tensor.fromArray([1], "int32", []), []).toNested(), 1);
  assertEquals(transpose(Tensor.zeros([0, 2], "int32"), [1, 0]).shape, [2, 0]);
});

Deno.test("transpose() rejects axes that are not a permutation", () => {
  const x = iota([2, 3]);
  assertThrows(() => transpose(x, [0, 0]), RangeError);
  assertThrows(() => transpose(x, [0]), RangeError);
  assertThrows(() => transpose(x, [0, 2]), RangeError);
});

// --- concat() and stack()

Deno.test("concat() joins along axis 0, 1 and -1", () => {
  const a = Tensor.fromArray([[1, 2], [3, 4]], "int32");
  const b = Tensor.fromArray([[5], [6]], "int32");
  assertEquals(concat([a, b], 1).toNested(), [[1, 2, 5], [3, 4, 6]]);
  assertEquals(concat([a, b], -1).toNested(), [[1, 2, 5], [3, 4, 6]]);
  assertEquals(concat([a, a], 0).toNested(), [[1, 2], [3, 4], [1, 2], [3, 4]]);
});

Deno.test("concat() copies large blocks and empty parts", () => {
  const big = iota([2, 100], "float32");
  const out = concat([big, Tensor.zeros([0, 100], "float32"), big], 0);
  assertEquals(out.shape, [4, 100]);
  assertEquals(out.item(399), 199);
  assertEquals(out.item(200), 0);
});

Deno.test("concat() promotes mixed dtypes", () => {
  const out = concat([
    Tensor.fromArray([1], "int32"),
    Tensor.fromArray([0.5], "float64"),
  ]);
  assertEquals([out.dtype, out.toNested()], ["float64", [1, 0.5]]);
});

Deno.test("concat() rejects no inputs, other dims differing and a bad axis", () => {
  assertThrows(() => concat([]), RangeError);
  assertThrows(() => concat([iota([2, 2]), iota([3, 3])], 0), RangeError);
  assertThrows(() => concat([iota([2]), iota([2, 1])], 0), RangeError);
  assertThrows(() => concat([iota([2])], 1), RangeError);
});

Deno.test("stack() adds a new axis at 0, 1 and -1", () => {
  const a = Tensor.fromArray([1, 2], "int64");
  const b = Tensor.fromArray([3, 4], "int64");
  assertEquals(stack([a, b]).toNested(), [[1n, 2n], [3n, 4n]]);
  assertEquals(stack([a, b], 1).toNested(), [[1n, 3n], [2n, 4n]]);
  assertEquals(stack([a, b], -1).toNested(), [[1n, 3n], [2n, 4n]]);
  assertEquals(stack([Tensor.fromArray([7], "int32", [])]).toNested(), [7]);
});

Deno.test("stack() rejects no inputs, differing shapes and a bad axis", () => {
  assertThrows(() => stack([]), RangeError);
  assertThrows(() => stack([iota([2]), iota([3])]), RangeError);
  assertThrows(() => stack([iota([2])], 2), RangeError);
});

// --- split() and splitNearEqual()

Deno.test("split() cuts into num equal parts", () => {
  const parts = split(iota([2, 4]), 1, { num: 2 });
  assertEquals(parts.map((p) => p.toNested()), [[[0, 1], [4, 5]], [[2, 3], [
    6,
    7,
  ]]]);
});

Deno.test("split() cuts by sections with one -1", () => {
  const parts = split(iota([5, 1]), 0, { sections: [2, -1] });
  assertEquals(parts.map((p) => p.shape), [[2, 1], [3, 1]]);
  assertEquals(parts[1].toNested(), [[2], [3], [4]]);
  const empty = split(iota([3]), -1, { sections: [0, 3] });
  assertEquals(empty.map((p) => p.size), [0, 3]);
});

Deno.test("split() rejects parts that do not fit", () => {
  const x = iota([5]);
  assertThrows(() => split(x, 0, { num: 2 }), RangeError);
  assertThrows(() => split(x, 0, { num: 0 }), RangeError);
  assertThrows(() => split(x, 0, { sections: [2, 2] }), RangeError);
  assertThrows(() => split(x, 0, { sections: [6, -1] }), RangeError);
  assertThrows(() => split(x, 0, { sections: [-1, -1] }), RangeError);
  assertThrows(() => split(x, 1, { num: 1 }), RangeError);
});

Deno.test("splitNearEqual() puts larger parts first", () => {
  const parts = splitNearEqual(iota([10]), 3);
  assertEquals(parts.map((p) => p.toNested()), [[0, 1, 2, 3], [4, 5, 6], [
    7,
    8,
    9,
  ]]);
});

Deno.test("splitNearEqual() cuts along an inner axis", () => {
  const parts = splitNearEqual(iota([2, 3]), 2, 1);
  assertEquals(parts.map((p) => p.toNested()), [[[0, 1], [3, 4]], [[2], [5]]]);
});

Deno.test("splitNearEqual() gives empty parts when num exceeds the dim", () => {
  const parts = splitNearEqual(iota([3]), 5);
  assertEquals(parts.map((p) => p.shape[0]), [1, 1, 1, 0, 0]);
});

Deno.test("splitNearEqual() rejects a num below 1", () => {
  assertThrows(() => splitNearEqual(iota([3]), 0), RangeError);
  assertThrows(() => splitNearEqual(iota([3]), 1.5), RangeError);
});

// --- slice()

Deno.test("slice() takes a box with Python clamping and negatives", () => {
  const x = iota([3, 4]);
  assertEquals(slice(x, [0, 1], [1, 1], [3, 3]).toNested(), [[5, 6], [9, 10]]);
  assertEquals(slice(x, [1], [-2], [10_000]).toNested(), [[2, 3], [6, 7], [
    10,
    11,
  ]]);
  assertEquals(slice(x, [0], [-100], [-2]).toNested(), [[0, 1, 2, 3]]);
  assertEquals(slice(x, [-1], [0], [1]).toNested(), [[0], [4], [8]]);
});

Deno.test("slice() gives an empty dim when end is before start", () => {
  assertEquals(slice(iota([4]), [0], [3], [1]).shape, [0]);
  assertEquals(slice(iota([4]), [0], [5], [9]).shape, [0]);
});

Deno.test("slice() returns the input itself for a full slice", () => {
  const x = iota([2, 2]);
  assertEquals(slice(x, [0], [0], [2]) === x, true);
});

Deno.test("slice() rejects mismatched lists and a bad axis", () => {
  const x = iota([2, 2]);
  assertThrows(() => slice(x, [0], [0, 1], [1]), RangeError);
  assertThrows(() => slice(x, [2], [0], [1]), RangeError);
});

// --- gather()

Deno.test("gather() picks rows by index", () => {
  const x = Tensor.fromArray([[1, 2], [3, 4], [5, 6]], "float32");
  assertEquals(gather(x, Tensor.fromArray([2, 0, 2], "int32")).toNested(), [
    [5, 6],
    [1, 2],
    [5, 6],
  ]);
  assertEquals(gather(x, Tensor.fromArray([[1], [0]], "int64")).toNested(), [[
    3,
    4,
  ], [1, 2]]);
  assertEquals(gather(x, Tensor.fromArray([1], "int64", [])).toNested(), [[
    3,
    4,
  ]]);
  assertEquals(gather(x, Tensor.zeros([0], "int32")).shape, [0, 2]);
});

Deno.test("gather() picks along axis 1", () => {
  const x = iota([2, 3, 2]);
  const out = gather(x, Tensor.fromArray([2, 0], "int64"), 1);
  assertEquals(out.toNested(), [[[4, 5], [0, 1]], [[10, 11], [6, 7]]]);
});

Deno.test("gather() rejects out-of-range and non-integer indices", () => {
  const x = iota([3]);
  assertThrows(() => gather(x, Tensor.fromArray([3], "int32")), RangeError);
  assertThrows(() => gather(x, Tensor.fromArray([-1], "int32")), RangeError);
  assertThrows(() => gather(x, Tensor.fromArray([0], "float32")), TypeError);
  assertThrows(() => gather(x, Tensor.fromArray([0], "int32"), 1), RangeError);
});

Deno.test("broadcastTo() repeats dims of 1 and adds leading dims, as NumPy's broadcast_to", () => {
  const x = iota([2, 1]);
  assertEquals(broadcastTo(x, [2, 3]).toNested(), [[0, 0, 0], [1, 1, 1]]);
  assertEquals(broadcastTo(x, [2, 2, 1]).toNested(), [[[0], [1]], [[0], [1]]]);
  assertEquals(broadcastTo(iota([], "int64"), [2]).toNested(), [0n, 0n]);
  assertEquals(broadcastTo(iota([1, 3]), [0, 3]).shape, [0, 3]);
});

Deno.test("broadcastTo() refuses a dim that is neither 1 nor the target's, and a lower rank", () => {
  assertThrows(
    () => broadcastTo(iota([2, 3]), [4, 3]),
    RangeError,
    "broadcastTo: cannot broadcast [2, 3] to [4, 3]",
  );
  assertThrows(() => broadcastTo(iota([2, 3]), [3]), RangeError);
});
