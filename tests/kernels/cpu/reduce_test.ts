import { assertAlmostEquals, assertEquals, assertThrows } from "@std/assert";
import { addN, mean, reduce, softmax } from "../../../kernels/cpu/reduce.ts";
import type { ReduceKind } from "../../../kernels/kernel_kinds.ts";
import { Tensor } from "../../../kernels/tensor.ts";

const X = [[1, 2, 3], [4, 5, 6]];

const ROWS: Record<ReduceKind, number[]> = {
  sum: [6, 15],
  mean: [2, 5],
  max: [3, 6],
  min: [1, 4],
  prod: [6, 120],
};

for (const kind of Object.keys(ROWS) as ReduceKind[]) {
  for (const dtype of ["int32", "float32", "float64", "int8"] as const) {
    Deno.test(`reduce() computes "${kind}" over dim 1 of ${dtype} [2, 3]`, () => {
      const out = reduce(kind, Tensor.fromArray(X, dtype), { dims: [1] });
      assertEquals([out.dtype, out.shape], [dtype, [2]]);
      assertEquals(out.toNested(), ROWS[kind]);
    });
  }
  Deno.test(`reduce() computes "${kind}" over dim -1 of int64 [2, 3]`, () => {
    const out = reduce(kind, Tensor.fromArray(X, "int64"), { dims: [-1] });
    assertEquals(out.toNested(), ROWS[kind].map(BigInt));
  });
}

Deno.test("reduce() reduces non-adjacent dims of [2, 3, 4]", () => {
  const values = Array.from({ length: 24 }, (_, i) => i);
  const x = Tensor.fromArray(values, "int32", [2, 3, 4]);
  const expected = [0, 1, 2].map((j) =>
    values.filter((_, i) => Math.floor(i / 4) % 3 === j).reduce((a, b) => a + b)
  );
  assertEquals(reduce("sum", x, { dims: [0, 2] }).toNested(), expected);
  assertEquals(reduce("sum", x, { dims: [2, 0, -1] }).toNested(), expected);
  assertEquals(reduce("sum", x, { dims: [0, 2], keepDim: true }).shape, [
    1,
    3,
    1,
  ]);
});

Deno.test("reduce() reduces everything for reduceAll or empty dims", () => {
  const x = Tensor.fromArray(X, "float32");
  assertEquals(reduce("sum", x).toNested(), [21]);
  assertEquals(reduce("sum", x, { dims: [0], reduceAll: true }).shape, [1]);
  assertEquals(
    reduce("max", x, { reduceAll: true, keepDim: true }).toNested(),
    [[6]],
  );
});

Deno.test("reduce() keeps reduced dims as 1 with keepDim", () => {
  const out = reduce("min", Tensor.fromArray(X, "int32"), {
    dims: [0],
    keepDim: true,
  });
  assertEquals(out.toNested(), [[1, 2, 3]]);
});

Deno.test("reduce() turns a rank-0 tensor into shape [1]", () => {
  const s = Tensor.fromArray([4], "float32", []);
  assertEquals(reduce("sum", s).shape, [1]);
  assertEquals(reduce("sum", s, { keepDim: true }).shape, []);
});

Deno.test("reduce() truncates integer means toward zero", () => {
  assertEquals(reduce("mean", Tensor.fromArray([1, 2], "int32")).toNested(), [
    1,
  ]);
  assertEquals(reduce("mean", Tensor.fromArray([-1, -2], "int32")).toNested(), [
    -1,
  ]);
  assertEquals(
    reduce("mean", Tensor.fromArray([-1n, -2n], "int64")).toNested(),
    [-1n],
  );
});

Deno.test("reduce() keeps int64 exact beyond 2^53", () => {
  const x = Tensor.fromArray([2n ** 53n, 1n, 1n], "int64");
  assertEquals(reduce("sum", x).item(), 2n ** 53n + 2n);
  assertEquals(
    reduce("prod", Tensor.fromArray([2n ** 31n, 2n ** 31n], "int64")).item(),
    2n ** 62n,
  );
  assertEquals(
    reduce("max", Tensor.fromArray([-(2n ** 63n)], "int64")).item(),
    -(2n ** 63n),
  );
});

Deno.test("reduce() wraps int32 products and sums as C does", () => {
  assertEquals(
    reduce("prod", Tensor.fromArray([65536, 65536, 3], "int32")).item(),
    0,
  );
  const max = 2 ** 31 - 1;
  assertEquals(
    reduce("sum", Tensor.fromArray([max, 1], "int32")).item(),
    -(2 ** 31),
  );
  assertEquals(reduce("sum", Tensor.fromArray([100, 100], "int8")).item(), -56);
});

Deno.test("reduce() sums float32 in float64 and rounds once", () => {
  const tenth = Math.fround(0.1);
  let exact = 0;
  for (let i = 0; i < 10; i++) exact += tenth;
  const out = reduce("sum", Tensor.full([10], "float32", 0.1));
  assertEquals(out.item(), Math.fround(exact));
});

Deno.test("reduce() propagates NaN through max and min", () => {
  const x = Tensor.fromArray([1, NaN, 3], "float64");
  assertEquals(reduce("max", x).item(), NaN);
  assertEquals(reduce("min", x).item(), NaN);
});

Deno.test("reduce() gives bool sum int64, mean float32, max bool", () => {
  const x = Tensor.fromArray([true, false, true, true], "bool");
  assertEquals([reduce("sum", x).dtype, reduce("sum", x).item()], [
    "int64",
    3n,
  ]);
  assertEquals([reduce("mean", x).dtype, reduce("mean", x).item()], [
    "float32",
    0.75,
  ]);
  assertEquals([reduce("max", x).dtype, reduce("max", x).item()], [
    "bool",
    true,
  ]);
  assertEquals(reduce("min", x).item(), false);
  assertEquals(reduce("prod", x).item(), 0n);
});

Deno.test("reduce() handles empty dims", () => {
  const x = Tensor.zeros([0, 3], "float32");
  assertEquals(reduce("sum", x, { dims: [0] }).toNested(), [0, 0, 0]);
  assertEquals(reduce("prod", x, { dims: [0] }).toNested(), [1, 1, 1]);
  assertEquals(reduce("mean", x).item(), NaN);
  assertEquals(reduce("sum", x, { dims: [1] }).shape, [0]);
  assertThrows(() => reduce("max", x, { dims: [0] }), RangeError);
  assertThrows(() => reduce("mean", Tensor.zeros([0], "int32")), RangeError);
});

Deno.test("reduce() rejects a dim out of range and an unknown kind", () => {
  const x = Tensor.zeros([2, 3], "float32");
  assertThrows(() => reduce("sum", x, { dims: [2] }), RangeError);
  assertThrows(() => reduce("sum", x, { dims: [-3] }), RangeError);
  assertThrows(() => reduce("median" as ReduceKind, x), TypeError);
});

Deno.test("softmax() normalises along the last axis", () => {
  const out = softmax(Tensor.fromArray([[0, Math.log(3)], [1, 1]], "float64"));
  const [[a, b], [c, d]] = out.toNested() as number[][];
  assertAlmostEquals(a, 0.25);
  assertAlmostEquals(b, 0.75);
  assertEquals([c, d], [0.5, 0.5]);
});

Deno.test("softmax() normalises along axis 0", () => {
  const out = softmax(Tensor.fromArray([[1, 5], [1, 5]], "float32"), 0);
  assertEquals(out.toNested(), [[0.5, 0.5], [0.5, 0.5]]);
});

Deno.test("softmax() does not overflow on large inputs", () => {
  const out = softmax(Tensor.fromArray([1000, 1000], "float32"));
  assertEquals(out.toNested(), [0.5, 0.5]);
});

Deno.test("softmax() rounds float32 results and turns integers into float32", () => {
  const x = Tensor.fromArray([0, 1, 2], "int32");
  const out = softmax(x);
  const e = [0, 1, 2].map((v) => Math.exp(v - 2));
  const total = e.reduce((p, v) => p + v);
  assertEquals(out.dtype, "float32");
  assertEquals(out.toNested(), e.map((v) => Math.fround(v / total)));
});

Deno.test("softmax() handles rank 0, [0] and a bad axis", () => {
  assertEquals(softmax(Tensor.fromArray([7], "float64", [])).toNested(), 1);
  assertEquals(softmax(Tensor.zeros([0], "float32")).shape, [0]);
  assertThrows(() => softmax(Tensor.zeros([2], "float32"), 1), RangeError);
});

Deno.test("addN() adds many same-shape tensors", () => {
  const a = Tensor.fromArray([1, 2], "int32");
  const b = Tensor.fromArray([10, 20], "int32");
  assertEquals(addN([a, b, a]).toNested(), [12, 24]);
  assertEquals(addN([a]).toNested(), [1, 2]);
});

Deno.test("addN() rounds each partial sum in float32 and promotes dtypes", () => {
  const t = Tensor.scalar(0.1, "float32");
  const f = Math.fround;
  assertEquals(addN([t, t, t]).item(), f(f(f(0.1) + f(0.1)) + f(0.1)));
  const mixed = addN([
    Tensor.scalar(1n, "int64"),
    Tensor.scalar(0.5, "float64"),
  ]);
  assertEquals([mixed.dtype, mixed.item()], ["float64", 1.5]);
});

Deno.test("addN() rejects no inputs and differing shapes", () => {
  assertThrows(() => addN([]), RangeError);
  assertThrows(
    () => addN([Tensor.zeros([2], "float32"), Tensor.zeros([1], "float32")]),
    RangeError,
  );
});

Deno.test("mean() averages everything into shape [1]", () => {
  const out = mean(Tensor.fromArray([[1, 2], [3, 4]], "float32"));
  assertEquals([out.shape, out.item()], [[1], 2.5]);
  assertEquals(
    mean(Tensor.fromArray([2n ** 60n, 2n ** 60n], "int64")).item(),
    2n ** 60n,
  );
});
