import { assertAlmostEquals, assertEquals, assertThrows } from "@std/assert";
import {
  fill,
  gaussianRandom,
  range,
  uniformRandom,
} from "../../../kernels/cpu/fill.ts";
import { DTYPES } from "../../../kernels/dtype.ts";

// A fixed list of draws, repeated: not random, but enough to pin results.
function draws(values: number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length];
}

Deno.test("fill() fills every dtype", () => {
  for (const dtype of DTYPES) {
    const t = fill([2, 2], dtype, 1);
    assertEquals([t.dtype, t.shape], [dtype, [2, 2]]);
    assertEquals([...t.data].every((v) => v === 1 || v === 1n), true);
  }
  assertEquals(fill([1], "int64", 2n ** 62n + 1n).item(), 2n ** 62n + 1n);
  assertEquals(fill([], "bool", false).toNested(), false);
  assertEquals(fill([0], "float32", 3).size, 0);
});

Deno.test("range() counts up and down like arange", () => {
  assertEquals(range(0, 5, 1, "int32").toNested(), [0, 1, 2, 3, 4]);
  assertEquals(range(5, 0, -2, "int32").toNested(), [5, 3, 1]);
  assertEquals(range(0, 1, 0.25, "float32").toNested(), [0, 0.25, 0.5, 0.75]);
  assertEquals(range(0, 0.3, 0.1, "float64").size, 3);
});

Deno.test("range() is empty when the step points away from end", () => {
  assertEquals(range(5, 0, 1, "int32").shape, [0]);
  assertEquals(range(0, 5, -1, "int64").shape, [0]);
  assertEquals(range(3, 3, 1, "float32").shape, [0]);
});

Deno.test("range() keeps int64 exact beyond 2^53", () => {
  const t = range(2n ** 60n, 2n ** 60n + 5n, 2n, "int64");
  assertEquals(t.toNested(), [2n ** 60n, 2n ** 60n + 2n, 2n ** 60n + 4n]);
  assertEquals(range(0, 10, 4, "int64").toNested(), [0n, 4n, 8n]);
});

Deno.test("range() rounds float32 elements", () => {
  assertEquals(range(0.1, 0.2, 1, "float32").item(), Math.fround(0.1));
});

Deno.test("range() rejects a zero step, infinite bounds and bool", () => {
  assertThrows(() => range(0, 5, 0, "int32"), RangeError);
  assertThrows(() => range(0n, 5n, 0n, "int64"), RangeError);
  assertThrows(() => range(0, Infinity, 1, "float32"), RangeError);
  assertThrows(() => range(0, 2, 1, "bool"), TypeError);
});

Deno.test("uniformRandom() maps draws into [min, max)", () => {
  const t = uniformRandom([4], "float64", -2, 2, draws([0, 0.25, 0.5, 0.75]));
  assertEquals(t.toNested(), [-2, -1, 0, 1]);
  const f = uniformRandom([1], "float32", 0, 1, draws([0.1]));
  assertEquals(f.item(), Math.fround(0.1));
});

Deno.test("uniformRandom() floors for integer dtypes", () => {
  const t = uniformRandom([4], "int64", 0, 10, draws([0, 0.19, 0.5, 0.999]));
  assertEquals(t.toNested(), [0n, 1n, 5n, 9n]);
  assertEquals(uniformRandom([1], "int32", -3, 3, draws([0.01])).item(), -3);
  assertThrows(() => uniformRandom([1], "bool", 0, 1, draws([0])), TypeError);
});

Deno.test("gaussianRandom() applies Box–Muller to pairs of draws", () => {
  const t = gaussianRandom([3], "float64", 1, 2, draws([0.5, 0.25]));
  const radius = Math.sqrt(-2 * Math.log(0.5)) * 2;
  const [a, b, c] = t.toNested() as number[];
  assertAlmostEquals(a, 1 + radius * Math.cos(Math.PI / 2));
  assertAlmostEquals(b, 1 + radius);
  assertAlmostEquals(c, a);
});

Deno.test("gaussianRandom() gives the asked mean and deviation", () => {
  const t = gaussianRandom([20_000], "float32", 3, 0.5, Math.random);
  const values = [...t.data] as number[];
  const mean = values.reduce((s, v) => s + v) / values.length;
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) /
    values.length;
  assertAlmostEquals(mean, 3, 0.05);
  assertAlmostEquals(Math.sqrt(variance), 0.5, 0.05);
});

Deno.test("gaussianRandom() rejects integer dtypes", () => {
  assertThrows(
    () => gaussianRandom([1], "int32", 0, 1, Math.random),
    TypeError,
  );
});
