// Paddle's `rnn` network (LSTM, GRU, RNN_TANH, RNN_RELU) in float32 on the
// GPU, with the CPU kernel's layout and gates (kernels/cpu/rnn.ts): the
// whole sequence stays on the device, nothing is read back mid-way.
//
// Per layer and direction (a cell):
//   1. one matmul projects the whole input sequence, [T·B, I] times
//      weight_ihᵀ: the input gates of every step at once;
//   2. weight_hh is transposed once, then per time step one matmul
//      [B, H] · [H, G·H] gives the hidden gates and one gate dispatch adds
//      the biases, applies the cell and writes h (and c) in place and the
//      step's output row.
// The matmuls are the matmul kernels (_matmul_wgsl.ts); the gate kernel's
// activations are IEEE_WGSL's f_sigmoid and f_tanh.
//
// Invariants:
//   Each state element is read and written by one invocation of a step's
//   gate dispatch, and dispatches run in recording order, so updating the
//   states in place is safe.
//   Sums are float32 (the matmuls), activations within 3e-5: results agree
//   with the CPU's float64 within TOLERANCE.rnn (argued at GPU_KERNELS.rnn).
//   An empty sequence or batch throws a RangeError before recording, and
//   the CPU runs it.

import { formatShape } from "../_shape.ts";
import { RNN_GATES } from "../cpu/rnn.ts";
import type { RnnKernelOptions, RnnMode } from "../kernel_options.ts";
import type { GpuBatch } from "./gpu_batch.ts";
import type { GpuTensor } from "./gpu_tensor.ts";
import { IEEE_WGSL } from "./_ieee_wgsl.ts";
import { matmul } from "./matmul.ts";
import { concat, slice, transpose } from "./shape.ts";

const WORKGROUP = 64;
const MAX_WORKGROUPS = 65535;

/**
 * The network on the GPU: every layer and direction over the whole
 * sequence. Precondition: the shapes fit the options (runtime/ops/rnn.ts
 * checks them), as for the CPU kernel.
 *
 * @param batch Where the dispatches go.
 * @param x The input `[T, B, I]`, float32.
 * @param preStates h0 (and c0 for LSTM), `[L·D, B, H]` each.
 * @param weights weight_ih, weight_hh of each cell, then bias_ih, bias_hh.
 * @param options The mode, layers, directions and hidden size.
 * @returns `[Out, ...State]`: Out `[T, B, D·H]`, each state's last value.
 * @throws {TypeError} If an operand is not float32.
 * @throws {RangeError} If the sequence or the batch is empty.
 *
 * @example Usage
 * ```ts
 * import { GpuDevice } from "./gpu_device.ts";
 * import { GpuBatch } from "./gpu_batch.ts";
 * import { rnn } from "./rnn.ts";
 * import { Tensor } from "../tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gpu = await GpuDevice.request();
 * if (gpu instanceof GpuDevice) {
 *   const batch = new GpuBatch(gpu);
 *   const up = (v: number, shape: number[]) =>
 *     batch.upload(Tensor.full(shape, "float32", v));
 *   // RNN_RELU, H = 1: h' = relu(2x + 3h + 0.5 + 0.5).
 *   const outs = rnn(
 *     batch,
 *     batch.upload(Tensor.fromArray([[[1]], [[2]]], "float32")),
 *     [up(0, [1, 1, 1])],
 *     [up(2, [1, 1]), up(3, [1, 1]), up(0.5, [1]), up(0.5, [1])],
 *     { mode: "RNN_RELU", layers: 1, bidirectional: false, hidden: 1 },
 *   );
 *   const [out, h] = await batch.read(outs);
 *   assertEquals([out.toNested(), h.toNested()], [[[[3]], [[14]]], [[[14]]]]);
 *   gpu.destroy();
 * }
 * ```
 */
export function rnn(
  batch: GpuBatch,
  x: GpuTensor,
  preStates: readonly GpuTensor[],
  weights: readonly GpuTensor[],
  options: RnnKernelOptions,
): GpuTensor[] {
  for (const t of [x, ...preStates, ...weights]) {
    if (t.dtype !== "float32") {
      throw new TypeError(`rnn: the GPU kernel takes float32, got ${t.dtype}`);
    }
  }
  const [t, b] = x.shape;
  if (t * b === 0) {
    throw new RangeError(
      `rnn: input ${formatShape(x.shape)} is empty, which the CPU runs`,
    );
  }
  const dirs = options.bidirectional ? 2 : 1;
  const cells = options.layers * dirs;
  // Each cell's states, [1, B, H] copies updated in place step by step.
  const states = preStates.map((s) =>
    Array.from({ length: cells }, (_, c) => slice(batch, s, [0], [c], [c + 1]))
  );
  let seq = x;
  for (let l = 0; l < options.layers; l++) {
    const out = batch.allocate("float32", [t, b, dirs * options.hidden]);
    for (let d = 0; d < dirs; d++) {
      const c = l * dirs + d;
      const cell: GpuCell = {
        wIh: weights[2 * c],
        wHh: weights[2 * c + 1],
        bIh: weights[2 * cells + 2 * c],
        bHh: weights[2 * cells + 2 * c + 1],
        h: states[0][c],
        c: states[1]?.[c],
      };
      runCell(batch, options, cell, seq, out, d);
    }
    if (seq !== x) seq.release();
    seq = out;
  }
  const last = states.map((parts) => {
    const whole = concat(batch, parts, 0);
    if (parts.length > 1) { for (const p of parts) p.release(); }
    return whole;
  });
  return [seq, ...last];
}

// One cell's weights (as given) and its state tensors on the GPU.
interface GpuCell {
  readonly wIh: GpuTensor;
  readonly wHh: GpuTensor;
  readonly bIh: GpuTensor;
  readonly bHh: GpuTensor;
  readonly h: GpuTensor;
  /** LSTM's cell state; the others have none. */
  readonly c?: GpuTensor;
}

// Steps 1 and 2 of the top for direction d of a layer whose input is
// `seq` [T, B, I], writing columns [d·H, (d + 1)·H) of `out`.
function runCell(
  batch: GpuBatch,
  options: RnnKernelOptions,
  cell: GpuCell,
  seq: GpuTensor,
  out: GpuTensor,
  d: number,
): void {
  const [t, b, i] = seq.shape;
  const h = options.hidden;
  const gi = matmul(batch, seq.view([t * b, i]), cell.wIh, {
    transposeY: true,
  });
  const wT = transpose(batch, cell.wHh, [1, 0]);
  const pipeline = batch.pipelines.get(
    { op: "rnn", dtype: "float32", variant: options.mode },
    () => gateWgsl(options.mode),
  );
  const count = b * h;
  const groups = Math.ceil(count / WORKGROUP);
  const x = Math.min(groups, MAX_WORKGROUPS);
  for (let s = 0; s < t; s++) {
    const step = d === 1 ? t - 1 - s : s;
    const hh = matmul(batch, cell.h.view([b, h]), wT);
    batch.dispatch({
      pipeline,
      buffers: [
        gi.buffer,
        hh.buffer,
        cell.bIh.buffer,
        cell.bHh.buffer,
        cell.h.buffer,
        ...(cell.c === undefined ? [] : [cell.c.buffer]),
        out.buffer,
      ],
      params: new Uint32Array([b, h, step, out.shape[2], d * h]),
      workgroups: [x, Math.ceil(groups / x)],
    });
    hh.release();
  }
  gi.release();
  wT.release();
}

// The cell of each mode on gate pre-activations pre(k) + hid(k) (hid(k)
// alone for GRU's n, which r scales); writes H (and C) in place.
const CELLS: Readonly<Record<RnnMode, string>> = {
  LSTM: `
    let ig = f_sigmoid(pre(0u) + hid(0u));
    let fg = f_sigmoid(pre(1u) + hid(1u));
    let gg = f_tanh(pre(2u) + hid(2u));
    let og = f_sigmoid(pre(3u) + hid(3u));
    let cn = fg * C[e] + ig * gg;
    C[e] = cn;
    Hs[e] = og * f_tanh(cn);`,
  GRU: `
    let rg = f_sigmoid(pre(0u) + hid(0u));
    let zg = f_sigmoid(pre(1u) + hid(1u));
    let ng = f_tanh(pre(2u) + rg * hid(2u));
    Hs[e] = zg * Hs[e] + (1.0 - zg) * ng;`,
  RNN_TANH: `
    Hs[e] = f_tanh(pre(0u) + hid(0u));`,
  RNN_RELU: `
    Hs[e] = f_max(0.0, pre(0u) + hid(0u));`,
};

// p: [B, H, step, D·H, column]. GI [T·B, G·H], HH [B, G·H]; invocation e
// is state element (b, j) = (e / H, e % H). C (LSTM's cell state) is bound
// only for LSTM: a layout made from the shader has no unused binding.
function gateWgsl(mode: RnnMode): string {
  const lstm = mode === "LSTM";
  return `
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read> GI: array<f32>;
@group(0) @binding(2) var<storage, read> HH: array<f32>;
@group(0) @binding(3) var<storage, read> BI: array<f32>;
@group(0) @binding(4) var<storage, read> BH: array<f32>;
@group(0) @binding(5) var<storage, read_write> Hs: array<f32>;
${lstm ? "@group(0) @binding(6) var<storage, read_write> C: array<f32>;" : ""}
@group(0) @binding(${lstm ? 7 : 6}) var<storage, read_write> Out: array<f32>;
${IEEE_WGSL}
const GATES = ${RNN_GATES[mode]}u;
var<private> gRow: u32;
var<private> hRow: u32;
var<private> col: u32;
fn pre(k: u32) -> f32 { return GI[gRow + k * p[1] + col] + BI[k * p[1] + col]; }
fn hid(k: u32) -> f32 { return HH[hRow + k * p[1] + col] + BH[k * p[1] + col]; }
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nw: vec3<u32>) {
  let e = gid.x + gid.y * nw.x * ${WORKGROUP}u;
  let B = p[0]; let H = p[1];
  if (e >= B * H) { return; }
  let b = e / H;
  col = e % H;
  gRow = (p[2] * B + b) * GATES * H;
  hRow = b * GATES * H;
  ${CELLS[mode]}
  Out[(p[2] * B + b) * p[3] + p[4] + col] = Hs[e];
}`;
}
