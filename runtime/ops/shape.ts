/**
 * Ops that rearrange tensors: reshape, transpose, concat, split, slice,
 * gather.
 *
 * @module
 */
import { sliceLayout } from "../../kernels/layout.ts";
import { Tensor } from "../../kernels/tensor.ts";
import {
  attr,
  defineOp,
  type InferredType,
  type OpDef,
  slot,
} from "../core/op_def.ts";
import type { Scope } from "../core/scope.ts";
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
  kernels: ["concat"],
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
  kernels: ["split"],
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

// Along each sliced axis with a known dim, the length a slice keeps.
function slicedDims(
  shape: readonly number[],
  axes: readonly number[],
  starts: readonly number[],
  ends: readonly number[],
): number[] {
  if (starts.length !== axes.length || ends.length !== axes.length) {
    throw new RangeError(
      `slice: ${axes.length} axes need as many starts and ends, got ${starts.length} and ${ends.length}`,
    );
  }
  const dims = [...shape];
  axes.forEach((axis, i) => {
    const a = axis < 0 ? axis + shape.length : axis;
    if (!(a >= 0 && a < shape.length)) {
      throw new RangeError(
        `slice: axis ${axis} is out of range for rank ${shape.length}`,
      );
    }
    if (dims[a] < 0) return;
    dims[a] = sliceLayout([dims[a]], [0], [starts[i]], [ends[i]]).shape[0];
  });
  return dims;
}

// Paddle's decrease_axis: those dims (each 1 after slicing) go; nothing
// left is [1], as Paddle 2.x makes it.
function decreasedDims(
  shape: readonly number[],
  decrease: readonly number[],
): number[] {
  if (decrease.length === 0) return [...shape];
  const gone = new Set<number>();
  for (const axis of decrease) {
    const a = axis < 0 ? axis + shape.length : axis;
    if (!(a >= 0 && a < shape.length) || (shape[a] !== 1 && shape[a] >= 0)) {
      throw new RangeError(
        `slice: decrease_axis ${axis} is not a dim of 1 in [${
          shape.join(", ")
        }]`,
      );
    }
    gone.add(a);
  }
  const dims = shape.filter((_, i) => !gone.has(i));
  return dims.length === 0 ? [1] : dims;
}

// Paddle's SliceOpMaker: StartsTensor, then StartsTensorList, then the
// attribute (likewise for ends); Rill's own Starts and Ends come after
// Paddle's tensors. infer_flags only says which bounds Paddle knew when it
// built the program, and changes nothing here.
const slice = defineOp({
  type: "slice",
  kernels: ["slice", "reshape"],
  summary:
    "Out = Input[starts:ends] along axes, then without the decrease_axis dims (StartsTensor, StartsTensorList, Starts override starts; likewise ends)",
  inputs: {
    Input: slot.tensor(),
    StartsTensor: slot.tensor({ optional: true }),
    EndsTensor: slot.tensor({ optional: true }),
    StartsTensorList: slot.tensor({ optional: true, duplicable: true }),
    EndsTensorList: slot.tensor({ optional: true, duplicable: true }),
    Starts: slot.tensor({ optional: true }),
    Ends: slot.tensor({ optional: true }),
  },
  outputs: { Out: slot.tensor() },
  attrs: {
    axes: attr.ints([]),
    starts: attr.ints([]),
    ends: attr.ints([]),
    infer_flags: attr.ints([]),
    decrease_axis: attr.ints([]),
  },
  infer({ inputs, attrs: a }) {
    const input = inputs("Input")[0];
    const fromTensors = [
      "StartsTensor",
      "EndsTensor",
      "StartsTensorList",
      "EndsTensorList",
      "Starts",
      "Ends",
    ].some((name) => inputs(name).length > 0);
    const shape = input?.shape === undefined || fromTensors
      ? undefined
      : decreasedDims(
        slicedDims(input.shape, a.axes, a.starts, a.ends),
        a.decrease_axis,
      );
    return { Out: { dtype: input?.dtype, shape } };
  },
  prepare(ctx) {
    const input = ctx.input("Input");
    const bound = (tensor: string, list: string, rill: string) => ({
      tensor: ctx.optionalInput(tensor),
      list: ctx.inputList(list),
      rill: ctx.optionalInput(rill),
    });
    const starts = bound("StartsTensor", "StartsTensorList", "Starts");
    const ends = bound("EndsTensor", "EndsTensorList", "Ends");
    const out = ctx.output("Out");
    const a = ctx.attrs;
    const listOf = (t: Tensor) =>
      Array.from({ length: t.size }, (_, i) => Number(t.item(i)));
    const read = (
      scope: Scope,
      b: typeof starts,
      fallback: readonly number[],
    ): readonly number[] => {
      if (b.tensor) return listOf(b.tensor.tensor(scope));
      if (b.list.length > 0) {
        return b.list.map((r) => Number(r.tensor(scope).item(0)));
      }
      return b.rill ? listOf(b.rill.tensor(scope)) : fallback;
    };
    return (scope, thread) => {
      const kernels = thread.run.device.kernels;
      const sliced = kernels.slice(
        input.tensor(scope),
        a.axes,
        read(scope, starts, a.starts),
        read(scope, ends, a.ends),
      );
      if (a.decrease_axis.length === 0) {
        out.write(scope, sliced);
        return;
      }
      const dims = decreasedDims(sliced.shape, a.decrease_axis);
      out.write(
        scope,
        sliced.size === 0
          ? Tensor.zeros(dims, sliced.dtype)
          : kernels.reshape(sliced, dims),
      );
    };
  },
});

const gather = defineOp({
  type: "gather",
  kernels: ["gather"],
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
    kernels: ["reshape"],
    summary: "Out = X with a new shape (-1 infers, 0 copies)",
    attrs: { shape: attr.ints([]) },
    compute: (device, x, a) => device.kernels.reshape(x, a.shape),
    infer: (x, a) => reshapeRule(x, a.shape),
  }),
  unaryKernelOp({
    type: "transpose",
    kernels: ["transpose"],
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
