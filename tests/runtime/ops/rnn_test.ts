import { create } from "@bufbuild/protobuf";
import { assert, assertEquals, assertThrows } from "@std/assert";
import {
  AttrType,
  ProgramDescSchema,
} from "../../../gen/rill/v1/framework_pb.ts";
import {
  appendLayer,
  assignValue,
  defaultProgram,
  ProgramError,
  validateProgram,
  type Variable,
} from "../../../mod.ts";
import { RNN_OPS } from "../../../runtime/ops/rnn.ts";
import { seededValues } from "../../_helpers/conv_reference.ts";
import { op, tensor } from "../../_helpers/desc_init.ts";
import { testOpCases } from "../../_helpers/op_cases.ts";
import { runProgram, tensorOf } from "../../_helpers/run_program.ts";

// A network's sizes and its flat float32 values, as the op's slots hold
// them.
interface Net {
  mode: "LSTM" | "GRU" | "RNN_TANH" | "RNN_RELU";
  layers: number;
  dirs: number;
  seq: number;
  batch: number;
  inputSize: number;
  hidden: number;
  x: number[];
  states: number[][];
  weights: { data: number[]; shape: number[] }[];
}

const GATES = { LSTM: 4, GRU: 3, RNN_TANH: 1, RNN_RELU: 1 } as const;

function makeNet(
  mode: Net["mode"],
  sizes: { layers?: number; dirs?: number } = {},
): Net {
  const { layers = 1, dirs = 1 } = sizes;
  const seq = 3, batch = 2, inputSize = 3, hidden = 2;
  const g = GATES[mode] * hidden, cells = layers * dirs;
  let seed = 100;
  const values = (n: number) => seededValues(n, seed++, { lo: -1, hi: 1 });
  const ws: Net["weights"] = [], bs: Net["weights"] = [];
  for (let c = 0; c < cells; c++) {
    const inSize = c < dirs ? inputSize : dirs * hidden;
    ws.push({ data: values(g * inSize), shape: [g, inSize] });
    ws.push({ data: values(g * hidden), shape: [g, hidden] });
    bs.push({ data: values(g), shape: [g] }, { data: values(g), shape: [g] });
  }
  const stateCount = mode === "LSTM" ? 2 : 1;
  return {
    mode,
    layers,
    dirs,
    seq,
    batch,
    inputSize,
    hidden,
    x: values(seq * batch * inputSize),
    states: Array.from(
      { length: stateCount },
      () => values(cells * batch * hidden),
    ),
    weights: [...ws, ...bs],
  };
}

// --- The reference: one batch item and one step at a time, in float64.

function matVec(w: number[], rows: number, v: number[]): number[] {
  const cols = v.length;
  return Array.from({ length: rows }, (_, r) => {
    let s = 0;
    for (let k = 0; k < cols; k++) s += w[r * cols + k] * v[k];
    return s;
  });
}

function add(...vs: number[][]): number[] {
  return vs[0].map((_, i) => vs.reduce((s, v) => s + v[i], 0));
}

function sig(v: number): number {
  return 1 / (1 + Math.exp(-v));
}

// One step of one cell: [h, c] from x, [h, c] and the cell's weights.
function step(
  mode: Net["mode"],
  w: { ih: number[]; hh: number[]; bih: number[]; bhh: number[] },
  x: number[],
  [h, c]: number[][],
): number[][] {
  const n = h.length, rows = GATES[mode] * n;
  const gi = add(matVec(w.ih, rows, x), w.bih);
  const gh = add(matVec(w.hh, rows, h), w.bhh);
  const part = (v: number[], k: number) => v.slice(k * n, (k + 1) * n);
  if (mode === "LSTM") {
    const a = add(gi, gh);
    const [i, f, g, o] = [0, 1, 2, 3].map((k) => part(a, k));
    const c2 = c.map((cv, j) => sig(f[j]) * cv + sig(i[j]) * Math.tanh(g[j]));
    return [c2.map((cv, j) => sig(o[j]) * Math.tanh(cv)), c2];
  }
  if (mode === "GRU") {
    const r = add(part(gi, 0), part(gh, 0)).map(sig);
    const z = add(part(gi, 1), part(gh, 1)).map(sig);
    const cand = part(gi, 2).map((v, j) =>
      Math.tanh(v + r[j] * part(gh, 2)[j])
    );
    return [h.map((hv, j) => z[j] * hv + (1 - z[j]) * cand[j])];
  }
  const act = mode === "RNN_TANH" ? Math.tanh : (v: number) => Math.max(0, v);
  return [add(gi, gh).map(act)];
}

// Out [T][B][D·H] and each state [cells][B][H], nested.
function reference(net: Net): { out: number[][][]; states: number[][][][] } {
  const { seq, batch, hidden, dirs, layers } = net;
  const cells = layers * dirs;
  let xs: number[][][] = Array.from(
    { length: seq },
    (_, t) =>
      Array.from(
        { length: batch },
        (_, b) =>
          net.x.slice(
            (t * batch + b) * net.inputSize,
            (t * batch + b + 1) * net.inputSize,
          ),
      ),
  );
  const states = net.states.map((s) =>
    Array.from(
      { length: cells },
      (_, c) =>
        Array.from(
          { length: batch },
          (_, b) =>
            s.slice((c * batch + b) * hidden, (c * batch + b + 1) * hidden),
        ),
    )
  );
  for (let l = 0; l < layers; l++) {
    // out[t][b][d]: direction d's hidden state at time t.
    const out = xs.map((row) => row.map(() => [] as number[][]));
    for (let d = 0; d < dirs; d++) {
      const c = l * dirs + d;
      const w = {
        ih: net.weights[2 * c].data,
        hh: net.weights[2 * c + 1].data,
        bih: net.weights[2 * cells + 2 * c].data,
        bhh: net.weights[2 * cells + 2 * c + 1].data,
      };
      for (let b = 0; b < batch; b++) {
        let hc = states.map((s) => s[c][b]);
        const times = [...Array(seq).keys()];
        for (const t of d === 0 ? times : times.reverse()) {
          hc = step(net.mode, w, xs[t][b], hc);
          out[t][b][d] = hc[0];
        }
        hc.forEach((v, k) => (states[k][c][b] = v));
      }
    }
    xs = out.map((row) => row.map((byDir) => byDir.flat()));
  }
  return { out: xs, states };
}

// --- Programs.

function rnnOp(net: Net, attrs: Record<string, unknown> = {}): Variable[] {
  const block = defaultProgram().currentBlock;
  const constant = (data: number[], shape: number[]) =>
    assignValue(data, { shape });
  const cells = net.layers * net.dirs;
  const stateShape = [cells, net.batch, net.hidden];
  const states = net.states.map(() => block.createVar({ dtype: "float32" }));
  const out = appendLayer("rnn", {
    Input: constant(net.x, [net.seq, net.batch, net.inputSize]),
    PreState: net.states.map((s) => constant(s, stateShape)),
    WeightList: net.weights.map((w) => constant(w.data, w.shape)),
  }, {
    mode: net.mode,
    num_layers: net.layers,
    is_bidirec: net.dirs === 2,
    input_size: net.inputSize,
    hidden_size: net.hidden,
    dropout_prob: 0,
    is_test: true,
    seed: 0,
    ...attrs,
  } as never, { State: states });
  return [out.Out[0], ...states];
}

function assertClose(got: number[], want: number[], what: string): void {
  assertEquals(got.length, want.length, what);
  const worst = Math.max(...got.map((g, i) => Math.abs(g - want[i])));
  assert(worst <= 1e-6, `${what}: off by ${worst}`);
}

async function checkAgainstReference(net: Net): Promise<void> {
  const run = await runProgram(() => rnnOp(net));
  const want = reference(net);
  const [out, ...states] = run.values.map(tensorOf);
  assertEquals(out.shape, [net.seq, net.batch, net.dirs * net.hidden]);
  assertClose([...out.data as Float32Array], want.out.flat(2), "Out");
  states.forEach((s, k) => {
    assertEquals(s.shape, [net.layers * net.dirs, net.batch, net.hidden]);
    assertClose([...s.data as Float32Array], want.states[k].flat(2), "State");
  });
}

testOpCases("RNN_OPS", RNN_OPS, {
  rnn: [{
    what:
      "writes Out [T, B, H] and State [1, B, H] for a GRU as Paddle saves it",
    build: () => rnnOp(makeNet("GRU")),
    tensors: [
      { dtype: "float32", shape: [3, 2, 2] },
      { dtype: "float32", shape: [1, 2, 2] },
    ],
  }],
});

for (const mode of ["LSTM", "GRU", "RNN_TANH", "RNN_RELU"] as const) {
  Deno.test(`rnn computes ${mode} as the reference loop does`, async () => {
    await checkAgainstReference(makeNet(mode));
  });
}

Deno.test("rnn computes a bidirectional GRU as the reference loop does", async () => {
  await checkAgainstReference(makeNet("GRU", { dirs: 2 }));
});

Deno.test("rnn computes a 2-layer bidirectional LSTM as the reference loop does", async () => {
  await checkAgainstReference(makeNet("LSTM", { layers: 2, dirs: 2 }));
});

Deno.test("rnn computes a 2-layer RNN_TANH as the reference loop does", async () => {
  await checkAgainstReference(makeNet("RNN_TANH", { layers: 2 }));
});

// An rnn op over declared shapes: a 1-layer, 1-direction GRU (hidden 2,
// input 3) given `weights` tensors, the first of shape `first`.
function gruDesc(weights: number, first = [6, 3]) {
  const names = Array.from({ length: weights }, (_, k) => `w${k}`);
  const shapes = [first, [6, 2], [6], [6]];
  return create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      vars: [
        tensor("x", [5, -1, 3]),
        tensor("h0", [1, -1, 2]),
        ...names.map((n, k) => tensor(n, shapes[k % 4])),
        tensor("out"),
        tensor("h"),
      ],
      ops: [
        op("rnn", { Input: ["x"], PreState: ["h0"], WeightList: names }, {
          Out: ["out"],
          State: ["h"],
        }, [
          { name: "mode", type: AttrType.STRING, s: "GRU" },
          { name: "hidden_size", type: AttrType.INT, i: 2 },
          { name: "input_size", type: AttrType.INT, i: 3 },
          { name: "is_test", type: AttrType.BOOLEAN, b: true },
        ]),
      ],
    }],
  });
}

Deno.test("rnn accepts a GRU's four weights at validation", () => {
  validateProgram(gruDesc(4));
});

Deno.test("rnn refuses a weight list that does not match its mode, naming the counts", () => {
  const e = assertThrows(() => validateProgram(gruDesc(8)), ProgramError);
  assertEquals(e.where.opType, "rnn");
  assertEquals(
    e.message,
    "block 0 op 0 (rnn): WeightList holds 8 tensors; mode GRU with 1 layer(s) " +
      "and 1 direction(s) needs 4 (weight_ih, weight_hh, bias_ih, bias_hh " +
      "per layer and direction)",
  );
});

Deno.test("rnn refuses a weight whose shape does not fit its sizes", () => {
  const e = assertThrows(
    () => validateProgram(gruDesc(4, [6, 4])),
    ProgramError,
  );
  assertEquals(
    e.message,
    "block 0 op 0 (rnn): WeightList[0] is [6, 4], not [6, 3]",
  );
});

Deno.test("rnn refuses an LSTM without its cell state", () => {
  const desc = gruDesc(4);
  desc.blocks[0].ops[0].attrs[0].s = "LSTM";
  const e = assertThrows(() => validateProgram(desc), ProgramError);
  assertEquals(
    e.message,
    "block 0 op 0 (rnn): PreState holds 1 tensors; mode LSTM needs 2",
  );
});
