import { assertEquals, assertThrows } from "@std/assert";
import {
  checkedShapeSize,
  contiguousStrides,
  formatShape,
  normalizeAxis,
  sameShape,
  shapeSize,
} from "../../kernels/_shape.ts";

Deno.test("shapeSize() multiplies dims, 1 for rank 0 and 0 for empty", () => {
  assertEquals(shapeSize([2, 3, 4]), 24);
  assertEquals(shapeSize([]), 1);
  assertEquals(shapeSize([3, 0]), 0);
});

Deno.test("contiguousStrides() gives row-major strides", () => {
  assertEquals(contiguousStrides([2, 3, 4]), [12, 4, 1]);
  assertEquals(contiguousStrides([5]), [1]);
  assertEquals(contiguousStrides([]), []);
});

Deno.test("normalizeAxis() maps negative axes and rejects out-of-range ones", () => {
  assertEquals(normalizeAxis(-1, 3, "concat"), 2);
  assertEquals(normalizeAxis(0, 1, "concat"), 0);
  assertThrows(
    () => normalizeAxis(3, 3, "concat"),
    RangeError,
    "concat: axis 3",
  );
  assertThrows(() => normalizeAxis(-4, 3, "concat"), RangeError);
  assertThrows(() => normalizeAxis(0.5, 3, "concat"), RangeError);
});

Deno.test("sameShape() compares rank and dims", () => {
  assertEquals(sameShape([], []), true);
  assertEquals(sameShape([1], []), false);
  assertEquals(sameShape([2, 3], [2, 4]), false);
});

Deno.test("formatShape() brackets the dims", () => {
  assertEquals(formatShape([2, 3]), "[2, 3]");
  assertEquals(formatShape([0]), "[0]");
});

Deno.test("checkedShapeSize() refuses dims that are negative, fractional or NaN, and sizes past a typed array's", () => {
  assertEquals(checkedShapeSize([2, 3]), 6);
  assertEquals(checkedShapeSize([]), 1);
  assertEquals(checkedShapeSize([0, 5]), 0);
  assertThrows(() => checkedShapeSize([-2, -3]), RangeError, "dim 0 is -2");
  assertThrows(() => checkedShapeSize([1.5]), RangeError, "dim 0 is 1.5");
  assertThrows(() => checkedShapeSize([NaN]), RangeError, "dim 0 is NaN");
  assertThrows(
    () => checkedShapeSize([65536, 65536]),
    RangeError,
    "shape [65536, 65536]: 4294967296 elements, more than a tensor may hold (4294967295)",
  );
});
