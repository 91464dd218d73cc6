import {
  assert,
  assertAlmostEquals,
  assertEquals,
  assertNotEquals,
  assertThrows,
} from "@std/assert";
import {
  fill,
  gaussianRandom,
  range,
  uniformRandom,
} from "../../../kernels/cpu/fill.ts";
import {
  type CounterKey,
  randomBlock,
  unitFloat,
} from "../../../kernels/counter_random.ts";
import { DTYPES } from "../../../kernels/dtype.ts";

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

// Element i's [0, 1) draw of a key: word i of its counter stream.
function draw(key: CounterKey, i: number): number {
  return unitFloat(randomBlock(key, Math.floor(i / 4))[i % 4]);
}

const KEY: CounterKey = [0x2545f491, 7];

Deno.test("uniformRandom() maps element i's draw into [min, max)", () => {
  const t = uniformRandom([9], "float64", -2, 2, KEY);
  for (let i = 0; i < 9; i++) {
    assertEquals(t.item(i), -2 + 4 * draw(KEY, i));
  }
  assert([...t.data].every((v) => v >= -2 && v < 2));
});

Deno.test("uniformRandom() rounds float32 after the product and after the sum", () => {
  const [min, max] = [0.1, 0.7];
  const t = uniformRandom([1001], "float32", min, max, KEY);
  const lo = Math.fround(min);
  const span = Math.fround(Math.fround(max) - lo);
  for (let i = 0; i < t.size; i++) {
    const product = Math.fround(span * draw(KEY, i));
    assertEquals(t.item(i), Math.fround(product + lo), `element ${i}`);
  }
});

Deno.test("uniformRandom() is a function of the key and the position", () => {
  const a = uniformRandom([2, 50], "float32", -1, 1, KEY);
  assertEquals(
    a.toNested(),
    uniformRandom([2, 50], "float32", -1, 1, KEY).toNested(),
  );
  // A shorter fill is a prefix of a longer one.
  const prefix = uniformRandom([7], "float32", -1, 1, KEY);
  assertEquals([...prefix.data], [...a.data].slice(0, 7));
  const other = uniformRandom([2, 50], "float32", -1, 1, [KEY[0] + 1, KEY[1]]);
  assertNotEquals(other.toNested(), a.toNested());
});

Deno.test("uniformRandom() floors for integer dtypes", () => {
  const t = uniformRandom([40], "int64", 0, 10, KEY);
  for (let i = 0; i < 40; i++) {
    assertEquals(t.item(i), BigInt(Math.floor(10 * draw(KEY, i))));
  }
  const small = uniformRandom([40], "int32", -3, 3, KEY);
  assert([...small.data as Int32Array].every((v) => v >= -3 && v < 3));
  assertEquals(new Set(small.data as Int32Array).size, 6);
  assertThrows(() => uniformRandom([1], "bool", 0, 1, KEY), TypeError);
});

Deno.test("gaussianRandom() applies Box–Muller to pairs of positions", () => {
  const t = gaussianRandom([5], "float64", 1, 2, KEY);
  for (let i = 0; i < 5; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - draw(KEY, i)));
    const angle = 2 * Math.PI * draw(KEY, i + 1);
    assertEquals(t.item(i), 1 + 2 * (r * Math.cos(angle)));
    if (i + 1 < 5) assertEquals(t.item(i + 1), 1 + 2 * (r * Math.sin(angle)));
  }
});

Deno.test("gaussianRandom() gives the asked mean and deviation, within 5.8 std", () => {
  const t = gaussianRandom([20_000], "float32", 3, 0.5, KEY);
  const values = [...t.data] as number[];
  const mean = values.reduce((s, v) => s + v) / values.length;
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) /
    values.length;
  assertAlmostEquals(mean, 3, 0.05);
  assertAlmostEquals(Math.sqrt(variance), 0.5, 0.05);
  assert(values.every((v) => Math.abs(v - 3) <= 5.8 * 0.5));
  assertEquals(
    t.toNested(),
    gaussianRandom([20_000], "float32", 3, 0.5, KEY).toNested(),
  );
});

Deno.test("gaussianRandom() rejects integer dtypes", () => {
  assertThrows(() => gaussianRandom([1], "int32", 0, 1, KEY), TypeError);
});
