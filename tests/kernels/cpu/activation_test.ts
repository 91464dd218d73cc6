import { assert, assertEquals, assertThrows } from "@std/assert";
import { activation } from "../../../kernels/cpu/activation.ts";
import type { ActivationKind } from "../../../kernels/kernel_kinds.ts";
import { Tensor } from "../../../kernels/tensor.ts";

const f32 = Math.fround;

function run(
  kind: ActivationKind,
  xs: number[],
  params: number[] = [],
): number[] {
  const x = Tensor.fromArray(xs, "float64");
  return [...activation(kind, x, params).data as Float64Array];
}

// |got - want| <= rel · |want| for each element.
function assertClose(got: number[], want: number[], rel: number): void {
  assertEquals(got.length, want.length);
  got.forEach((g, i) => {
    const w = want[i];
    assert(
      Math.abs(g - w) <= rel * Math.abs(w),
      `element ${i}: ${g}, expected ${w}`,
    );
  });
}

// ---- gelu: x·Φ(x), with Φ the standard normal CDF --------------------------

Deno.test("activation() gelu is x·Φ(x) to float64 accuracy, far into the negative tail", () => {
  // Φ at 1, -1, 2, -3, -6 and -10, from tables of the normal distribution.
  const phi: [number, number][] = [
    [1, 0.8413447460685429],
    [-1, 0.15865525393145707],
    [2, 0.9772498680518208],
    [-3, 0.0013498980316300946],
    [-6, 9.865876450376946e-10],
    [-10, 7.61985302416047e-24],
  ];
  assertClose(
    run("gelu", phi.map(([x]) => x)),
    phi.map(([x, p]) => x * p),
    1e-13,
  );
  assertEquals(run("gelu", [0, -0]), [0, -0]);
});

Deno.test("activation() gelu_tanh is Paddle's tanh formula", () => {
  // From -3 on, 1 + tanh(y) loses at most a few bits in float64.
  const xs = [-3, -0.5, 0, 0.25, 1, 4];
  const want = xs.map((x) =>
    0.5 * x *
    (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3)))
  );
  assertClose(run("gelu_tanh", xs), want, 1e-9);
});

// ---- the others: hand-computed values ---------------------------------------

Deno.test("activation() swish is x·sigmoid(βx)", () => {
  const b = f32(1.5);
  // sigmoid(t) as e^t / (1 + e^t) for t < 0 and (1 + tanh(t/2)) / 2 for
  // t >= 0: neither cancels there.
  const sigmoid = (t: number) =>
    t < 0 ? Math.exp(t) / (1 + Math.exp(t)) : 0.5 + 0.5 * Math.tanh(t / 2);
  const xs = [-20, -1, 0.5, 3];
  assertClose(
    run("swish", xs, [1.5]),
    xs.map((x) => x * sigmoid(b * x)),
    1e-14,
  );
});

Deno.test("activation() hard_swish, hard_sigmoid, relu6, leaky_relu, clip at Paddle's defaults", () => {
  assertClose(
    run("hard_swish", [-4, -1, 1, 4, 10], [6, 6, 3]),
    [0, -1 / 3, 2 / 3, 4, 10],
    1e-15,
  );
  assertClose(
    run("hard_sigmoid", [-3, 0, 1, 3], [0.2, 0.5]),
    [0, 0.5, f32(0.2) + 0.5, 1],
    1e-15,
  );
  assertEquals(run("relu6", [-1, 3, 7], [6]), [0, 3, 6]);
  assertEquals(run("leaky_relu", [-2, 3], [0.02]), [-2 * f32(0.02), 3]);
  assertEquals(run("clip", [-2, 0.5, 3], [-1, 1]), [-1, 0.5, 1]);
});

Deno.test("activation() thresholded_relu keeps what exceeds threshold, else value", () => {
  assertEquals(run("thresholded_relu", [0.5, 1, 2], [1, 0]), [0, 0, 2]);
  assertEquals(run("thresholded_relu", [-2, 0, NaN], [-1, 4]), [4, 0, 4]);
});

Deno.test("activation() elu keeps e^x - 1 exact near 0", () => {
  assertClose(
    run("elu", [-1, -1e-10, 2], [1]),
    [Math.exp(-1) - 1, -9.9999999995e-11, 2],
    1e-15,
  );
  assertEquals(run("elu", [-Infinity], [0.5]), [-0.5]);
});

Deno.test("activation() gives Paddle's formulas' special values", () => {
  const specials = [NaN, Infinity, -Infinity];
  assertEquals(run("gelu", specials), [NaN, Infinity, NaN]);
  assertEquals(run("gelu_tanh", specials), [NaN, Infinity, NaN]);
  assertEquals(run("swish", specials, [1]), [NaN, Infinity, NaN]);
  assertEquals(run("hard_swish", specials, [6, 6, 3]), [NaN, Infinity, NaN]);
  assertEquals(run("clip", specials, [-1, 1]), [NaN, 1, -1]);
  assertEquals(run("relu6", specials, [6]), [NaN, 6, 0]);
});

Deno.test("activation() keeps float dtypes and computes integers as float32", () => {
  const x = Tensor.fromArray([-1, 2], "float16");
  assertEquals(activation("relu6", x, [6]).dtype, "float16");
  const i = Tensor.fromArray([-1, 2], "int32");
  const y = activation("leaky_relu", i, [0.5]);
  assertEquals([y.dtype, y.toNested()], ["float32", [-0.5, 2]]);
});

Deno.test("activation() refuses the wrong number of parameters", () => {
  assertThrows(
    () => activation("clip", Tensor.fromArray([1], "float32"), [0]),
    RangeError,
    "clip: takes 2 parameters (min, max), got 1",
  );
});
