/**
 * Paddle 2.x's `rnn` op, as `paddle.nn.LSTM`, `GRU` and `SimpleRNN` save
 * it in inference programs, computed on the CPU in float32.
 *
 * Layout (Paddle's `RnnOpMaker` and `RNNBase.flatten_parameters`):
 *   Input    [T, B, input_size], time major.
 *   PreState h0 (and c0 for LSTM), each [L·D, B, H]; row l·D + d is
 *            layer l, direction d (0 forward, 1 backward).
 *   WeightList 4·L·D tensors: first weight_ih, weight_hh of each cell
 *            (cell c = l·D + d at 2c and 2c + 1), then bias_ih, bias_hh of
 *            each cell (at 2·L·D + 2c and + 1). weight_ih is [G·H, I]
 *            (I = input_size at layer 0, D·H above), weight_hh [G·H, H],
 *            the biases [G·H], with G gates: 4 for LSTM, 3 for GRU, 1 else.
 *   Out      [T, B, D·H], the last layer's hidden states, forward first.
 *   State    like PreState: each cell's last state.
 *
 * Gates, in Paddle's and cuDNN's order, with gi = W_ih x + b_ih and
 * gh = W_hh h + b_hh:
 *   LSTM  i, f, g, o: c' = σ(f)·c + σ(i)·tanh(g), h' = σ(o)·tanh(c').
 *   GRU   r, z, n: r = σ(gi_r + gh_r), z = σ(gi_z + gh_z),
 *         n = tanh(gi_n + r·gh_n) (r applies to W_hn h + b_hn),
 *         h' = z·h + (1 − z)·n.
 *   RNN_TANH, RNN_RELU  h' = act(gi + gh).
 *
 * Invariants: sums run in float64 and every hidden and cell state is
 * rounded to float32 when stored, as a float32 kernel keeps them. The
 * backward direction reads the sequence from its end and writes each
 * output at its own time step. Inference only: dropout between layers
 * (training) and SequenceLength are refused when the program is checked.
 * Reserve and DropoutState, cuDNN's scratch, are written empty.
 *
 * @module
 */
import { Tensor } from "../../kernels/tensor.ts";
import { AttrError } from "../core/attr_read.ts";
import {
  attr,
  type AttrValues,
  defineOp,
  type InferredType,
  type OpDef,
  slot,
  type VarInfo,
} from "../core/op_def.ts";
import { shapeText } from "./_window_attrs.ts";

// Gates per cell and states per cell of each mode.
const MODES: Readonly<
  Record<string, { readonly gates: number; readonly states: number }>
> = {
  LSTM: { gates: 4, states: 2 },
  GRU: { gates: 3, states: 1 },
  RNN_TANH: { gates: 1, states: 1 },
  RNN_RELU: { gates: 1, states: 1 },
};

const RNN_ATTRS = {
  mode: attr.string("LSTM"),
  num_layers: attr.int(1),
  is_bidirec: attr.bool(false),
  input_size: attr.int(10),
  hidden_size: attr.int(100),
  dropout_prob: attr.float(0),
  is_test: attr.bool(false),
  seed: attr.int(0),
} as const;

type RnnAttrs = AttrValues<typeof RNN_ATTRS>;

// What the attributes fix: sizes of the network.
interface RnnSpec {
  readonly mode: string;
  readonly gates: number;
  readonly states: number;
  readonly layers: number;
  readonly dirs: number;
  readonly inputSize: number;
  readonly hidden: number;
}

function specOf(a: RnnAttrs): RnnSpec {
  const m = MODES[a.mode];
  return {
    mode: a.mode,
    gates: m.gates,
    states: m.states,
    layers: a.num_layers,
    dirs: a.is_bidirec ? 2 : 1,
    inputSize: a.input_size,
    hidden: a.hidden_size,
  };
}

// Throws unless a known shape equals `want` (-1 in either matches).
function checkShape(
  what: string,
  s: readonly number[] | undefined,
  want: readonly number[],
): void {
  if (s === undefined) return;
  const fits = s.length === want.length &&
    s.every((d, i) => d < 0 || want[i] < 0 || d === want[i]);
  if (!fits) {
    throw new RangeError(`${what} is ${shapeText(s)}, not ${shapeText(want)}`);
  }
}

// Checks the slots' counts and known shapes against the spec; used by
// `infer` on declared shapes and at run time on the tensors' own.
function checkRnn(
  spec: RnnSpec,
  input: readonly number[] | undefined,
  preStates: readonly (readonly number[] | undefined)[],
  weights: readonly (readonly number[] | undefined)[],
): void {
  const { layers, dirs, gates, hidden: h } = spec;
  const cells = layers * dirs;
  if (weights.length !== 4 * cells) {
    throw new RangeError(
      `WeightList holds ${weights.length} tensors; mode ${spec.mode} with ` +
        `${layers} layer(s) and ${dirs} direction(s) needs ${4 * cells} ` +
        `(weight_ih, weight_hh, bias_ih, bias_hh per layer and direction)`,
    );
  }
  if (preStates.length !== spec.states) {
    throw new RangeError(
      `PreState holds ${preStates.length} tensors; mode ${spec.mode} ` +
        `needs ${spec.states}`,
    );
  }
  checkShape("Input", input, [-1, -1, spec.inputSize]);
  const batch = input?.[1] ?? -1;
  for (const s of preStates) checkShape("PreState", s, [cells, batch, h]);
  for (let c = 0; c < cells; c++) {
    const inSize = c < dirs ? spec.inputSize : dirs * h;
    checkShape(`WeightList[${2 * c}]`, weights[2 * c], [gates * h, inSize]);
    checkShape(`WeightList[${2 * c + 1}]`, weights[2 * c + 1], [gates * h, h]);
    for (const k of [2 * cells + 2 * c, 2 * cells + 2 * c + 1]) {
      checkShape(`WeightList[${k}]`, weights[k], [gates * h]);
    }
  }
}

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

// Runs one cell over the sequence `x` [T, B, I], writing its hidden states
// into `out` [T, B, D·H] at column offset `col`.
function runCell(
  spec: RnnSpec,
  cell: Cell,
  x: Float32Array,
  dims: { t: number; b: number; backward: boolean },
  out: Float32Array,
  col: number,
): void {
  const { hidden: h, gates, dirs } = spec;
  const gh = gates * h, width = dirs * h;
  const gi = project(x, dims.t * dims.b, cell.wIh, cell.bIh, gh);
  const [hs, cs] = cell.state;
  for (let s = 0; s < dims.t; s++) {
    const t = dims.backward ? dims.t - 1 - s : s;
    const hh = project(hs, dims.b, cell.wHh, cell.bHh, gh);
    for (let b = 0; b < dims.b; b++) {
      const g = (t * dims.b + b) * gh, r = b * gh;
      for (let j = 0; j < h; j++) {
        const at = b * h + j;
        if (spec.mode === "LSTM") {
          const i = sigmoid(gi[g + j] + hh[r + j]);
          const f = sigmoid(gi[g + h + j] + hh[r + h + j]);
          const c = Math.tanh(gi[g + 2 * h + j] + hh[r + 2 * h + j]);
          const o = sigmoid(gi[g + 3 * h + j] + hh[r + 3 * h + j]);
          cs[at] = f * cs[at] + i * c;
          hs[at] = o * Math.tanh(cs[at]);
        } else if (spec.mode === "GRU") {
          const rg = sigmoid(gi[g + j] + hh[r + j]);
          const z = sigmoid(gi[g + h + j] + hh[r + h + j]);
          const n = Math.tanh(gi[g + 2 * h + j] + rg * hh[r + 2 * h + j]);
          hs[at] = z * hs[at] + (1 - z) * n;
        } else {
          const v = gi[g + j] + hh[r + j];
          hs[at] = spec.mode === "RNN_TANH" ? Math.tanh(v) : Math.max(0, v);
        }
        out[(t * dims.b + b) * width + col + j] = hs[at];
      }
    }
  }
}

/**
 * Runs the network: every layer and direction over the whole input.
 * Precondition: the shapes passed `checkRnn`.
 */
function runRnn(
  spec: RnnSpec,
  input: Tensor,
  preStates: readonly Tensor[],
  weights: readonly Tensor[],
): { out: Tensor; states: Tensor[] } {
  const [t, b] = input.shape;
  const { hidden: h, dirs, layers } = spec;
  const cells = layers * dirs, rows = b * h;
  const states = preStates.map((s) => Float32Array.from(s.data as never));
  const f32 = (k: number) => Float32Array.from(weights[k].data as never);
  let x = Float32Array.from(input.data as never);
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
      runCell(spec, cell, x, { t, b, backward: d === 1 }, out, d * h);
    }
    x = out;
  }
  const shape = [cells, b, h];
  return {
    out: new Tensor("float32", [t, b, dirs * h], x),
    states: states.map((s) => new Tensor("float32", shape, s)),
  };
}

function checkFloat32(what: string, info: VarInfo | undefined): void {
  if (info?.dtype !== undefined && info.dtype !== "float32") {
    throw new TypeError(`${what} is ${info.dtype}, not float32`);
  }
}

const rnn = defineOp({
  type: "rnn",
  kernels: "own",
  summary:
    "Out, State = a multi-layer LSTM, GRU or simple RNN over time-major Input (inference)",
  inputs: {
    Input: slot.tensor(),
    PreState: slot.tensor({ duplicable: true }),
    WeightList: slot.tensor({ duplicable: true }),
    SequenceLength: slot.tensor({ optional: true }),
  },
  outputs: {
    Out: slot.tensor(),
    State: slot.tensor({ duplicable: true }),
    Reserve: slot.tensor({ optional: true }),
    DropoutState: slot.tensor({ optional: true }),
  },
  attrs: RNN_ATTRS,
  check(a, ctx) {
    if (MODES[a.mode] === undefined) {
      throw new AttrError(
        "mode",
        `"${a.mode}" is not one of ${Object.keys(MODES).join(", ")}`,
      );
    }
    for (const name of ["num_layers", "hidden_size", "input_size"] as const) {
      if (a[name] < 1) {
        throw new AttrError(name, `${a[name]} is not a positive integer`);
      }
    }
    if (!a.is_test && a.dropout_prob > 0 && a.num_layers > 1) {
      throw new AttrError(
        "is_test",
        "training mode (dropout between layers) is not supported: set is_test",
      );
    }
    if (ctx.hasInput("SequenceLength")) {
      throw new TypeError("SequenceLength is not supported");
    }
  },
  infer({ inputs, attrs }) {
    const spec = specOf(attrs);
    const x = inputs("Input")[0];
    const pre = inputs("PreState"), weights = inputs("WeightList");
    checkFloat32("Input", x);
    checkRnn(
      spec,
      x?.shape,
      pre.map((p) => p.shape),
      weights.map((w) => w.shape),
    );
    const t = x?.shape?.[0] ?? -1, b = x?.shape?.[1] ?? -1;
    const state: InferredType = {
      dtype: "float32",
      shape: [spec.layers * spec.dirs, b, spec.hidden],
    };
    return {
      Out: { dtype: "float32", shape: [t, b, spec.dirs * spec.hidden] },
      State: pre.map(() => state),
      Reserve: { dtype: "uint8" },
      DropoutState: { dtype: "uint8" },
    };
  },
  prepare(ctx) {
    const input = ctx.input("Input");
    const pre = ctx.inputList("PreState");
    const weights = ctx.inputList("WeightList");
    const out = ctx.output("Out");
    const states = ctx.outputList("State");
    const scratch = [
      ctx.optionalOutput("Reserve"),
      ctx.optionalOutput("DropoutState"),
    ];
    const spec = specOf(ctx.attrs);
    return (scope) => {
      const x = input.tensor(scope);
      const p = pre.map((v) => v.tensor(scope));
      const w = weights.map((v) => v.tensor(scope));
      if (x.rank !== 3) {
        throw new RangeError(`Input ${shapeText(x.shape)} is not of rank 3`);
      }
      checkRnn(spec, x.shape, p.map((t) => t.shape), w.map((t) => t.shape));
      const result = runRnn(spec, x, p, w);
      out.write(scope, result.out);
      states.forEach((v, i) => v.write(scope, result.states[i]));
      for (const v of scratch) v?.write(scope, Tensor.zeros([0], "uint8"));
    };
  },
});

/**
 * The recurrent-network ops: Paddle's `rnn`.
 *
 * @example Usage
 * ```ts
 * import { RNN_OPS } from "./rnn.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(RNN_OPS.map((def) => def.type), ["rnn"]);
 * assertEquals(Object.keys(RNN_OPS[0].outputs), ["Out", "State", "Reserve", "DropoutState"]);
 * ```
 */
export const RNN_OPS: readonly OpDef[] = [rnn];
