import { assertEquals, assertThrows } from "@std/assert";
import { parseCsvRows } from "../../kernels/csv.ts";

Deno.test("parseCsvRows() skips a header of non-numbers", () => {
  const t = parseCsvRows("a,b\n1,2\n3,4\n", "float32");
  assertEquals([t.shape, t.toNested()], [[2, 2], [[1, 2], [3, 4]]]);
});

Deno.test("parseCsvRows() reads a first line of numbers as data", () => {
  const t = parseCsvRows("1.5,-2\n3e2,4", "float64");
  assertEquals(t.toNested(), [[1.5, -2], [300, 4]]);
});

Deno.test("parseCsvRows() reads start and count rows after the header", () => {
  const text = "x\n0\n1\n2\n3\n4\n";
  assertEquals(parseCsvRows(text, "int32", { start: 1, count: 2 }).toNested(), [
    [1],
    [2],
  ]);
  assertEquals(parseCsvRows(text, "int32", { start: 3 }).toNested(), [[3], [
    4,
  ]]);
  assertEquals(
    parseCsvRows(text, "int32", { start: 4, count: 10 }).toNested(),
    [[4]],
  );
  assertEquals(parseCsvRows(text, "int32", { start: 9 }).shape, [0, 1]);
});

Deno.test("parseCsvRows() trims fields and skips blank lines and CRs", () => {
  const t = parseCsvRows(" a , b \r\n\r\n 1 , 2 \r\n\n3,4\r\n", "int64");
  assertEquals(t.toNested(), [[1n, 2n], [3n, 4n]]);
});

Deno.test("parseCsvRows() reads int64 exactly beyond 2^53", () => {
  const t = parseCsvRows("9007199254740993,-9223372036854775808", "int64");
  assertEquals(t.toNested(), [[2n ** 53n + 1n, -(2n ** 63n)]]);
  assertThrows(() => parseCsvRows("9223372036854775808", "int64"), RangeError);
});

Deno.test("parseCsvRows() reads nan and inf in any case", () => {
  const t = parseCsvRows("nan,inf,-Inf,NaN,Infinity", "float32");
  assertEquals(t.toNested(), [[NaN, Infinity, -Infinity, NaN, Infinity]]);
});

Deno.test("parseCsvRows() converts to bool and rounds to float32", () => {
  assertEquals(parseCsvRows("0,2", "bool").toNested(), [[false, true]]);
  assertEquals(parseCsvRows("0.1", "float32").item(), Math.fround(0.1));
});

Deno.test("parseCsvRows() gives [0, 0] for empty text and [0, n] for a header alone", () => {
  assertEquals(parseCsvRows("", "float32").shape, [0, 0]);
  assertEquals(parseCsvRows("a,b,c\n", "float32").shape, [0, 3]);
});

Deno.test("parseCsvRows() names the line of a ragged row", () => {
  assertThrows(
    () => parseCsvRows("a,b\n1,2\n3\n", "float32"),
    RangeError,
    "line 3",
  );
  assertThrows(
    () => parseCsvRows("1,2\n\n3,4,5", "float32"),
    RangeError,
    "line 3",
  );
});

Deno.test("parseCsvRows() names the line of a field that is not a number", () => {
  assertThrows(
    () => parseCsvRows("1,2\n3,x\n", "float64"),
    RangeError,
    "line 2, field 2",
  );
  assertThrows(
    () => parseCsvRows("1,2\n3,\n", "float64"),
    RangeError,
    "line 2",
  );
});
