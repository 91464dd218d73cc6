// cast on the GPU against the CPU's, bit for bit: float32 → int32 truncates
// and wraps as ToInt32 (NaN and ±Infinity give 0), int32 → float32 rounds
// to nearest even; float16 conversions round (to float16: nearest even,
// ±Infinity from 65520 on), widen exactly, or truncate as a typed-array
// store does.

import { assertEquals, assertThrows } from "@std/assert";
import { cast as cpuCast } from "../../../kernels/cpu/cast.ts";
import { cast, gpuCasts } from "../../../kernels/webgpu/cast.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import {
  assertMatchesCpu,
  batch,
  f16Test,
  float16Bits,
  floatBits as bitsOrNaN,
  gpuTest,
  onGpu,
  randomTensor,
  seeded,
} from "./_gpu.ts";

// Values where truncation, wrapping and rounding are easy to get wrong.
const EDGES = [
  NaN,
  Infinity,
  -Infinity,
  0,
  -0,
  0.5,
  -0.5,
  0.99999994,
  -1.7,
  2.5,
  1e-45, // subnormal
  -1e-40,
  2 ** 31 - 128, // the largest float32 below 2^31
  2 ** 31,
  -(2 ** 31),
  -(2 ** 31) - 256,
  3e9,
  -3e9,
  2 ** 32,
  2 ** 32 + 512,
  2 ** 54,
  2 ** 55,
  1.5e38,
  -3.4e38,
  16777217,
];

// Bits of a float32 tensor's elements, to compare exactly (+0 vs -0).
function floatBits(t: Tensor): number[] {
  const f = Float32Array.from(t.data as Float32Array);
  return [...new Uint32Array(f.buffer)];
}

Deno.test({
  name: "float32 → int32 matches the CPU: truncation, wrap, NaN and ±Inf",
  ...gpuTest,
  fn: async () => {
    const next = seeded(21);
    const shapes = [[1], [7], [33], [1000], [7, 33], [], [0], [0, 5]];
    for (const shape of shapes) {
      for (const max of [10, 1e10, 1e38]) {
        const x = randomTensor(next, shape, "float32", {
          min: -max,
          max,
          specials: EDGES,
        });
        const got = await onGpu([x], (a) => cast(batch(), a, "int32"));
        const want = cpuCast(x, "int32");
        assertMatchesCpu("cast", got, want);
        assertEquals([...got.data], [...want.data]);
      }
    }
    const edges = Tensor.fromArray(EDGES, "float32");
    const got = await onGpu([edges], (a) => cast(batch(), a, "int32"));
    assertEquals([...got.data], [...cpuCast(edges, "int32").data]);
  },
});

Deno.test({
  name: "int32 → float32 matches the CPU bit for bit, ties to even",
  ...gpuTest,
  fn: async () => {
    const next = seeded(22);
    const n = 1 << 16;
    const values = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      // Any 32-bit integer, with every magnitude equally likely.
      const shift = Math.floor(next() * 32);
      values[i] = (Math.floor(next() * 2 ** 32) >> shift) | 0;
    }
    const edges = [
      0,
      1,
      -1,
      2 ** 24,
      2 ** 24 + 1, // a tie: down to even
      2 ** 24 + 3, // a tie: up to even
      2 ** 25 + 2,
      2 ** 25 + 6,
      2 ** 31 - 1, // rounds up to 2^31
      -(2 ** 31),
      -(2 ** 31) + 1,
      -(2 ** 24) - 1,
      0x7fffffc0,
      0x7fffffbf,
    ];
    values.set(edges);
    for (const shape of [[n], [1], [7], [33], [], [0]]) {
      let size = 1;
      for (const d of shape) size *= d;
      const x = new Tensor("int32", shape, values.slice(0, size));
      const got = await onGpu([x], (a) => cast(batch(), a, "float32"));
      const want = cpuCast(x, "float32");
      assertMatchesCpu("cast", got, want);
      assertEquals(floatBits(got), floatBits(want));
    }
  },
});

Deno.test({
  name: "cast() round-trips and refuses conversions it does not run",
  ...gpuTest,
  fn: async () => {
    const x = randomTensor(seeded(23), [33, 7], "int32", {
      min: -1e6,
      max: 1e6,
    });
    const got = await onGpu(
      [x],
      (a) => cast(batch(), cast(batch(), a, "float32"), "int32"),
    );
    assertEquals(got.toNested(), x.toNested());
    const f = batch().upload(Tensor.zeros([2], "float32"));
    assertThrows(() => cast(batch(), f, "float32"), TypeError);
    assertThrows(() => cast(batch(), f, "bool"), TypeError);
    assertThrows(() => cast(batch(), f, "int64"), TypeError);
    f.release();
    assertEquals(
      [gpuCasts("float32", "int32"), gpuCasts("int32", "float64")],
      [true, false],
    );
  },
});

// float16.

// Where rounding to float16 is easy to get wrong.
const F16_EDGES = [
  NaN,
  -NaN,
  Infinity,
  -Infinity,
  0,
  -0,
  65504,
  65519.996, // just below the tie: 65504
  65520, // the tie: to even 2^16, Infinity
  -65520,
  65536,
  1e5,
  3.4e38,
  65488, // a tie between 65472 and 65504: to even 65472
  1 + 2 ** -11, // a tie: to even 1
  1 + 3 * 2 ** -11, // a tie: to even 1 + 2^-9
  2 ** -14, // the smallest normal
  2 ** -14 - 2 ** -25, // rounds up to it
  2 ** -24, // the smallest subnormal
  2 ** -25, // a tie: to even 0
  2 ** -25 + 2 ** -40, // above the tie: 2^-24
  -(3 * 2 ** -25), // a tie: to even -2^-23
  1e-8,
  1e-45, // a float32 subnormal
  0.1,
  -1 / 3,
];

Deno.test({
  name: "float32 → float16 rounds as Float16Array: ties, subnormals, overflow",
  ...f16Test,
  fn: async () => {
    const next = seeded(24);
    const n = 1 << 18;
    const words = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      // Exponents around float16's range, any significand: every rounding
      // case, subnormals and overflow; some words are any float32 at all.
      const exponent = 127 - 30 + Math.floor(next() * 48);
      words[i] = i % 8 === 0
        ? Math.floor(next() * 2 ** 32)
        : ((next() < 0.5 ? 0x80000000 : 0) | (exponent << 23) |
          Math.floor(next() * 2 ** 23)) >>> 0;
    }
    const random = new Tensor("float32", [n], new Float32Array(words.buffer));
    const edges = Tensor.fromArray(F16_EDGES, "float32");
    for (const x of [random, edges, Tensor.zeros([0, 3], "float32")]) {
      const got = await onGpu([x], (a) => cast(batch(), a, "float16"));
      const want = cpuCast(x, "float16");
      assertEquals([got.dtype, got.shape], [want.dtype, want.shape]);
      assertEquals(bitsOrNaN(got), bitsOrNaN(want));
    }
    for (const shape of [[], [1], [7], [33], [7, 33]]) {
      const x = randomTensor(next, shape, "float32", {
        min: -7e4,
        max: 7e4,
        specials: F16_EDGES,
      });
      const got = await onGpu([x], (a) => cast(batch(), a, "float16"));
      assertMatchesCpu("cast", got, cpuCast(x, "float16"));
    }
  },
});

Deno.test({
  name: "float16 → float32 and → int32 match the CPU on every float16 value",
  ...f16Test,
  fn: async () => {
    const all = Array.from({ length: 65536 }, (_, i) => i);
    for (const shape of [[65536], [256, 256]]) {
      const x = float16Bits(all, shape);
      const wide = await onGpu([x], (a) => cast(batch(), a, "float32"));
      assertEquals(bitsOrNaN(wide), bitsOrNaN(cpuCast(x, "float32")));
      const ints = await onGpu([x], (a) => cast(batch(), a, "int32"));
      assertEquals([...ints.data], [...cpuCast(x, "int32").data]);
    }
    for (const size of [1, 7, 33]) {
      const x = float16Bits(all.slice(31000, 31000 + size));
      const got = await onGpu([x], (a) => cast(batch(), a, "float32"));
      assertMatchesCpu("cast", got, cpuCast(x, "float32"));
    }
  },
});

Deno.test({
  name: "int32 → float16 matches the CPU: rounding and overflow to ±Infinity",
  ...f16Test,
  fn: async () => {
    const next = seeded(25);
    const n = 1 << 16;
    const values = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const shift = Math.floor(next() * 32);
      values[i] = (Math.floor(next() * 2 ** 32) >> shift) | 0;
    }
    values.set([
      0,
      -1,
      2049, // a tie: to even 2048
      2051, // a tie: to even 2052
      65504,
      65519,
      65520,
      -65520,
      65535,
      2 ** 24 + 1,
      2 ** 31 - 1,
      -(2 ** 31),
    ]);
    for (const size of [n, 1, 7, 33, 0]) {
      const x = new Tensor("int32", [size], values.slice(0, size));
      const got = await onGpu([x], (a) => cast(batch(), a, "float16"));
      assertEquals(bitsOrNaN(got), bitsOrNaN(cpuCast(x, "float16")));
    }
  },
});

Deno.test({
  name: "cast() round-trips float16 through float32 and int32",
  ...f16Test,
  fn: async () => {
    const x = randomTensor(seeded(26), [33, 7], "float16", {
      min: -2048,
      max: 2048,
      integers: true,
    });
    const back = await onGpu([x], (a) => {
      const wide = cast(batch(), a, "float32");
      return cast(batch(), cast(batch(), wide, "int32"), "float16");
    });
    assertEquals(back.toNested(), x.toNested());
    const h = batch().upload(x);
    assertThrows(() => cast(batch(), h, "float16"), TypeError);
    assertThrows(() => cast(batch(), h, "float64"), TypeError);
    h.release();
  },
});
