import { assertEquals } from "@std/assert";
import {
  MIN_NORMAL_F32,
  TOLERANCE,
  ulpDistance,
  withinTolerance,
} from "../../../kernels/webgpu/tolerance.ts";
import { GPU_BINARY, GPU_UNARY } from "../../../kernels/webgpu/elementwise.ts";
import { GPU_REDUCE } from "../../../kernels/webgpu/reduce.ts";
import { COMPARE_KINDS } from "../../../kernels/device.ts";

Deno.test("TOLERANCE has an entry for every GPU kernel", () => {
  const ops = [
    ...GPU_BINARY.float32,
    ...GPU_UNARY,
    ...COMPARE_KINDS,
    ...GPU_REDUCE.float32.map((k) => `reduce_${k}`),
    "scale",
    "matmul",
    "softmax",
    "copy",
    "transpose",
    "concat",
    "split",
    "slice",
    "gather",
    "cast",
    "uniform_random",
    "gaussian_random",
  ];
  assertEquals(ops.filter((op) => TOLERANCE[op] === undefined), []);
});

Deno.test("TOLERANCE is exact for exactly rounded ops", () => {
  const ops = ["add", "sub", "mul", "max", "min", "copy", "equal"];
  for (
    const op of [
      ...ops,
      ...["transpose", "concat", "slice", "gather", "cast", "uniform_random"],
    ]
  ) {
    assertEquals(TOLERANCE[op], { kind: "exact" }, op);
  }
});

Deno.test("withinTolerance() keeps NaN, infinities and signed zeros apart", () => {
  const exact = TOLERANCE.add, loose = TOLERANCE.exp;
  assertEquals(withinTolerance(exact, NaN, NaN), true);
  assertEquals(withinTolerance(loose, NaN, 1), false);
  assertEquals(withinTolerance(loose, Infinity, 3.4e38), false);
  assertEquals(withinTolerance(loose, -Infinity, -Infinity), true);
  assertEquals(withinTolerance(exact, -0, 0), false);
  assertEquals(withinTolerance(exact, 0, MIN_NORMAL_F32 / 4), true);
  assertEquals(withinTolerance(exact, 1, 1 + 2 ** -23), false);
});

Deno.test("withinTolerance() applies ulp, close and scaled bounds", () => {
  assertEquals(ulpDistance(1, Math.fround(1 + 3 * 2 ** -23)), 3);
  assertEquals(withinTolerance(TOLERANCE.div, 1 + 3 * 2 ** -23, 1), true);
  assertEquals(withinTolerance(TOLERANCE.div, 1 + 4 * 2 ** -23, 1), false);
  assertEquals(withinTolerance(TOLERANCE.exp, 1.00002, 1), true);
  assertEquals(withinTolerance(TOLERANCE.exp, 1.0001, 1), false);
  assertEquals(withinTolerance(TOLERANCE.matmul, 0.001, 0, 100), true);
  assertEquals(withinTolerance(TOLERANCE.matmul, 0.001, 0, 1), false);
});
