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
 * The device's `rnn` kernel runs the network (kernels/cpu/rnn.ts, and
 * kernels/webgpu/rnn.ts on the GPU). Inference only: dropout between layers
 * (training) and SequenceLength are refused when the program is checked.
 * Reserve and DropoutState, cuDNN's scratch, are written empty.
 *
 * @module
 */
import type { RnnMode } from "../../kernels/kernel_options.ts";
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

function checkFloat32(what: string, info: VarInfo | undefined): void {
  if (info?.dtype !== undefined && info.dtype !== "float32") {
    throw new TypeError(`${what} is ${info.dtype}, not float32`);
  }
}

const rnn = defineOp({
  type: "rnn",
  kernels: ["rnn"],
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
    return (scope, thread) => {
      const x = input.tensor(scope);
      const p = pre.map((v) => v.tensor(scope));
      const w = weights.map((v) => v.tensor(scope));
      if (x.rank !== 3) {
        throw new RangeError(`Input ${shapeText(x.shape)} is not of rank 3`);
      }
      checkRnn(spec, x.shape, p.map((t) => t.shape), w.map((t) => t.shape));
      const [y, ...last] = thread.run.device.kernels.rnn(x, p, w, {
        mode: spec.mode as RnnMode,
        layers: spec.layers,
        bidirectional: spec.dirs === 2,
        hidden: spec.hidden,
      });
      out.write(scope, y);
      states.forEach((v, i) => v.write(scope, last[i]));
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
