// The CPU rnn kernel against gates worked out by hand, one hidden unit at
// a time (the op's own cases, tests/runtime/ops/rnn_test.ts, cover the
// layouts Paddle saves).

import { assertAlmostEquals, assertEquals } from "@std/assert";
import { rnn, RNN_GATES } from "../../../kernels/cpu/rnn.ts";
import { Tensor } from "../../../kernels/tensor.ts";

const col = (values: number[]) =>
  Tensor.fromArray(values.map((v) => [v]), "float32"); // [G·H, 1]
const vec = (values: number[]) => Tensor.fromArray(values, "float32");
const sig = (x: number) => 1 / (1 + Math.exp(-x));

Deno.test("RNN_GATES counts Paddle's gates per mode", () => {
  assertEquals(RNN_GATES, { LSTM: 4, GRU: 3, RNN_TANH: 1, RNN_RELU: 1 });
});

Deno.test("rnn() runs one LSTM step as i, f, g, o", () => {
  const [out, h, c] = rnn(
    Tensor.fromArray([[[0.5]]], "float32"),
    [
      Tensor.full([1, 1, 1], "float32", 0.2),
      Tensor.full([1, 1, 1], "float32", -0.4),
    ],
    [
      col([1, -1, 0.5, 2]),
      col([0.3, 0.2, -0.1, 0.4]),
      vec([0, 0.1, 0, 0]),
      vec([0, 0, 0.2, 0]),
    ],
    { mode: "LSTM", layers: 1, bidirectional: false, hidden: 1 },
  );
  const i = sig(0.5 + 0.06), f = sig(-0.5 + 0.1 + 0.04);
  const g = Math.tanh(0.25 - 0.02 + 0.2), o = sig(1 + 0.08);
  const cNew = f * -0.4 + i * g;
  assertAlmostEquals(c.item(0) as number, cNew, 1e-6);
  assertAlmostEquals(h.item(0) as number, o * Math.tanh(cNew), 1e-6);
  assertEquals(out.item(0), h.item(0));
});

Deno.test("rnn() runs one GRU step with r applied to W_hn h + b_hn", () => {
  const [, h] = rnn(
    Tensor.fromArray([[[1]]], "float32"),
    [Tensor.full([1, 1, 1], "float32", 0.5)],
    [
      col([0.2, -0.3, 0.7]),
      col([0.1, 0.4, -0.6]),
      vec([0, 0, 0.1]),
      vec([0, 0, 0.3]),
    ],
    { mode: "GRU", layers: 1, bidirectional: false, hidden: 1 },
  );
  const r = sig(0.2 + 0.05), z = sig(-0.3 + 0.2);
  const n = Math.tanh(0.7 + 0.1 + r * (-0.3 + 0.3));
  assertAlmostEquals(h.item(0) as number, z * 0.5 + (1 - z) * n, 1e-6);
});

Deno.test("rnn() runs the backward direction from the sequence's end", () => {
  // RNN_RELU, h' = relu(x + h): forward sums up, backward sums down.
  const one = col([1]), zero = vec([0]);
  const [out, h] = rnn(
    Tensor.fromArray([[[1]], [[2]], [[3]]], "float32"),
    [Tensor.zeros([2, 1, 1], "float32")],
    [one, one, one, one, zero, zero, zero, zero],
    { mode: "RNN_RELU", layers: 1, bidirectional: true, hidden: 1 },
  );
  assertEquals(out.toNested(), [[[1, 6]], [[3, 5]], [[6, 3]]]);
  assertEquals(h.toNested(), [[[6]], [[6]]]);
});
