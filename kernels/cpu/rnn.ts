// Paddle's `rnn` network on the CPU: every layer and direction of an LSTM,
// GRU or simple RNN over a time-major sequence, in float32 (layout and
// gates as runtime/ops/rnn.ts states them, which checks the shapes).
//
// Invariants: sums run in float64 and every hidden and cell state is
// rounded to float32 when stored, as a float32 kernel keeps them. The
// backward direction reads the sequence from its end and writes each
// output at its own time step.

import type { RnnKernelOptions, RnnMode } from "../kernel_options.ts";
import { Tensor } from "../tensor.ts";

/**
 * Gates per cell of each mode, in Paddle's (cuDNN's) order: LSTM i, f, g,
 * o; GRU r, z, n; a simple RNN one.
 *
 * @example Usage
 * ```ts
 * import { RNN_GATES } from "./rnn.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(RNN_GATES.GRU, 3);
 * ```
 */
export const RNN_GATES: Readonly<Record<RnnMode, number>> = {
  LSTM: 4,
  GRU: 3,
  RNN_TANH: 1,
  RNN_RELU: 1,
};

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

// out[r·n + j] = w[j, :] · x[r, :] + b[j] for r < rows, j < n, with
// x [rows, k] and w [n, k].
function project(
  x: Float32Array,
  rows: number,
  w: Float32Array,
  b: Float32Array,
  n: number,
): Float64Array {
  const k = w.length / n;
  const out = new Float64Array(rows * n);
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < n; j++) {
      let s = b[j];
      for (let i = 0; i < k; i++) s += w[j * k + i] * x[r * k + i];
      out[r * n + j] = s;
    }
  }
  return out;
}

// One cell's weights and its state rows, read and written in place.
interface Cell {
  readonly wIh: Float32Array;
  readonly wHh: Float32Array;
  readonly bIh: Float32Array;
  readonly bHh: Float32Array;
  /** h (then c for LSTM), [B, H] each, updated at every step. */
  readonly state: readonly Float32Array[];
}

// The sizes a cell runs over.
interface Steps {
  readonly t: number;
  readonly b: number;
  readonly backward: boolean;
  readonly dirs: number;
}

// Runs one cell over the sequence `x` [T, B, I], writing its hidden states
// into `out` [T, B, D·H] at column offset `col`.
function runCell(
  options: RnnKernelOptions,
  cell: Cell,
  x: Float32Array,
  dims: Steps,
  out: Float32Array,
  col: number,
): void {
  const { hidden: h, mode } = options;
  const gh = RNN_GATES[mode] * h, width = dims.dirs * h;
  const gi = project(x, dims.t * dims.b, cell.wIh, cell.bIh, gh);
  const [hs, cs] = cell.state;
  for (let s = 0; s < dims.t; s++) {
    const t = dims.backward ? dims.t - 1 - s : s;
    const hh = project(hs, dims.b, cell.wHh, cell.bHh, gh);
    for (let b = 0; b < dims.b; b++) {
      const g = (t * dims.b + b) * gh, r = b * gh;
      for (let j = 0; j < h; j++) {
        const at = b * h + j;
        if (mode === "LSTM") {
          const i = sigmoid(gi[g + j] + hh[r + j]);
          const f = sigmoid(gi[g + h + j] + hh[r + h + j]);
          const c = Math.tanh(gi[g + 2 * h + j] + hh[r + 2 * h + j]);
          const o = sigmoid(gi[g + 3 * h + j] + hh[r + 3 * h + j]);
          cs[at] = f * cs[at] + i * c;
          hs[at] = o * Math.tanh(cs[at]);
        } else if (mode === "GRU") {
          const rg = sigmoid(gi[g + j] + hh[r + j]);
          const z = sigmoid(gi[g + h + j] + hh[r + h + j]);
          const n = Math.tanh(gi[g + 2 * h + j] + rg * hh[r + 2 * h + j]);
          hs[at] = z * hs[at] + (1 - z) * n;
        } else {
          const v = gi[g + j] + hh[r + j];
          hs[at] = mode === "RNN_TANH" ? Math.tanh(v) : Math.max(0, v);
        }
        out[(t * dims.b + b) * width + col + j] = hs[at];
      }
    }
  }
}

/**
 * Runs the network: every layer and direction over the whole input.
 * Precondition: the shapes fit the options (runtime/ops/rnn.ts checks
 * them): X `[T, B, I]`, each PreState `[L·D, B, H]` (h, then c for LSTM),
 * and WeightList's weight_ih, weight_hh of each cell, then its bias_ih,
 * bias_hh.
 *
 * @param x The input sequence, time major.
 * @param preStates The initial states.
 * @param weights The weights and biases.
 * @param options The mode, layers, directions and hidden size.
 * @returns `[Out, ...State]`: Out `[T, B, D·H]`, each state's last value.
 *
 * @example Usage
 * ```ts
 * import { rnn } from "./rnn.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * // RNN_RELU, H = 1: h' = relu(2x + 3h + 0.5 + 0.5).
 * const w = (v: number, shape: number[]) => Tensor.full(shape, "float32", v);
 * const [out, h] = rnn(
 *   Tensor.fromArray([[[1]], [[2]]], "float32"),
 *   [w(0, [1, 1, 1])],
 *   [w(2, [1, 1]), w(3, [1, 1]), w(0.5, [1]), w(0.5, [1])],
 *   { mode: "RNN_RELU", layers: 1, bidirectional: false, hidden: 1 },
 * );
 * assertEquals(out.toNested(), [[[3]], [[14]]]);
 * assertEquals(h.toNested(), [[[14]]]);
 * ```
 */
export function rnn(
  x: Tensor,
  preStates: readonly Tensor[],
  weights: readonly Tensor[],
  options: RnnKernelOptions,
): Tensor[] {
  const [t, b] = x.shape;
  const { hidden: h, layers } = options;
  const dirs = options.bidirectional ? 2 : 1;
  const cells = layers * dirs, rows = b * h;
  const states = preStates.map((s) => Float32Array.from(s.data as never));
  const f32 = (k: number) => Float32Array.from(weights[k].data as never);
  let seq = Float32Array.from(x.data as never);
  for (let l = 0; l < layers; l++) {
    const out = new Float32Array(t * b * dirs * h);
    for (let d = 0; d < dirs; d++) {
      const c = l * dirs + d;
      const cell: Cell = {
        wIh: f32(2 * c),
        wHh: f32(2 * c + 1),
        bIh: f32(2 * cells + 2 * c),
        bHh: f32(2 * cells + 2 * c + 1),
        state: states.map((s) => s.subarray(c * rows, (c + 1) * rows)),
      };
      const steps = { t, b, backward: d === 1, dirs };
      runCell(options, cell, seq, steps, out, d * h);
    }
    seq = out;
  }
  const shape = [cells, b, h];
  return [
    new Tensor("float32", [t, b, dirs * h], seq),
    ...states.map((s) => new Tensor("float32", shape, s)),
  ];
}
