import { assertEquals, assertThrows } from "@std/assert";
import { broadcastShapes, planBroadcast } from "../../kernels/broadcast.ts";

Deno.test("broadcastShapes() follows NumPy's rule", () => {
  assertEquals(broadcastShapes([2, 3], [3]), [2, 3]);
  assertEquals(broadcastShapes([3], [2, 3]), [2, 3]);
  assertEquals(broadcastShapes([2, 1], [1, 3]), [2, 3]);
  assertEquals(broadcastShapes([4, 1, 5], [3, 1]), [4, 3, 5]);
  assertEquals(broadcastShapes([], [2, 2]), [2, 2]);
  assertEquals(broadcastShapes([], []), []);
});

Deno.test("broadcastShapes() broadcasts a 1 against 0 and keeps 0", () => {
  assertEquals(broadcastShapes([0], [1]), [0]);
  assertEquals(broadcastShapes([2, 0], [2, 1]), [2, 0]);
  assertThrows(() => broadcastShapes([0], [2]), RangeError);
});

Deno.test("broadcastShapes() rejects [2, 3] with [4]", () => {
  assertThrows(
    () => broadcastShapes([2, 3], [4]),
    RangeError,
    "[2, 3] and [4]",
  );
});

Deno.test("broadcastShapes() aligns Y to X from Paddle's axis", () => {
  assertEquals(broadcastShapes([2, 3, 4], [3], 1), [2, 3, 4]);
  assertEquals(broadcastShapes([2, 3, 4], [2], 0), [2, 3, 4]);
  assertEquals(broadcastShapes([2, 3, 4], [3, 4], 1), [2, 3, 4]);
  assertEquals(broadcastShapes([2, 3, 4], [4], 2), [2, 3, 4]);
  // NumPy would refuse this pair; the axis makes it legal.
  assertThrows(() => broadcastShapes([2, 3, 4], [3]), RangeError);
});

Deno.test("broadcastShapes() drops Y's trailing 1s under Paddle's axis rule", () => {
  assertEquals(broadcastShapes([2, 3], [3, 1], 1), [2, 3]);
  assertEquals(broadcastShapes([2, 3, 4], [3, 1, 1], 1), [2, 3, 4]);
  assertEquals(broadcastShapes([2, 3], [1, 1], 1), [2, 3]);
});

Deno.test("broadcastShapes() aligns X to a higher-rank Y from the axis", () => {
  assertEquals(broadcastShapes([3], [2, 3, 4], 1), [2, 3, 4]);
});

Deno.test("broadcastShapes() rejects an axis that does not fit", () => {
  assertThrows(() => broadcastShapes([2, 3], [3], 2), RangeError);
  assertThrows(() => broadcastShapes([2, 3], [3, 2], 1), RangeError);
  assertThrows(() => broadcastShapes([2, 3], [3], -2), RangeError);
  assertThrows(() => broadcastShapes([2, 3], [3], 0), RangeError);
});

Deno.test("planBroadcast() gives 0 strides on broadcast dims", () => {
  const plan = planBroadcast([2, 1], [1, 3]);
  assertEquals(plan.shape, [2, 3]);
  assertEquals(plan.xStrides, [1, 0]);
  assertEquals(plan.yStrides, [0, 1]);
});

Deno.test("planBroadcast() gives strides for Paddle's axis", () => {
  const plan = planBroadcast([2, 3, 4], [3], 1);
  assertEquals(plan.xStrides, [12, 4, 1]);
  assertEquals(plan.yStrides, [0, 1, 0]);
});

Deno.test("planBroadcast() pads a lower-rank operand with leading 0 strides", () => {
  const plan = planBroadcast([4, 2, 3], [2, 3]);
  assertEquals(plan.yStrides, [0, 3, 1]);
});
