// The data-movement kernels (transpose, concat, stack, slice, split,
// gather, broadcastTo) against the CPU's on seeded inputs: the same bits,
// the same errors.

import { assertEquals, assertThrows } from "@std/assert";
import * as cpu from "../../../kernels/cpu/shape.ts";
import {
  broadcastTo,
  concat,
  slice,
  split,
  splitNearEqual,
  stack,
  transpose,
} from "../../../kernels/webgpu/shape.ts";
import { gather } from "../../../kernels/webgpu/gather.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import type { DType } from "../../../kernels/dtype.ts";
import {
  assertMatchesCpu,
  batch,
  f16Test,
  float16Bits,
  gpuTest,
  hasF16,
  onGpu,
  randomTensor,
  seeded,
} from "./_gpu.ts";

const SPECIALS = [NaN, Infinity, -Infinity, 0, -0];
// float16 moves 16-bit halves of words: odd sizes and offsets matter.
const DTYPES: DType[] = hasF16
  ? ["float32", "int32", "float16"]
  : ["float32", "int32"];

function input(next: () => number, shape: number[], dtype: DType): Tensor {
  return randomTensor(next, shape, dtype, {
    min: -1000,
    max: 1000,
    specials: dtype === "int32" ? [] : SPECIALS,
  });
}

// Both calls throw the same error class with the same message.
function assertSameError(
  gpuCall: () => unknown,
  cpuCall: () => unknown,
): void {
  const caught = (f: () => unknown): Error => {
    try {
      f();
    } catch (e) {
      return e as Error;
    }
    throw new Error("expected an error");
  };
  const c = caught(cpuCall), g = caught(gpuCall);
  assertEquals([g.constructor.name, g.message], [
    c.constructor.name,
    c.message,
  ]);
}

Deno.test({
  name: "transpose() matches the CPU: odd, rank 0, empty, negative axes",
  ...gpuTest,
  fn: async () => {
    const next = seeded(11);
    const cases: [number[], number[]][] = [
      [[1000], [0]],
      [[7, 33], [1, 0]],
      [[33, 7], [-1, -2]],
      [[2, 3, 4], [2, 0, 1]],
      [[1, 7, 1, 33], [3, 1, 2, 0]],
      [[7, 1, 33], [1, 0, 2]], // moves no element: a view
      [[2, 3, 1, 4, 5], [4, 2, 0, 3, 1]],
      [[], []],
      [[0, 5], [1, 0]],
      [[1], [0]],
    ];
    for (const dtype of DTYPES) {
      for (const [shape, axes] of cases) {
        const x = input(next, shape, dtype);
        const got = await onGpu([x], (a) => transpose(batch(), a, axes));
        assertMatchesCpu("transpose", got, cpu.transpose(x, axes));
      }
    }
  },
});

Deno.test({
  name: "copies keep NaN payloads, ±Infinity and -0 bit for bit",
  ...gpuTest,
  fn: async () => {
    const bits = new Uint32Array(33 * 7);
    const specials = [
      0x7fc00001,
      0xffc12345,
      0x7f800001,
      0x7f800000,
      0x80000000,
    ];
    bits.forEach((_, i) => bits[i] = specials[i % specials.length] + (i >> 3));
    const x = new Tensor("float32", [33, 7], new Float32Array(bits.buffer));
    const got = await onGpu([x], (a) => transpose(batch(), a, [1, 0]));
    const out = new Uint32Array((got.data as Float32Array).buffer, 0, 33 * 7);
    for (let i = 0; i < 33; i++) {
      for (let j = 0; j < 7; j++) {
        assertEquals(out[j * 33 + i], bits[i * 7 + j]);
      }
    }
  },
});

Deno.test({
  name: "float16 copies keep every bit pattern, NaN payloads included",
  ...f16Test,
  fn: async () => {
    const all = Array.from({ length: 65536 }, (_, i) => i);
    const x = float16Bits(all, [256, 256]);
    const [t, c, g] = await batch().read([
      transpose(batch(), batch().upload(x), [1, 0]),
      concat(batch(), [
        batch().upload(float16Bits(all.slice(0, 7 * 3), [7, 3])),
        batch().upload(float16Bits(all.slice(0, 7 * 5), [7, 5])),
      ], 1),
      gather(
        batch(),
        batch().upload(x),
        Tensor.fromArray([255, 0], "int32"),
        1,
      ),
    ]);
    // Reading elements would canonicalize NaNs: compare the stored bits.
    const out = new Uint16Array((t.data as Float16Array).buffer, 0, 65536);
    for (let i = 0; i < 256; i++) {
      for (let j = 0; j < 256; j++) {
        assertEquals(out[j * 256 + i], all[i * 256 + j]);
      }
    }
    const joined = new Uint16Array((c.data as Float16Array).buffer, 0, 56);
    for (let r = 0; r < 7; r++) {
      assertEquals([...joined.slice(r * 8, r * 8 + 8)], [
        ...all.slice(r * 3, r * 3 + 3),
        ...all.slice(r * 5, r * 5 + 5),
      ]);
    }
    const picked = new Uint16Array((g.data as Float16Array).buffer, 0, 512);
    for (let r = 0; r < 256; r++) {
      assertEquals([picked[2 * r], picked[2 * r + 1]], [
        r * 256 + 255,
        r * 256,
      ]);
    }
  },
});

Deno.test({
  name: "transpose() refuses what the CPU refuses, with its message",
  ...gpuTest,
  fn() {
    const x = Tensor.zeros([2, 3], "float32");
    const g = batch().upload(x);
    for (const axes of [[0], [0, 0], [0, 2], [1, 0, 2], [-3, 0]]) {
      assertSameError(
        () => transpose(batch(), g, axes),
        () => cpu.transpose(x, axes),
      );
    }
    g.release();
  },
});

Deno.test({
  name: "concat() matches the CPU on odd, empty and one-operand joins",
  ...gpuTest,
  fn: async () => {
    const next = seeded(12);
    const cases: [number[][], number][] = [
      [[[3, 4], [5, 4]], 0],
      [[[7, 1], [7, 33], [7, 0], [7, 2]], -1],
      [[[2, 3, 4], [2, 5, 4], [2, 1, 4]], 1],
      [[[1000]], 0],
      [[[0, 3], [0, 3]], 1],
      [[[1], [7], [33]], 0],
    ];
    for (const dtype of DTYPES) {
      for (const [shapes, axis] of cases) {
        const xs = shapes.map((s) => input(next, s, dtype));
        const got = await onGpu(xs, (...gs) => concat(batch(), gs, axis));
        assertMatchesCpu("concat", got, cpu.concat(xs, axis));
      }
    }
  },
});

Deno.test({
  name: "concat() refuses what the CPU refuses; mixed dtypes are a TypeError",
  ...gpuTest,
  fn() {
    const b = batch();
    const cases: Tensor[][] = [
      [],
      [Tensor.zeros([2, 3], "float32"), Tensor.zeros([3, 3], "float32")],
      [Tensor.scalar(1, "float32"), Tensor.scalar(2, "float32")],
      [Tensor.zeros([2], "float32"), Tensor.zeros([2, 1], "float32")],
    ];
    for (const xs of cases) {
      const gs = xs.map((x) => b.upload(x));
      assertSameError(() => concat(b, gs, 1), () => cpu.concat(xs, 1));
      assertSameError(() => concat(b, gs, -5), () => cpu.concat(xs, -5));
    }
    const mixed = [
      b.upload(Tensor.zeros([2], "float32")),
      b.upload(Tensor.zeros([2], "int32")),
    ];
    assertThrows(() => concat(b, mixed), TypeError, "one dtype");
  },
});

Deno.test({
  name: "slice() matches the CPU: negative and clamped bounds, empty, rank 0",
  ...gpuTest,
  fn: async () => {
    const next = seeded(13);
    const cases: [number[], number[], number[], number[]][] = [
      [[1000], [0], [7], [-7]],
      [[7, 33], [1], [-2], [100]],
      [[7, 33], [0, -1], [1, 3], [6, 34]],
      [[7, 33], [0], [5], [2]], // end before start: empty
      [[2, 3, 4, 5], [3, 1], [-3, 1], [-1, 2]],
      [[7, 33], [], [], []], // whole: a view
      [[], [], [], []],
      [[0, 4], [1], [1], [3]],
      [[1, 1], [0], [-100], [100]],
    ];
    for (const dtype of DTYPES) {
      for (const [shape, axes, starts, ends] of cases) {
        const x = input(next, shape, dtype);
        const got = await onGpu(
          [x],
          (a) => slice(batch(), a, axes, starts, ends),
        );
        assertMatchesCpu("slice", got, cpu.slice(x, axes, starts, ends));
      }
    }
  },
});

Deno.test({
  name: "slice() refuses what the CPU refuses, with its message",
  ...gpuTest,
  fn() {
    const x = Tensor.zeros([4, 5], "int32");
    const g = batch().upload(x);
    const cases: [number[], number[], number[]][] = [
      [[0], [0, 1], [1]],
      [[0], [0], []],
      [[2], [0], [1]],
      [[-3], [0], [1]],
    ];
    for (const [axes, starts, ends] of cases) {
      assertSameError(
        () => slice(batch(), g, axes, starts, ends),
        () => cpu.slice(x, axes, starts, ends),
      );
    }
    assertThrows(() => slice(batch(), g, [0], [0.5], [2]), RangeError);
    g.release();
  },
});

Deno.test({
  name: "split() and splitNearEqual() match the CPU, empty parts included",
  ...gpuTest,
  fn: async () => {
    const next = seeded(14);
    const b = batch();
    const cases: [
      number[],
      number,
      { num: number } | { sections: number[] },
    ][] = [
      [[1000], 0, { num: 8 }],
      [[7, 33], -1, { sections: [1, -1, 0, 7] }],
      [[7, 33], 0, { num: 7 }],
      [[2, 6, 5], 1, { sections: [4, 2] }],
      [[0, 3], 0, { sections: [0, 0] }],
    ];
    for (const dtype of DTYPES) {
      for (const [shape, axis, options] of cases) {
        const x = input(next, shape, dtype);
        const g = b.upload(x);
        const got = await b.read(split(b, g, axis, options));
        const want = cpu.split(x, axis, options);
        assertEquals(got.length, want.length);
        got.forEach((p, i) => assertMatchesCpu("split", p, want[i]));
      }
      for (
        const [shape, num, axis] of [[[10, 3], 3, 0], [[3, 7], 5, -1], [
          [33],
          1,
          0,
        ]] as const
      ) {
        const x = input(next, [...shape], dtype);
        const got = await b.read(splitNearEqual(b, b.upload(x), num, axis));
        const want = cpu.splitNearEqual(x, num, axis);
        got.forEach((p, i) => assertMatchesCpu("split", p, want[i]));
      }
    }
  },
});

Deno.test({
  name: "split() refuses what the CPU refuses, with its message",
  ...gpuTest,
  fn() {
    const x = Tensor.zeros([6, 4], "float32");
    const g = batch().upload(x);
    const cases: [number, { num: number } | { sections: number[] }][] = [
      [0, { num: 4 }],
      [0, { num: 0 }],
      [1, { sections: [1, 2] }],
      [1, { sections: [-1, -1] }],
      [2, { num: 2 }],
    ];
    for (const [axis, options] of cases) {
      assertSameError(
        () => split(batch(), g, axis, options),
        () => cpu.split(x, axis, options),
      );
    }
    for (const [num, axis] of [[0, 0], [1.5, 0], [2, 2]]) {
      assertSameError(
        () => splitNearEqual(batch(), g, num, axis),
        () => cpu.splitNearEqual(x, num, axis),
      );
    }
    g.release();
  },
});

Deno.test({
  name: "gather() matches the CPU for int32 and int64 indices of any shape",
  ...gpuTest,
  fn: async () => {
    const next = seeded(15);
    const cases: [number[], number, DType, number[], number[]][] = [
      [[1000], 0, "int64", [999, 0, 7, 7], [4]],
      [[7, 33], 1, "int32", [32, 0, 1], [3, 1]],
      [[7, 33], -2, "int64", [6], []], // a rank-0 index
      [[2, 5, 3], 1, "int32", [4, 4, 0, 2, 1, 3, 0], [7]],
      [[7, 3], 0, "int32", [], [0]],
      [[0, 3], 1, "int64", [2, 1], [2]],
      [[1], 0, "int32", [0], [1]],
    ];
    for (const dtype of DTYPES) {
      for (const [shape, axis, indexType, picks, indexShape] of cases) {
        const x = input(next, shape, dtype);
        const index = Tensor.fromArray(picks, indexType, indexShape);
        const got = await onGpu([x], (a) => gather(batch(), a, index, axis));
        assertMatchesCpu("gather", got, cpu.gather(x, index, axis));
      }
    }
  },
});

Deno.test({
  name: "gather() refuses what the CPU refuses, int64 beyond int32 included",
  ...gpuTest,
  fn() {
    const x = Tensor.zeros([4, 5], "float32");
    const g = batch().upload(x);
    const before = batch().dispatched;
    const cases: [Tensor, number][] = [
      [Tensor.fromArray([4], "int32"), 0],
      [Tensor.fromArray([-1], "int32"), 1],
      [Tensor.fromArray([2 ** 40], "int64"), 0],
      [Tensor.fromArray([-(2 ** 33)], "int64"), 0],
      [Tensor.fromArray([1], "float32"), 0],
      [Tensor.fromArray([1], "int32"), 2],
    ];
    for (const [index, axis] of cases) {
      assertSameError(
        () => gather(batch(), g, index, axis),
        () => cpu.gather(x, index, axis),
      );
    }
    assertEquals(batch().dispatched, before); // nothing reached the GPU
    g.release();
  },
});

Deno.test({
  name:
    "stack() matches the CPU along every axis, and refuses unequal shapes as it does",
  ...gpuTest,
  fn: async () => {
    const next = seeded(31);
    const cases: [number[], number][] = [
      [[7, 33], 0],
      [[7, 33], 1],
      [[7, 33], -1],
      [[5], 1],
      [[], 0],
      [[0, 3], 1],
    ];
    for (const dtype of DTYPES) {
      for (const [shape, axis] of cases) {
        const xs = [0, 1, 2].map(() => input(next, shape, dtype));
        const b = batch();
        const ups = xs.map((x) => b.upload(x));
        const out = stack(b, ups, axis);
        const [got] = await b.read([out]);
        assertMatchesCpu("stack", got, cpu.stack(xs, axis));
      }
    }
    const a = Tensor.zeros([2], "float32"), c = Tensor.zeros([3], "float32");
    assertSameError(
      () => stack(batch(), [batch().upload(a), batch().upload(c)]),
      () => cpu.stack([a, c]),
    );
  },
});

Deno.test({
  name: "broadcastTo() matches the CPU, repeating inner, outer and middle dims",
  ...gpuTest,
  fn: async () => {
    const next = seeded(32);
    const cases: [number[], number[]][] = [
      [[33], [7, 33]],
      [[7, 1], [7, 33]],
      [[1, 1], [3, 5]],
      [[2, 1, 3], [4, 2, 5, 3]],
      [[], [4]],
      [[3], [3]], // nothing repeats: a view
      [[1, 3], [0, 3]],
    ];
    for (const dtype of DTYPES) {
      for (const [from, to] of cases) {
        const x = input(next, from, dtype);
        const got = await onGpu([x], (a) => broadcastTo(batch(), a, to));
        assertMatchesCpu("broadcast_to", got, cpu.broadcastTo(x, to));
      }
    }
    const x = Tensor.zeros([2, 3], "float32");
    assertSameError(
      () => broadcastTo(batch(), batch().upload(x), [4, 3]),
      () => cpu.broadcastTo(x, [4, 3]),
    );
  },
});
