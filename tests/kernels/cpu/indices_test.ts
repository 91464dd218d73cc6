import { assertEquals, assertThrows } from "@std/assert";
import { argMax, oneHot, topK } from "../../../kernels/cpu/indices.ts";
import { Tensor } from "../../../kernels/tensor.ts";

const x = Tensor.fromArray([[1, 5, 5, -2], [7, NaN, 2, 7]], "float32");

Deno.test("argMax() gives the first largest along an axis, NaN counting as largest", () => {
  assertEquals(argMax(x, 1, "int64").toNested(), [1n, 1n]);
  assertEquals(argMax(x, -2, "int32").toNested(), [1, 1, 0, 1]);
  assertEquals(argMax(Tensor.fromArray([3], "int64"), 0, "int32").shape, []);
  const big = Tensor.fromArray([2n ** 60n, 2n ** 60n + 1n], "int64");
  assertEquals(argMax(big, 0, "int64").toNested(), 1n);
});

Deno.test("argMax() refuses an empty axis and a float dtype", () => {
  assertThrows(
    () => argMax(Tensor.zeros([2, 0], "float32"), 1, "int64"),
    RangeError,
  );
  assertThrows(() => argMax(x, 0, "float32"), TypeError);
});

Deno.test("topK() orders values, ties by position and NaN first when largest", () => {
  const [values, indices] = topK(x, 3, 1);
  assertEquals(values.toNested(), [[5, 5, 1], [NaN, 7, 7]]);
  assertEquals(indices.toNested(), [[1n, 2n, 0n], [1n, 0n, 3n]]);
  const [small, where] = topK(x, 2, -1, false);
  assertEquals(small.toNested(), [[-2, 1], [2, 7]]);
  assertEquals(where.toNested(), [[3n, 0n], [2n, 0n]]);
  const [down] = topK(x, 1, 0);
  assertEquals(down.toNested(), [[7, NaN, 5, 7]]);
  assertThrows(() => topK(x, 5, 1), RangeError, "topK: k 5 is not in [0, 4]");
});

Deno.test("oneHot() appends a dim of depth, zeros or a refusal out of range", () => {
  const i = Tensor.fromArray([[1], [3]], "int32");
  assertEquals(oneHot(i, 4, "int64").toNested(), [[[0n, 1n, 0n, 0n]], [[
    0n,
    0n,
    0n,
    1n,
  ]]]);
  const out = Tensor.fromArray([4, -1, 0], "int64");
  assertEquals(oneHot(out, 2, "float32", true).toNested(), [[0, 0], [0, 0], [
    1,
    0,
  ]]);
  assertThrows(
    () => oneHot(out, 2, "float32"),
    RangeError,
    "oneHot: position 4 is out of range for depth 2",
  );
  assertThrows(() => oneHot(x, 2, "float32"), TypeError);
});
