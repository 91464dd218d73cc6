/**
 * Ops that rearrange tensors: reshape, transpose, concat, split, slice,
 * gather.
 *
 * @module
 */
import type { Tensor } from "../../kernels/tensor.ts";
import {
  attr,
  defineOp,
  type InferredType,
  type OpDef,
  slot,
} from "../core/op_def.ts";
import { unaryKernelOp } from "./kernel_op.ts";

function reshapeRule(x: InferredType, shape: readonly number[]): InferredType {
  const dims = shape.map((d, i) => (d === 0 ? x.shape?.[i] ?? -1 : d));
  const known = x.shape?.every((d) => d >= 0)
    ? x.shape.reduce((p, d) => p * d, 1)
    : -1;
  const rest = dims.reduce((p, d) => (d < 0 ? p : p * d), 1);
  const unknowns = dims.filter((d) => d < 0).length;
  if (known >= 0 && unknowns === 0 && rest !== known) {
    throw new RangeError(
      `reshape: [${x.shape!.join(", ")}] cannot become [${shape.join(", ")}]`,
    );
  }
  if (known >= 0 && unknowns === 1 && rest > 0) {
    return {
      dtype: x.dtype,
      shape: dims.map((d) => (d < 0 ? known / rest : d)),
    };
  }
  return { dtype: x.dtype, shape: dims };
}

const concat = defineOp({
  type: "concat",
  summary: "Out = every X joined along axis",
  inputs: { X: slot.tensor({ duplicable: true }) },
  outputs: { Out: slot.tensor() },
  attrs: { axis: attr.int(0) },
  infer: ({ inputs }) => ({ Out: { dtype: inputs("X")[0]?.dtype } }),
  prepare(ctx) {
    const xs = ctx.inputList("X");
    const out = ctx.output("Out");
    const axis = ctx.attrs.axis;
    return (scope, thread) => {
      out.write(
        scope,
        thread.run.device.kernels.concat(xs.map((x) => x.tensor(scope)), axis),
      );
    };
  },
});

const split = defineOp({
  type: "split",
  summary: "Out = X cut along axis into sections, or num equal parts",
  inputs: { X: slot.tensor() },
  outputs: { Out: slot.tensor({ duplicable: true }) },
  attrs: { axis: attr.int(0), sections: attr.ints([]), num: attr.int(0) },
  check(a) {
    if ((a.sections.length > 0) === (a.num > 0)) {
      throw new RangeError('give exactly one of "sections" and "num"');
    }
  },
  prepare(ctx) {
    const x = ctx.input("X");
    const outs = ctx.outputList("Out");
    const { axis, sections, num } = ctx.attrs;
    const how = num > 0 ? { num } : { sections };
    return (scope, thread) => {
      const parts = thread.run.device.kernels.split(x.tensor(scope), axis, how);
      if (parts.length !== outs.length) {
        throw new RangeError(
          `split: ${parts.length} parts for ${outs.length} outputs`,
        );
      }
      parts.forEach((p, i) => outs[i].write(scope, p));
    };
  },
});

const slice = defineOp({
  type: "slice",
  summary: "Out = Input[starts:ends] along axes (Starts/Ends tensors override)",
  inputs: {
    Input: slot.tensor(),
    Starts: slot.tensor({ optional: true }),
    Ends: slot.tensor({ optional: true }),
  },
  outputs: { Out: slot.tensor() },
  attrs: { axes: attr.ints([]), starts: attr.ints([]), ends: attr.ints([]) },
  infer: ({ inputs }) => ({ Out: { dtype: inputs("Input")[0]?.dtype } }),
  prepare(ctx) {
    const input = ctx.input("Input");
    const starts = ctx.optionalInput("Starts");
    const ends = ctx.optionalInput("Ends");
    const out = ctx.output("Out");
    const a = ctx.attrs;
    const listOf = (t: Tensor) =>
      Array.from({ length: t.size }, (_, i) => Number(t.item(i)));
    return (scope, thread) => {
      out.write(
        scope,
        thread.run.device.kernels.slice(
          input.tensor(scope),
          a.axes,
          starts ? listOf(starts.tensor(scope)) : a.starts,
          ends ? listOf(ends.tensor(scope)) : a.ends,
        ),
      );
    };
  },
});

const gather = defineOp({
  type: "gather",
  summary: "Out = X's entries at Index along axis",
  inputs: { X: slot.tensor(), Index: slot.tensor() },
  outputs: { Out: slot.tensor() },
  // Paddle saves `overwrite` (how its gradient treats repeated indices):
  // accepted, and without effect on the forward pass.
  attrs: { axis: attr.int(0), overwrite: attr.bool(true) },
  infer: ({ inputs }) => ({ Out: { dtype: inputs("X")[0]?.dtype } }),
  prepare(ctx) {
    const x = ctx.input("X");
    const index = ctx.input("Index");
    const out = ctx.output("Out");
    const axis = ctx.attrs.axis;
    return (scope, thread) => {
      out.write(
        scope,
        thread.run.device.kernels.gather(
          x.tensor(scope),
          index.tensor(scope),
          axis,
        ),
      );
    };
  },
});

/**
 * Every shape op.
 *
 * @example Usage
 * ```ts
 * import { SHAPE_OPS } from "./shape.ts";
 * import { assert } from "@std/assert";
 *
 * assert(SHAPE_OPS.some((def) => def.type === "reshape"));
 * ```
 */
export const SHAPE_OPS: readonly OpDef[] = [
  unaryKernelOp({
    type: "reshape",
    summary: "Out = X with a new shape (-1 infers, 0 copies)",
    attrs: { shape: attr.ints([]) },
    compute: (device, x, a) => device.kernels.reshape(x, a.shape),
    infer: (x, a) => reshapeRule(x, a.shape),
  }),
  unaryKernelOp({
    type: "transpose",
    summary: "Out = X with its dims permuted by axis",
    attrs: { axis: attr.ints([]) },
    compute: (device, x, a) => device.kernels.transpose(x, a.axis),
    infer: (x, a) => ({
      dtype: x.dtype,
      shape: x.shape && a.axis.map((i) => x.shape![i] ?? -1),
    }),
  }),
  concat,
  split,
  slice,
  gather,
];
