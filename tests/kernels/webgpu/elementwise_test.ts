import { assertEquals, assertThrows } from "@std/assert";
import * as cpu from "../../../kernels/cpu/elementwise.ts";
import {
  binary,
  compare,
  CPU_UNARY,
  GPU_BINARY,
  GPU_UNARY,
  scale,
  unary,
} from "../../../kernels/webgpu/elementwise.ts";
import { coalesce } from "../../../kernels/webgpu/_elementwise_template.ts";
import {
  type BinaryKind,
  COMPARE_KINDS,
  UNARY_KINDS,
} from "../../../kernels/kernel_kinds.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import {
  assertMatchesCpu,
  batch,
  f16Test,
  float16Bits,
  gpuTest,
  onGpu,
  randomTensor,
  seeded,
  SPECIALS,
} from "./_gpu.ts";

Deno.test("every unary kind runs on the GPU or is stated to run on the CPU, not both", () => {
  for (const kind of UNARY_KINDS) {
    const cpuOnly = (CPU_UNARY as readonly string[]).includes(kind);
    assertEquals(GPU_UNARY.includes(kind), !cpuOnly, kind);
  }
  assertEquals(GPU_UNARY.length + CPU_UNARY.length, UNARY_KINDS.length);
});

// float16's edges: the largest finite value, subnormals, the smallest
// normal, and a value whose sums and products overflow.
const F16_SPECIALS = [
  ...SPECIALS,
  65504,
  -65504,
  60000,
  2 ** -24,
  -(2 ** -20),
  2 ** -14,
];

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

// float16: every kind against the CPU, which computes in float64 and rounds
// once; TOLERANCE_F16 is exact for add, sub, mul, max, min, comparisons and
// scale.

Deno.test({
  name:
    "binary() matches the CPU for every float16 kind and shape, overflow included",
  ...f16Test,
  fn: async () => {
    const next = seeded(12);
    for (const kind of GPU_BINARY.float16) {
      for (const [xs, ys, axis] of SHAPES) {
        const opts = { min: -300, max: 300, specials: F16_SPECIALS };
        const x = randomTensor(next, xs, "float16", opts);
        const y = randomTensor(next, ys, "float16", opts);
        const got = await onGpu(
          [x, y],
          (a, b) => binary(batch(), kind, a, b, axis),
        );
        assertEquals(got.dtype, "float16");
        assertMatchesCpu(kind, got, cpu.binary(kind, x, y, axis));
      }
    }
  },
});

Deno.test({
  name: "binary() on float16 bit patterns matches the CPU, ties included",
  ...f16Test,
  fn: async () => {
    const next = seeded(13);
    const n = 1 << 18;
    const xs = new Uint16Array(n), ys = new Uint16Array(n);
    for (let i = 0; i < n; i++) {
      xs[i] = Math.floor(next() * 65536);
      // Every other pair shares an exponent, so sums round at ties.
      ys[i] = i % 2 === 0
        ? Math.floor(next() * 65536)
        : (xs[i] & 0xfc00) | Math.floor(next() * 1024);
    }
    const x = float16Bits(xs), y = float16Bits(ys);
    for (const kind of GPU_BINARY.float16) {
      const got = await onGpu([x, y], (a, b) => binary(batch(), kind, a, b));
      assertMatchesCpu(kind, got, cpu.binary(kind, x, y));
    }
  },
});

Deno.test({
  name: "binary() on float16 rounds to ±Infinity from 65520, as Float16Array",
  ...f16Test,
  fn: async () => {
    const cases: [BinaryKind, number, number][] = [
      ["add", 65504, 8], // 65512: ties to even 65504
      ["add", 65504, 15], // 65519: 65504
      ["add", 65504, 16], // 65520: a tie, to even 2^16: Infinity
      ["sub", -65504, 16], // -65520: -Infinity (sum: -65488, to even)
      ["add", 65504, 65504],
      ["mul", 256, 255.875], // 65504 exactly
      ["mul", 256, 256],
      ["mul", -300, 300],
      ["mul", 2 ** -24, 0.5], // a subnormal tie: to even 0
      ["mul", 3 * 2 ** -24, 0.5], // 1.5 · 2^-24: to even 2^-23
      ["mul", -(2 ** -24), 2 ** -10],
      ["sub", 2 ** -14, 2 ** -24], // the largest subnormal
      ["div", 1, 2 ** -24], // 2^24
      ["div", 65504, 0.5],
      ["div", -1, 0],
      ["div", 0, 0],
      ["max", NaN, 65504],
      ["min", -0, 0],
    ];
    const x = Tensor.fromArray(cases.map((c) => c[1]), "float16");
    const y = Tensor.fromArray(cases.map((c) => c[2]), "float16");
    for (const kind of GPU_BINARY.float16) {
      const got = await onGpu([x, y], (a, b) => binary(batch(), kind, a, b));
      assertMatchesCpu(kind, got, cpu.binary(kind, x, y));
    }
    const differences = await onGpu(
      [x, y],
      (a, b) => binary(batch(), "sub", a, b),
    );
    assertEquals(differences.data[3], -Infinity);
    const sums = await onGpu([x, y], (a, b) => binary(batch(), "add", a, b));
    assertEquals([...sums.data.slice(0, 5)], [
      65504,
      65504,
      Infinity,
      -65472,
      Infinity,
    ]);
  },
});

Deno.test({
  name: "compare() on float16 gives the CPU's bits, NaN included",
  ...f16Test,
  fn: async () => {
    const next = seeded(14);
    for (const kind of COMPARE_KINDS) {
      for (const [xs, ys, axis] of SHAPES) {
        const opts = { min: -3, max: 3, integers: true, specials: SPECIALS };
        const x = randomTensor(next, xs, "float16", opts);
        const y = randomTensor(next, ys, "float16", opts);
        const got = await onGpu(
          [x, y],
          (a, b) => compare(batch(), kind, a, b, axis),
        );
        assertEquals(got.toNested(), cpu.compare(kind, x, y, axis).toNested());
      }
    }
    // Every bit pattern against a shuffled one: NaNs, ±0, subnormals.
    const all = Array.from({ length: 65536 }, (_, i) => i);
    const shuffled = all.map((i) => (i * 40503 + 7) & 0xffff);
    const x = float16Bits(all), y = float16Bits(shuffled);
    for (const kind of COMPARE_KINDS) {
      const got = await onGpu([x, y], (a, b) => compare(batch(), kind, a, b));
      assertEquals([...got.data], [...cpu.compare(kind, x, y).data], kind);
    }
  },
});

Deno.test({
  name: "unary() matches the CPU on every float16 value, in every shape",
  ...f16Test,
  fn: async () => {
    const all = float16Bits(Array.from({ length: 65536 }, (_, i) => i));
    const next = seeded(15);
    for (const kind of GPU_UNARY) {
      const got = await onGpu([all], (a) => unary(batch(), kind, a));
      assertMatchesCpu(kind, got, cpu.unary(kind, all));
      for (const shape of [[7, 33], [], [1], [0, 4]]) {
        const x = randomTensor(next, shape, "float16", {
          min: -20,
          max: 20,
          specials: F16_SPECIALS,
        });
        const small = await onGpu([x], (a) => unary(batch(), kind, a));
        assertMatchesCpu(kind, small, cpu.unary(kind, x));
      }
    }
  },
});

Deno.test({
  name: "scale() on float16 gives the CPU's bits, both bias orders",
  ...f16Test,
  fn: async () => {
    const all = float16Bits(Array.from({ length: 65536 }, (_, i) => i));
    // Rounded factors, overflow, subnormal results, and an odd size.
    const params = [[0.1, 3.3], [3, -2], [1000, 0], [2 ** -10, 1e-7]];
    for (const [s, b] of params) {
      for (const after of [true, false]) {
        const got = await onGpu([all], (a) => scale(batch(), a, s, b, after));
        assertMatchesCpu("scale", got, cpu.scale(all, s, b, after));
      }
    }
    const odd = randomTensor(seeded(16), [33], "float16", { min: -9, max: 9 });
    const got = await onGpu([odd], (a) => scale(batch(), a, -1.5, 0.25));
    assertMatchesCpu("scale", got, cpu.scale(odd, -1.5, 0.25));
  },
});

Deno.test({
  name: "binary() leaves float16 pow and mixed float16 operands to the CPU",
  ...f16Test,
  fn: () => {
    const b = batch();
    const h = b.upload(Tensor.zeros([2, 3], "float16"));
    const f = b.upload(Tensor.zeros([2, 3], "float32"));
    assertThrows(() => binary(b, "pow", h, h), TypeError, "no GPU kernel");
    assertThrows(() => binary(b, "add", h, f), TypeError, "one dtype");
    assertThrows(() => compare(b, "equal", f, h), TypeError, "one dtype");
    for (const t of [h, f]) t.release();
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
