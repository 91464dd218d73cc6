import { assertEquals } from "@std/assert";
import {
  MIN_NORMAL_F32,
  TOLERANCE,
  TOLERANCE_F16,
  toleranceOf,
  ulpDistance,
  ulpDistance16,
  withinTolerance,
} from "../../../kernels/webgpu/tolerance.ts";
import { GPU_BINARY, GPU_UNARY } from "../../../kernels/webgpu/elementwise.ts";
import { GPU_REDUCE } from "../../../kernels/webgpu/reduce.ts";
import {
  ACTIVATION_KINDS,
  COMPARE_KINDS,
} from "../../../kernels/kernel_kinds.ts";

Deno.test("TOLERANCE has an entry for every GPU kernel", () => {
  const ops = [
    ...GPU_BINARY.float32,
    ...GPU_UNARY,
    ...COMPARE_KINDS,
    ...GPU_REDUCE.float32.map((k) => `reduce_${k}`),
    ...ACTIVATION_KINDS,
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
      ...["stack", "broadcast_to", "relu6", "clip", "leaky_relu"],
      "thresholded_relu",
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

Deno.test("TOLERANCE_F16 has an entry for every float16 GPU kernel", () => {
  const ops = [
    ...GPU_BINARY.float16,
    ...GPU_UNARY,
    ...COMPARE_KINDS,
    ...GPU_REDUCE.float16.map((k) => `reduce_${k}`),
    ...ACTIVATION_KINDS,
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
  ];
  assertEquals(ops.filter((op) => TOLERANCE_F16[op] === undefined), []);
  assertEquals(TOLERANCE_F16.pow, undefined); // float16 pow runs on the CPU
});

Deno.test("TOLERANCE_F16 is exact where one f32 rounding then one float16 rounding is", () => {
  const exact = [
    ...["add", "sub", "mul", "max", "min", "scale", "square", "round"],
    ...COMPARE_KINDS,
    ...["copy", "transpose", "concat", "split", "slice", "gather", "cast"],
    ...["reduce_max", "reduce_min"],
  ];
  for (const op of exact) {
    assertEquals(TOLERANCE_F16[op], { kind: "exact" }, op);
  }
  for (const op of ["div", "exp", "sigmoid", "tanh", "softmax", "log"]) {
    assertEquals(TOLERANCE_F16[op].kind, "ulp16", op);
  }
});

Deno.test("toleranceOf() reads the float16 table for float16 only", () => {
  assertEquals(toleranceOf("div", "float16"), { kind: "ulp16", ulps: 1 });
  assertEquals(toleranceOf("div", "float32"), TOLERANCE.div);
  assertEquals(toleranceOf("equal", "bool"), TOLERANCE.equal);
  assertEquals(toleranceOf("pow", "float16"), undefined);
});

Deno.test("withinTolerance() counts float16 steps for ulp16", () => {
  const one = TOLERANCE_F16.exp, two = TOLERANCE_F16.log;
  assertEquals(ulpDistance16(1, 1 + 2 ** -10), 1);
  assertEquals(ulpDistance16(2 ** -24, 3 * 2 ** -24), 2); // subnormals
  assertEquals(ulpDistance16(-0, 0), 1);
  assertEquals(withinTolerance(one, 1 + 2 ** -10, 1), true);
  assertEquals(withinTolerance(one, 1 + 2 ** -9, 1), false);
  assertEquals(withinTolerance(two, 1 + 2 ** -9, 1), true);
  assertEquals(withinTolerance(one, 65504, 65472), true);
  assertEquals(withinTolerance(one, Infinity, 65504), false); // never near ∞
  assertEquals(withinTolerance(one, NaN, NaN), true);
  assertEquals(withinTolerance(TOLERANCE_F16.add, -0, 0), false);
  const scaled = TOLERANCE_F16.reduce_sum;
  assertEquals(withinTolerance(scaled, 1 + 2 ** -10, 1, 1), true);
  assertEquals(withinTolerance(scaled, 1.004, 1, 1), false);
});
