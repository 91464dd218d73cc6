// cast on the GPU against the CPU's, bit for bit: float32 → int32 truncates
// and wraps as ToInt32 (NaN and ±Infinity give 0), int32 → float32 rounds
// to nearest even.

import { assertEquals, assertThrows } from "@std/assert";
import { cast as cpuCast } from "../../../kernels/cpu/cast.ts";
import { cast, gpuCasts } from "../../../kernels/webgpu/cast.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import {
  assertMatchesCpu,
  batch,
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
