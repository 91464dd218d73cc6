/**
 * Paddle's inference layers: `fc` (the fused fully connected layer that
 * Paddle's passes write) and `lookup_table_v2` (Paddle 2.x's embedding),
 * with the slots, attributes and defaults of Paddle's OpMakers. Both run
 * through the device's existing kernels: fc is mul2d (the pool's and the
 * GPU's product, as mul is), a broadcast add and relu; lookup_table_v2 is
 * gather over W's rows.
 *
 * @module
 */
import type { Kernels } from "../../kernels/device.ts";
import { Tensor } from "../../kernels/tensor.ts";
import { AttrError } from "../core/attr_read.ts";
import {
  attr,
  defineOp,
  type InferredType,
  type OpDef,
  slot,
} from "../core/op_def.ts";

function text(shape: readonly number[]): string {
  return `[${shape.join(", ")}]`;
}

// Paddle's FCOp InferShape: W is a matrix; Input flattens to a matrix at
// in_num_col_dims, whose columns are W's rows; Bias is [N] or [1, N].
function fcType(
  input: InferredType | undefined,
  w: InferredType | undefined,
  bias: InferredType | undefined,
  cols: number,
): InferredType {
  const x = input?.shape;
  const wShape = w?.shape;
  if (wShape !== undefined && wShape.length !== 2) {
    throw new RangeError(`fc: W ${text(wShape)} is not a matrix`);
  }
  if (x !== undefined && !(cols >= 1 && cols < x.length)) {
    throw new RangeError(
      `fc: in_num_col_dims ${cols} is out of range for Input ${text(x)} (1 to ${
        x.length - 1
      })`,
    );
  }
  const n = wShape?.[1] ?? -1;
  const b = bias?.shape;
  if (
    b !== undefined && n >= 0 &&
    !((b.length === 1 && b[0] === n) ||
      (b.length === 2 && b[0] === 1 && b[1] === n))
  ) {
    throw new RangeError(
      `fc: Bias ${text(b)} is neither [${n}] nor [1, ${n}] for W ${
        text(wShape!)
      }`,
    );
  }
  if (x === undefined) return { dtype: input?.dtype };
  const k = x.slice(cols).reduce((p, d) => (p < 0 || d < 0 ? -1 : p * d), 1);
  if (wShape !== undefined && k >= 0 && wShape[0] >= 0 && k !== wShape[0]) {
    throw new RangeError(
      `fc: Input ${text(x)} flattened at in_num_col_dims ${cols} has ${k} ` +
        `columns, but W ${text(wShape)} has ${wShape[0]} rows`,
    );
  }
  return { dtype: input?.dtype, shape: [...x.slice(0, cols), n] };
}

// Paddle's FCOpMaker. padding_weights asks for W padded by 4 rows and 4
// columns (an MKL layout) that Rill does not read; use_mkldnn and the
// quantization switches are extra attributes (core/paddle_extra_attrs.ts).
const fc = defineOp({
  type: "fc",
  kernels: [
    "mul2d",
    { kernel: "binary", kinds: ["add"] },
    { kernel: "unary", kinds: ["relu"] },
  ],
  summary:
    "Out = Input flattened at in_num_col_dims × W + Bias, then relu if activation_type is relu; Out is Input's leading dims and W's columns",
  inputs: {
    Input: slot.tensor(),
    W: slot.tensor(),
    Bias: slot.tensor({ optional: true }),
  },
  outputs: { Out: slot.tensor() },
  attrs: {
    in_num_col_dims: attr.int(1),
    activation_type: attr.string(""),
    padding_weights: attr.bool(false),
  },
  check(a) {
    if (a.activation_type !== "" && a.activation_type !== "relu") {
      throw new AttrError(
        "activation_type",
        `"${a.activation_type}" is not "" or "relu"`,
      );
    }
    if (a.padding_weights) {
      throw new AttrError(
        "padding_weights",
        "true asks for W padded in MKL's layout, which Rill does not read (only false)",
      );
    }
  },
  infer({ inputs, attrs: a }) {
    return {
      Out: fcType(
        inputs("Input")[0],
        inputs("W")[0],
        inputs("Bias")[0],
        a.in_num_col_dims,
      ),
    };
  },
  rows: {
    mixesRows: (a) =>
      a.in_num_col_dims === 1
        ? undefined
        : `goes into an fc with in_num_col_dims ${a.in_num_col_dims}, not 1`,
  },
  poolWorthy: "product",
  productSlots: ["Input", "W"],
  prepare(ctx) {
    const input = ctx.input("Input");
    const w = ctx.input("W");
    const bias = ctx.optionalInput("Bias");
    const out = ctx.output("Out");
    const { in_num_col_dims: cols, activation_type: activation } = ctx.attrs;
    return (scope, thread) => {
      const k = thread.run.device.kernels;
      let y = k.mul2d(input.tensor(scope), w.tensor(scope), cols, 1);
      if (bias) y = k.binary("add", y, bias.tensor(scope), -1);
      if (activation === "relu") y = k.unary("relu", y);
      out.write(scope, y);
    };
  },
});

function lookupType(
  w: InferredType | undefined,
  ids: InferredType | undefined,
): InferredType {
  const wShape = w?.shape;
  if (wShape !== undefined && wShape.length !== 2) {
    throw new RangeError(
      `lookup_table_v2: W ${text(wShape)} is not a [vocab, dim] matrix`,
    );
  }
  if (
    ids?.dtype !== undefined && ids.dtype !== "int64" && ids.dtype !== "int32"
  ) {
    throw new TypeError(
      `lookup_table_v2: Ids of dtype "${ids.dtype}" are not int64 or int32`,
    );
  }
  const shape = ids?.shape && [...ids.shape, wShape?.[1] ?? -1];
  return { dtype: w?.dtype, shape };
}

// The row to zero, or -1 for none: Paddle's kNoPadding is -1, and another
// negative padding_idx counts from the vocabulary's end, as paddle.nn's
// Embedding turns it into a row before writing the op.
function paddingRow(paddingIdx: bigint, vocab: number): number {
  if (paddingIdx === -1n) return -1;
  const row = Number(paddingIdx);
  return row < 0 ? row + vocab : row;
}

// Rows of W by id, then a zero row for each padding id: gather from the
// looked-up rows with one zero row appended, so the cost is in the ids,
// not the vocabulary.
function lookUp(
  k: Kernels,
  w: Tensor,
  ids: Tensor,
  paddingIdx: bigint,
): Tensor {
  const [vocab, dim] = w.shape;
  const pad = paddingRow(paddingIdx, vocab);
  const flat = Array.from(ids.data as ArrayLike<number | bigint>, Number);
  const picks = new Int32Array(flat.length);
  let padded = false;
  for (const [i, id] of flat.entries()) {
    if (pad >= 0 && id === pad) {
      padded = true;
      continue;
    }
    if (!(id >= 0 && id < vocab)) {
      throw new RangeError(
        `lookup_table_v2: id ${id} is out of range for a vocabulary of ${vocab} rows`,
      );
    }
    picks[i] = id;
  }
  const index = (data: Int32Array) => new Tensor("int32", [data.length], data);
  let rows = k.gather(w, index(picks), 0);
  if (padded) {
    const zeros = k.fill([1, dim], w.dtype, 0);
    const withZero = k.concat([rows, zeros], 0);
    const again = Int32Array.from(
      flat,
      (id, i) => (id === pad ? flat.length : i),
    );
    rows = k.gather(withZero, index(again), 0);
  }
  return k.reshape(rows, [...ids.shape, dim]);
}

// Paddle's LookupTableV2OpMaker: padding_idx (int64) is kNoPadding, -1;
// is_sparse, is_distributed, remote_prefetch and the parameter servers'
// attributes are extra attributes (core/paddle_extra_attrs.ts).
const lookupTableV2 = defineOp({
  type: "lookup_table_v2",
  kernels: ["gather", "fill", "concat", "reshape"],
  summary:
    "Out = the rows of W [vocab, dim] at Ids (int64 or int32, any shape), shape Ids' dims and dim; ids equal to padding_idx (-1: none; other negatives count from vocab's end) give zeros; an id outside [0, vocab) panics",
  inputs: { W: slot.tensor(), Ids: slot.tensor() },
  outputs: { Out: slot.tensor() },
  attrs: { padding_idx: attr.long(-1n) },
  infer({ inputs }) {
    return { Out: lookupType(inputs("W")[0], inputs("Ids")[0]) };
  },
  prepare(ctx) {
    const w = ctx.input("W");
    const ids = ctx.input("Ids");
    const out = ctx.output("Out");
    const paddingIdx = ctx.attrs.padding_idx;
    return (scope, thread) => {
      out.write(
        scope,
        lookUp(
          thread.run.device.kernels,
          w.tensor(scope),
          ids.tensor(scope),
          paddingIdx,
        ),
      );
    };
  },
});

/**
 * Every op of this group.
 *
 * @example Usage
 * ```ts
 * import { PADDLE_NN_OPS } from "./paddle_nn.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const fc = PADDLE_NN_OPS.find((def) => def.type === "fc")!;
 * assertEquals(Object.keys(fc.inputs), ["Input", "W", "Bias"]);
 * ```
 */
export const PADDLE_NN_OPS: readonly OpDef[] = [fc, lookupTableV2];
