import { assertEquals } from "@std/assert";
import {
  formatFloat,
  formatStrings,
  formatTensor,
} from "../../kernels/tensor_format.ts";
import { Tensor } from "../../kernels/tensor.ts";

function show(
  values: number[],
  dtype: "float16" | "float32" | "float64",
): string[] {
  return values.map((v) => formatTensor(Tensor.scalar(v, dtype)));
}

Deno.test("formatTensor() prints float32 in the shortest form that reads back", () => {
  assertEquals(show([0.1, 2, 1.5, -0.25, 1 / 3, 16777217], "float32"), [
    "0.1",
    "2",
    "1.5",
    "-0.25",
    "0.33333334",
    "16777216",
  ]);
});

Deno.test("formatTensor() prints float32 sums in float32: 0.1 + 0.2 is 0.3", () => {
  const sum = Math.fround(Math.fround(0.1) + Math.fround(0.2));
  assertEquals(formatTensor(Tensor.scalar(sum, "float32")), "0.3");
  assertEquals(
    formatTensor(Tensor.scalar(0.1 + 0.2, "float64")),
    "0.30000000000000004",
  );
});

Deno.test("formatTensor() uses JS exponent style", () => {
  assertEquals(show([1e21, 1e-7, 1.5e-10, 3.4028234663852886e38], "float32"), [
    "1e+21",
    "1e-7",
    "1.5e-10",
    "3.4028235e+38",
  ]);
  assertEquals(show([1e21, 1e-7], "float64"), ["1e+21", "1e-7"]);
});

Deno.test("formatTensor() prints float16 in the shortest form that reads back", () => {
  assertEquals(show([0.1, 2, 65504, 1 / 3], "float16"), [
    "0.1",
    "2",
    "65500",
    "0.3333",
  ]);
});

Deno.test("formatTensor() prints float64 as JS does", () => {
  assertEquals(show([0.1, 2, 1 / 3, -0], "float64"), [
    "0.1",
    "2",
    "0.3333333333333333",
    "0",
  ]);
});

Deno.test("formatTensor() prints NaN and infinities in every float dtype", () => {
  for (const dtype of ["float16", "float32", "float64"] as const) {
    assertEquals(show([NaN, Infinity, -Infinity], dtype), [
      "NaN",
      "Infinity",
      "-Infinity",
    ]);
  }
});

Deno.test("formatTensor() prints bools and integers", () => {
  assertEquals(
    formatTensor(Tensor.fromArray([true, false], "bool")),
    "[true, false]",
  );
  assertEquals(
    formatTensor(Tensor.fromArray([-128, 127], "int8")),
    "[-128, 127]",
  );
  assertEquals(formatTensor(Tensor.fromArray([255], "uint8")), "255");
  assertEquals(
    formatTensor(Tensor.scalar(2n ** 63n - 1n, "int64")),
    "9223372036854775807",
  );
});

Deno.test("formatTensor() prints one element of rank <= 1 as a scalar", () => {
  assertEquals(formatTensor(Tensor.fromArray([7], "int32", [])), "7");
  assertEquals(formatTensor(Tensor.fromArray([7], "int32", [1])), "7");
  assertEquals(formatTensor(Tensor.fromArray([[7]], "int32")), "[[7]]");
});

Deno.test("formatTensor() nests other shapes", () => {
  assertEquals(
    formatTensor(Tensor.fromArray([[1, 2], [3, 4]], "int32")),
    "[[1, 2], [3, 4]]",
  );
  const cube = Tensor.fromArray([1, 2, 3, 4, 5, 6, 7, 8], "float32", [2, 2, 2]);
  assertEquals(formatTensor(cube), "[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]");
  assertEquals(
    formatTensor(Tensor.fromArray([0.1, 0.5], "float32")),
    "[0.1, 0.5]",
  );
});

Deno.test("formatTensor() prints empty tensors as []", () => {
  assertEquals(formatTensor(Tensor.zeros([0], "float32")), "[]");
  assertEquals(formatTensor(Tensor.zeros([2, 0], "int64")), "[]");
});

Deno.test("formatFloat() reads back in its own dtype", () => {
  for (let i = 0; i < 2000; i++) {
    const v = Math.fround((i - 1000) * 1.37e-3 * 10 ** ((i % 17) - 8));
    const text = formatFloat(v, "float32");
    assertEquals(Math.fround(Number(text)), v);
    assertEquals(text.length <= String(v).length, true);
  }
});

Deno.test("formatStrings() quotes and escapes like JSON", () => {
  assertEquals(formatStrings(["a", "b"]), '["a", "b"]');
  assertEquals(
    formatStrings(['say "hi"', "line\nbreak", "é"]),
    '["say \\"hi\\"", "line\\nbreak", "é"]',
  );
  assertEquals(formatStrings([]), "[]");
});
