import { assertEquals, assertThrows } from "@std/assert";
import * as cpu from "../../../kernels/cpu/elementwise.ts";
import {
  binary,
  compare,
  GPU_BINARY,
  GPU_UNARY,
  scale,
  unary,
} from "../../../kernels/webgpu/elementwise.ts";
import { coalesce } from "../../../kernels/webgpu/_elementwise_template.ts";
import { COMPARE_KINDS } from "../../../kernels/device.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import {
  assertMatchesCpu,
  batch,
  gpuTest,
  onGpu,
  randomTensor,
  seeded,
} from "./_gpu.ts";

const SPECIALS = [NaN, Infinity, -Infinity, 0, -0, 1, -1];

// [x shape, y shape, axis]: same shape, scalars, rank 0, NumPy and Fluid
// broadcasting, odd and empty shapes.
const SHAPES: [number[], number[], number][] = [
  [[1000], [1000], -1],
  [[7, 33], [7, 33], -1],
  [[7, 33], [1], -1],
  [[], [5], -1],
  [[], [], -1],
  [[4, 1, 6], [5, 1], -1],
  [[2, 3, 4], [3], 1],
  [[2, 3, 4, 5], [3, 4], 1],
  [[3], [2, 3], -1],
  [[0, 3], [3], -1],
];

Deno.test({
  name: "binary() matches the CPU for every float32 kind and shape",
  ...gpuTest,
  fn: async () => {
    const next = seeded(2);
    for (const kind of GPU_BINARY.float32) {
      for (const [xs, ys, axis] of SHAPES) {
        const range = kind === "pow"
          ? { min: -3, max: 3 }
          : { min: -10, max: 10 };
        const x = randomTensor(next, xs, "float32", {
          ...range,
          specials: SPECIALS,
        });
        const y = randomTensor(next, ys, "float32", {
          ...range,
          specials: SPECIALS,
        });
        const got = await onGpu(
          [x, y],
          (a, b) => binary(batch(), kind, a, b, axis),
        );
        assertMatchesCpu(kind, got, cpu.binary(kind, x, y, axis));
      }
    }
  },
});

Deno.test({
  name: "binary() gives pow's special values as Math.pow does",
  ...gpuTest,
  fn: async () => {
    const values = [
      NaN,
      Infinity,
      -Infinity,
      0,
      -0,
      1,
      -1,
      2,
      -2,
      0.5,
      -0.5,
      3,
      -3,
      2.5,
    ];
    const xs: number[] = [], ys: number[] = [];
    for (const a of values) for (const b of values) xs.push(a), ys.push(b);
    const x = Tensor.fromArray(xs, "float32"),
      y = Tensor.fromArray(ys, "float32");
    const got = await onGpu([x, y], (a, b) => binary(batch(), "pow", a, b));
    assertMatchesCpu("pow", got, cpu.binary("pow", x, y));
  },
});

Deno.test({
  name: "binary() matches the CPU on int32, wrapping on overflow",
  ...gpuTest,
  fn: async () => {
    const next = seeded(3);
    for (const kind of GPU_BINARY.int32) {
      for (const [xs, ys, axis] of SHAPES) {
        const x = randomTensor(next, xs, "int32", { min: -3e9, max: 3e9 });
        const y = randomTensor(next, ys, "int32", { min: -3e9, max: 3e9 });
        const got = await onGpu(
          [x, y],
          (a, b) => binary(batch(), kind, a, b, axis),
        );
        assertEquals(
          got.toNested(),
          cpu.binary(kind, x, y, axis).toNested(),
          kind,
        );
      }
    }
  },
});

Deno.test({
  name: "compare() matches the CPU, NaN included, on float32 and int32",
  ...gpuTest,
  fn: async () => {
    const next = seeded(4);
    for (const kind of COMPARE_KINDS) {
      for (const [xs, ys, axis] of SHAPES) {
        const opts = { min: -3, max: 3, integers: true, specials: SPECIALS };
        const x = randomTensor(next, xs, "float32", opts);
        const y = randomTensor(next, ys, "float32", opts);
        const got = await onGpu(
          [x, y],
          (a, b) => compare(batch(), kind, a, b, axis),
        );
        assertMatchesCpu(kind, got, cpu.compare(kind, x, y, axis));
        const xi = randomTensor(next, xs, "int32", { min: -3, max: 3 });
        const yi = randomTensor(next, ys, "int32", { min: -3, max: 3 });
        const goti = await onGpu(
          [xi, yi],
          (a, b) => compare(batch(), kind, a, b, axis),
        );
        assertEquals(
          goti.toNested(),
          cpu.compare(kind, xi, yi, axis).toNested(),
        );
      }
    }
  },
});

Deno.test({
  name: "unary() matches the CPU for every kind, with NaN, ±Infinity and ±0",
  ...gpuTest,
  fn: async () => {
    const next = seeded(5);
    for (const kind of GPU_UNARY) {
      for (const shape of [[1000], [7, 33], [], [1], [0, 4]]) {
        for (const [min, max] of [[-1, 1], [-100, 100]]) {
          const x = randomTensor(next, shape, "float32", {
            min,
            max,
            specials: SPECIALS,
          });
          const got = await onGpu([x], (a) => unary(batch(), kind, a));
          assertMatchesCpu(kind, got, cpu.unary(kind, x));
        }
      }
    }
  },
});

Deno.test({
  name: "unary() keeps edge cases of round, tanh and sqrt",
  ...gpuTest,
  fn: async () => {
    const x = Tensor.fromArray(
      [-2.5, 2.5, 0.49999997, -0.5, 1e-8, -1e-8, 9.5, 20, -0, 16777215],
      "float32",
    );
    for (const kind of ["round", "tanh", "sqrt", "sigmoid"] as const) {
      const got = await onGpu([x], (a) => unary(batch(), kind, a));
      assertMatchesCpu(kind, got, cpu.unary(kind, x));
    }
  },
});

Deno.test({
  name: "scale() matches the CPU on float32 and int32, both bias orders",
  ...gpuTest,
  fn: async () => {
    const next = seeded(6);
    for (const after of [true, false]) {
      const x = randomTensor(next, [7, 33], "float32", {
        min: -100,
        max: 100,
        specials: SPECIALS,
      });
      const got = await onGpu([x], (a) => scale(batch(), a, 0.1, 3.3, after));
      assertMatchesCpu("scale", got, cpu.scale(x, 0.1, 3.3, after));
      const xi = randomTensor(next, [1000], "int32", { min: -3e9, max: 3e9 });
      const goti = await onGpu(
        [xi],
        (a) => scale(batch(), a, 3e9 + 7, -2.7, after),
      );
      assertEquals(
        goti.toNested(),
        cpu.scale(xi, 3e9 + 7, -2.7, after).toNested(),
      );
    }
  },
});

Deno.test({
  name: "binary() rejects mixed dtypes, CPU-only kinds and bad shapes",
  ...gpuTest,
  fn: () => {
    const b = batch();
    const f = b.upload(Tensor.zeros([2, 3], "float32"));
    const g = b.upload(Tensor.zeros([4], "float32"));
    const i = b.upload(Tensor.zeros([2, 3], "int32"));
    assertThrows(() => binary(b, "add", f, i), TypeError, "one dtype");
    assertThrows(() => binary(b, "div", i, i), TypeError, "no GPU kernel");
    assertThrows(() => binary(b, "add", f, g), RangeError, "do not match");
    assertThrows(() => unary(b, "sin", f), TypeError, "no GPU kernel");
    for (const t of [f, g, i]) t.release();
  },
});

Deno.test("coalesce() merges contiguous dims and drops ones", () => {
  assertEquals(coalesce([2, 1, 3], [3, 0, 1], [0, 0, 1]), [[2, 3], [3, 1], [
    0,
    1,
  ]]);
  assertEquals(coalesce([1, 1], [0, 0], [0, 0]), [[1], [0], [0]]);
  assertEquals(coalesce([4, 5], [5, 1], [0, 0]), [[20], [1], [0]]);
});
