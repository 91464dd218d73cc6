import { assert, assertEquals, assertThrows } from "@std/assert";
import { pool2d } from "../../../kernels/cpu/pool.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import {
  refOf,
  type RefPool,
  refPool,
  refTranspose,
  seededValues,
} from "../../_helpers/conv_reference.ts";

function input(shape: number[], seed: number): Tensor {
  const size = shape.reduce((p, d) => p * d, 1);
  return Tensor.fromArray(seededValues(size, seed), "float32", shape);
}

// The kernel sums in float64 and rounds once, as the reference rounded.
function check(kind: "max" | "avg", shape: number[], o: RefPool): void {
  const x = input(shape, 7);
  const got = pool2d(kind, x, o);
  const want = refPool(kind, refOf(x), o);
  assertEquals(got.shape, want.shape, JSON.stringify(o));
  assertEquals(
    Array.from(got.data as Float32Array),
    Array.from(want.data, Math.fround),
    `${kind} ${JSON.stringify(o)}`,
  );
}

Deno.test("pool2d() matches Paddle's windows for every option", () => {
  const options: RefPool[] = [
    { ksize: [2, 2], strides: [2, 2] },
    { ksize: [3, 3], strides: [2, 2], paddings: [1, 1, 1, 1] },
    { ksize: [3, 2], strides: [2, 3], paddings: [1, 0, 0, 1], ceilMode: true },
    {
      ksize: [3, 3],
      strides: [2, 2],
      paddings: [1, 1, 1, 1],
      exclusive: false,
    },
    {
      ksize: [3, 3],
      strides: [2, 2],
      paddings: [1, 2, 0, 2],
      exclusive: false,
      ceilMode: true,
    },
    { ksize: [3, 4], adaptive: true },
    { ksize: [1, 1], adaptive: true },
    { ksize: [7, 9], adaptive: true },
  ];
  for (const o of options) {
    check("max", [2, 3, 7, 9], o);
    check("avg", [2, 3, 7, 9], o);
  }
});

Deno.test("pool2d() averages a padded window by Paddle's divisor", () => {
  const x = Tensor.fromArray([[[[1, 2], [3, 4]]]], "float32");
  const o = { ksize: [2, 2], paddings: [1, 1, 1, 1], strides: [1, 1] };
  assertEquals(pool2d("avg", x, o).toNested(), [[[
    [1, 1.5, 2],
    [2, 2.5, 3],
    [3, 3.5, 4],
  ]]]);
  assertEquals(pool2d("avg", x, { ...o, exclusive: false }).toNested(), [[[
    [0.25, 0.75, 0.5],
    [1, 2.5, 1.5],
    [0.75, 1.75, 1],
  ]]]);
  assertEquals(pool2d("max", x, o).toNested(), [[[
    [1, 2, 2],
    [3, 4, 4],
    [3, 4, 4],
  ]]]);
});

Deno.test("pool2d() gives NaN for a max over a NaN", () => {
  const x = Tensor.fromArray([[[[1, NaN, 3, 4]]]], "float32");
  const got = pool2d("max", x, { ksize: [1, 2], strides: [1, 2] });
  assert(Number.isNaN(got.item(0)));
  assertEquals(got.item(1), 4);
});

Deno.test("pool2d() reads NHWC with channelLast", () => {
  const x = input([2, 3, 6, 7], 9);
  const o = { ksize: [3, 3], strides: [2, 2], paddings: [1, 1, 1, 1] };
  const nhwc = Tensor.fromArray(
    Array.from(refTranspose(refOf(x), [0, 2, 3, 1]).data),
    "float32",
    [2, 6, 7, 3],
  );
  const got = pool2d("avg", nhwc, { ...o, channelLast: true });
  const want = refTranspose(refOf(pool2d("avg", x, o)), [0, 2, 3, 1]);
  assertEquals(Array.from(got.data as Float32Array), Array.from(want.data));
});

Deno.test("pool2d() refuses a window larger than the padded input", () => {
  const x = Tensor.zeros([1, 1, 4, 4], "float32");
  assertThrows(
    () => pool2d("max", x, { ksize: [7, 2], paddings: [1, 1, 0, 0] }),
    RangeError,
    "pool2d: the 7×2 window is larger than input [1, 1, 4, 4] padded by [1, 1, 0, 0]",
  );
  assertEquals(
    pool2d("max", x, { ksize: [6, 2], paddings: [1, 1, 0, 0] }).shape,
    [1, 1, 1, 3],
  );
});
