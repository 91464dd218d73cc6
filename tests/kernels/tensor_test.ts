import { assertEquals, assertThrows } from "@std/assert";
import { DTYPES } from "../../kernels/dtype.ts";
import { Tensor } from "../../kernels/tensor.ts";

Deno.test("Tensor.fromArray() infers the shape from nesting", () => {
  const t = Tensor.fromArray([[[1], [2]], [[3], [4]]], "int32");
  assertEquals(t.shape, [2, 2, 1]);
  assertEquals(t.rank, 3);
  assertEquals(t.size, 4);
  assertEquals([...t.data], [1, 2, 3, 4]);
});

Deno.test("Tensor.fromArray() reads flat values into an explicit shape", () => {
  const t = Tensor.fromArray([1, 2, 3, 4, 5, 6], "float64", [3, 2]);
  assertEquals(t.toNested(), [[1, 2], [3, 4], [5, 6]]);
  const typed = Tensor.fromArray(new Int32Array([7, 8]), "int64", [2, 1]);
  assertEquals(typed.toNested(), [[7n], [8n]]);
});

Deno.test("Tensor.fromArray() rejects ragged nesting and a wrong count", () => {
  assertThrows(() => Tensor.fromArray([[1, 2], [3]], "int32"), RangeError);
  assertThrows(() => Tensor.fromArray([[1, 2], 3], "int32"), RangeError);
  assertThrows(() => Tensor.fromArray([1, 2, 3], "int32", [2, 2]), RangeError);
});

Deno.test("Tensor.fromArray() builds rank-0 and empty tensors", () => {
  const scalar = Tensor.fromArray([5], "float32", []);
  assertEquals([scalar.shape, scalar.size, scalar.toNested()], [[], 1, 5]);
  const empty = Tensor.fromArray([], "float32");
  assertEquals([empty.shape, empty.size, empty.toNested()], [[0], 0, []]);
  const rows = Tensor.fromArray([[], []], "int32");
  assertEquals([rows.shape, rows.toNested()], [[2, 0], [[], []]]);
});

Deno.test("Tensor.fromArray() keeps int64 exact and converts other values", () => {
  const t = Tensor.fromArray(
    [2n ** 63n - 1n, -(2n ** 63n), -2.9, true],
    "int64",
  );
  assertEquals(t.toNested(), [2n ** 63n - 1n, -(2n ** 63n), -2n, 1n]);
  const b = Tensor.fromArray([0, 3, NaN, false], "bool");
  assertEquals(b.toNested(), [false, true, true, false]);
  assertEquals([...b.data], [0, 1, 1, 0]);
  assertEquals(Tensor.fromArray([0.1], "float16").item(), Math.f16round(0.1));
});

Deno.test("Tensor.scalar() has shape [1] in every dtype", () => {
  for (const d of DTYPES) {
    const t = Tensor.scalar(1, d);
    assertEquals([t.dtype, t.shape, t.size], [d, [1], 1]);
  }
  assertEquals(Tensor.scalar(2n ** 60n + 1n, "int64").item(), 2n ** 60n + 1n);
});

Deno.test("Tensor.zeros() and Tensor.full() fill every dtype", () => {
  assertEquals(Tensor.zeros([2], "int64").toNested(), [0n, 0n]);
  assertEquals(Tensor.full([2], "int64", 2n ** 62n).toNested(), [
    2n ** 62n,
    2n ** 62n,
  ]);
  assertEquals(Tensor.full([1, 2], "bool", true).toNested(), [[true, true]]);
  assertEquals(
    Tensor.full([3], "float32", 0.1).toNested(),
    new Array(3).fill(Math.fround(0.1)),
  );
  assertEquals(Tensor.full([0], "float32", 1).size, 0);
  assertEquals(Tensor.full([], "int8", 300).toNested(), 44);
});

Deno.test("Tensor.item() returns each dtype's JS type", () => {
  assertEquals(Tensor.scalar(3, "int64").item(), 3n);
  assertEquals(Tensor.scalar(3, "bool").item(), true);
  assertEquals(Tensor.scalar(3, "uint8").item(), 3);
  assertEquals(Tensor.fromArray([1, 2, 3], "int32").item(2), 3);
});

Deno.test("Tensor.item() rejects an index out of range", () => {
  const t = Tensor.fromArray([1, 2], "int32");
  assertThrows(() => t.item(2), RangeError);
  assertThrows(() => t.item(-1), RangeError);
  assertThrows(() => t.item(0.5), RangeError);
  assertThrows(() => Tensor.zeros([0], "int32").item(), RangeError);
});

Deno.test("Tensor() checks the storage against dtype and shape", () => {
  assertThrows(
    () => new Tensor("float32", [2], new Float64Array(2)),
    TypeError,
  );
  assertThrows(
    () => new Tensor("int64", [1], new Int32Array(1) as never),
    TypeError,
  );
  assertThrows(
    () => new Tensor("float32", [3], new Float32Array(2)),
    RangeError,
  );
  assertThrows(
    () => new Tensor("float32", [-1], new Float32Array(0)),
    RangeError,
  );
  assertThrows(
    () => new Tensor("float32", [1.5], new Float32Array(1)),
    RangeError,
  );
  const bool = new Tensor("bool", [2], new Uint8Array([1, 0]));
  assertEquals(bool.toNested(), [true, false]);
});

Deno.test("Tensor.toNested() nests once per dim", () => {
  const t = Tensor.fromArray([1, 2, 3, 4, 5, 6, 7, 8], "uint8", [2, 2, 2]);
  assertEquals(t.toNested(), [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]);
  assertEquals(Tensor.zeros([1, 0, 2], "int32").toNested(), [[]]);
});
