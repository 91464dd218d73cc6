/**
 * Paddle 2.x's shape ops: `reshape2`, `transpose2`, `squeeze2`,
 * `unsqueeze2` and `flatten_contiguous_range` with their `XShape` output,
 * and `stack`, `unstack`, `expand_v2`, `fill_constant_batch_size_like` and
 * `pixel_shuffle`, with the slots, attributes and defaults of Paddle's
 * OpMakers and the shape rules of its InferShape functions. Negative axes
 * count from the end.
 *
 * `XShape` is what Paddle writes for the backward op: an empty tensor of
 * dims `[0, ...X's dims]` and X's dtype. It is optional here, and written
 * when the op names it (Paddle's programs always do).
 *
 * Shapes are checked where they are known: by `infer` at validation, which
 * sees declared shapes, and by the same rules at run time, where a
 * mismatch panics at the op. The ops that take their target from tensors
 * (`Shape`, `ShapeTensor`, `AxesTensor`, `expand_shapes_tensor`) read them
 * on the host; integer tensors always live there.
 *
 * The ops made of several kernels (pixel_shuffle, unstack) use only
 * kernels that take, on a GPU, what their first kernel takes: the block
 * runner reads back an op's inputs, not its intermediate results, before
 * running it again.
 *
 * @module
 */
import type { Device } from "../../kernels/device.ts";
import type { DType, Scalar } from "../../kernels/dtype.ts";
import { Tensor } from "../../kernels/tensor.ts";
import { AttrError } from "../core/attr_read.ts";
import {
  attr,
  defineOp,
  type InferredType,
  type OpDef,
  slot,
} from "../core/op_def.ts";
import type { Scope } from "../core/scope.ts";
import type { VarRef } from "../core/var_ref.ts";
import { checkDTypeAttr, dtypeAttr } from "./values.ts";

function text(shape: readonly number[]): string {
  return `[${shape.join(", ")}]`;
}

function product(shape: readonly number[]): number {
  return shape.reduce((p, d) => (p < 0 || d < 0 ? -1 : p * d), 1);
}

// Paddle's XShape: [0, ...X's dims], X's dtype.
function xShapeType(x: InferredType | undefined): InferredType {
  return { dtype: x?.dtype, shape: x?.shape && [0, ...x.shape] };
}

function writeXShape(ref: VarRef | undefined, scope: Scope, x: Tensor): void {
  ref?.write(scope, Tensor.zeros([0, ...x.shape], x.dtype));
}

// X's elements under dims that are all given (no 0 or -1 to resolve).
function viewAs(device: Device, x: Tensor, dims: readonly number[]): Tensor {
  return dims.includes(0)
    ? Tensor.zeros(dims, x.dtype)
    : device.kernels.reshape(x, dims);
}

// Every element of an integer tensor, as numbers.
function valuesOf(t: Tensor): number[] {
  return Array.from({ length: t.size }, (_, i) => Number(t.item(i)));
}

// The one element of each tensor of a list slot (Paddle's *TensorList).
function scalarsOf(ts: readonly Tensor[], slotName: string): number[] {
  return ts.map((t) => {
    if (t.size !== 1) {
      throw new RangeError(
        `input "${slotName}": a tensor of ${t.size} elements, not one`,
      );
    }
    return Number(t.item(0));
  });
}

// A list slot's tensors, first priority; else a tensor slot; else the
// attribute: Paddle's order for reshape2's and unsqueeze2's targets.
function targetOf(
  scope: Scope,
  list: readonly VarRef[],
  listSlot: string,
  tensor: VarRef | undefined,
  fallback: readonly number[],
): readonly number[] {
  if (list.length > 0) {
    return scalarsOf(list.map((r) => r.tensor(scope)), listSlot);
  }
  if (tensor !== undefined) return valuesOf(tensor.tensor(scope));
  return fallback;
}

// ---- reshape2 ---------------------------------------------------------------

// Paddle's ReshapeOp::ValidateShape: one -1 at most, inferred; a 0 copies
// X's dim at its index; the sizes must agree. Unknown dims (-1) in X leave
// the inferred dim unknown.
function reshape2Dims(
  from: readonly number[] | undefined,
  shape: readonly number[],
): number[] | undefined {
  const target = text(shape);
  if (shape.filter((d) => d === -1).length > 1) {
    throw new RangeError(`reshape2: shape ${target} has more than one -1`);
  }
  const bad = shape.find((d) => !Number.isInteger(d) || d < -1);
  if (bad !== undefined) {
    throw new RangeError(`reshape2: shape ${target}: dim ${bad} is negative`);
  }
  if (from === undefined) return undefined;
  const dims = shape.map((d, i) => {
    if (d !== 0) return d;
    if (i >= from.length) {
      throw new RangeError(
        `reshape2: shape ${target}: the 0 at index ${i} copies no dim of X ${
          text(from)
        }`,
      );
    }
    return from[i] < 0 ? -2 : from[i]; // -2: a copied unknown dim
  });
  const size = product(from);
  const inferred = dims.indexOf(-1);
  const rest = dims.reduce((p, d) => (d === -1 ? p : p * d), 1);
  if (size >= 0 && !dims.includes(-2)) {
    const fits = inferred === -1
      ? rest === size
      : rest > 0 && size % rest === 0;
    if (!fits) {
      throw new RangeError(
        `reshape2: X ${text(from)} (${size} elements) cannot become ${target}`,
      );
    }
    if (inferred !== -1) dims[inferred] = size / rest;
  }
  return dims.map((d) => (d === -2 ? -1 : d));
}

const reshape2 = defineOp({
  type: "reshape2",
  kernels: ["reshape"],
  summary:
    "Out = X with a new shape: 0 copies X's dim, one -1 infers; ShapeTensor, then Shape, take precedence over the attribute",
  inputs: {
    X: slot.tensor(),
    Shape: slot.tensor({ optional: true }),
    ShapeTensor: slot.tensor({ optional: true, duplicable: true }),
  },
  outputs: { Out: slot.tensor(), XShape: slot.tensor({ optional: true }) },
  attrs: { shape: attr.ints([]) },
  infer({ inputs, attrs }) {
    const x = inputs("X")[0];
    const list = inputs("ShapeTensor");
    const shapeTensor = inputs("Shape")[0];
    let shape: readonly number[] | undefined;
    if (list.length > 0) {
      shape = list.map(() => -1);
    } else if (shapeTensor !== undefined) {
      const rank = shapeTensor.shape?.length === 1 ? shapeTensor.shape[0] : -1;
      shape = rank >= 0 ? new Array<number>(rank).fill(-1) : undefined;
    } else {
      shape = reshape2Dims(x?.shape, attrs.shape) ??
        attrs.shape.map((d) => d === 0 ? -1 : d);
    }
    return { Out: { dtype: x?.dtype, shape }, XShape: xShapeType(x) };
  },
  prepare(ctx) {
    const x = ctx.input("X");
    const shapeTensor = ctx.optionalInput("Shape");
    const list = ctx.inputList("ShapeTensor");
    const out = ctx.output("Out");
    const xShape = ctx.optionalOutput("XShape");
    const attrShape = ctx.attrs.shape;
    return (scope, thread) => {
      const t = x.tensor(scope);
      const shape = targetOf(
        scope,
        list,
        "ShapeTensor",
        shapeTensor,
        attrShape,
      );
      const dims = reshape2Dims(t.shape, shape)!;
      out.write(scope, viewAs(thread.run.device, t, dims));
      writeXShape(xShape, scope, t);
    };
  },
});

// ---- transpose2 -------------------------------------------------------------

function transposeDims(
  type: string,
  from: readonly number[],
  axis: readonly number[],
): number[] {
  const rank = from.length;
  const perm = axis.map((a) => (a < 0 ? a + rank : a));
  const valid = perm.length === rank && new Set(perm).size === rank &&
    perm.every((a) => Number.isInteger(a) && a >= 0 && a < rank);
  if (!valid) {
    throw new RangeError(
      `${type}: axis ${text(axis)} is not a permutation of the dims of X ${
        text(from)
      }`,
    );
  }
  return perm.map((a) => from[a]);
}

// Paddle's Transpose2OpMaker: axis has no default.
const transpose2 = defineOp({
  type: "transpose2",
  kernels: ["transpose"],
  summary: "Out = X with its dims permuted: Out's dim i is X's dim axis[i]",
  inputs: { X: slot.tensor() },
  outputs: { Out: slot.tensor(), XShape: slot.tensor({ optional: true }) },
  attrs: { axis: attr.required("ints") },
  infer({ inputs, attrs }) {
    const x = inputs("X")[0];
    const shape = x?.shape && transposeDims("transpose2", x.shape, attrs.axis);
    return { Out: { dtype: x?.dtype, shape }, XShape: xShapeType(x) };
  },
  prepare(ctx) {
    const x = ctx.input("X");
    const out = ctx.output("Out");
    const xShape = ctx.optionalOutput("XShape");
    const axis = ctx.attrs.axis;
    return (scope, thread) => {
      const t = x.tensor(scope);
      transposeDims("transpose2", t.shape, axis);
      out.write(scope, thread.run.device.kernels.transpose(t, axis));
      writeXShape(xShape, scope, t);
    };
  },
});

// ---- squeeze2 and unsqueeze2 ------------------------------------------------

// Paddle 2.x's squeeze: without axes every dim of 1 goes; a listed axis
// goes when its dim is 1 (at validation also when unknown, as Paddle's
// compile-time rule says) and stays silently otherwise. Squeezing every
// dim gives rank 0.
function squeezedDims(
  from: readonly number[],
  axes: readonly number[],
  running: boolean,
): number[] {
  const rank = from.length;
  const drop = from.map((d) => axes.length === 0 && d === 1);
  for (const axis of axes) {
    const a = axis < 0 ? axis + rank : axis;
    if (!(Number.isInteger(a) && a >= 0 && a < rank)) {
      throw new RangeError(
        `squeeze2: axis ${axis} is out of range for X ${text(from)}`,
      );
    }
    if (from[a] === 1 || (!running && from[a] === -1)) drop[a] = true;
  }
  return from.filter((_, i) => !drop[i]);
}

const squeeze2 = defineOp({
  type: "squeeze2",
  kernels: ["reshape"],
  summary:
    "Out = X without the dims of 1 that axes lists (every one without axes); a listed dim other than 1 stays",
  inputs: { X: slot.tensor() },
  outputs: { Out: slot.tensor(), XShape: slot.tensor({ optional: true }) },
  attrs: { axes: attr.ints([]) },
  infer({ inputs, attrs }) {
    const x = inputs("X")[0];
    const shape = x?.shape && squeezedDims(x.shape, attrs.axes, false);
    return { Out: { dtype: x?.dtype, shape }, XShape: xShapeType(x) };
  },
  prepare(ctx) {
    const x = ctx.input("X");
    const out = ctx.output("Out");
    const xShape = ctx.optionalOutput("XShape");
    const axes = ctx.attrs.axes;
    return (scope, thread) => {
      const t = x.tensor(scope);
      const dims = squeezedDims(t.shape, axes, true);
      out.write(scope, viewAs(thread.run.device, t, dims));
      writeXShape(xShape, scope, t);
    };
  },
});

// Paddle's unsqueeze: each axis in turn inserts a dim of 1 into the shape
// made so far, counting a negative axis from its end (axis + rank + 1).
function unsqueezedDims(
  from: readonly number[],
  axes: readonly number[],
): number[] {
  const dims = [...from];
  for (const axis of axes) {
    const at = axis < 0 ? axis + dims.length + 1 : axis;
    if (!(Number.isInteger(at) && at >= 0 && at <= dims.length)) {
      throw new RangeError(
        `unsqueeze2: axis ${axis} is out of range for ${text(dims)} (of X ${
          text(from)
        })`,
      );
    }
    dims.splice(at, 0, 1);
  }
  return dims;
}

// Paddle reads AxesTensorList, then AxesTensor, only when `axes` is empty.
const unsqueeze2 = defineOp({
  type: "unsqueeze2",
  kernels: ["reshape"],
  summary:
    "Out = X with a dim of 1 inserted at each of axes in turn (AxesTensorList, then AxesTensor, when axes is empty)",
  inputs: {
    X: slot.tensor(),
    AxesTensor: slot.tensor({ optional: true }),
    AxesTensorList: slot.tensor({ optional: true, duplicable: true }),
  },
  outputs: { Out: slot.tensor(), XShape: slot.tensor({ optional: true }) },
  attrs: { axes: attr.ints([]) },
  infer({ inputs, attrs }) {
    const x = inputs("X")[0];
    const fromTensors = attrs.axes.length === 0 &&
      (inputs("AxesTensorList").length > 0 || inputs("AxesTensor").length > 0);
    const shape = fromTensors || x?.shape === undefined
      ? undefined
      : unsqueezedDims(x.shape, attrs.axes);
    return { Out: { dtype: x?.dtype, shape }, XShape: xShapeType(x) };
  },
  prepare(ctx) {
    const x = ctx.input("X");
    const axesTensor = ctx.optionalInput("AxesTensor");
    const list = ctx.inputList("AxesTensorList");
    const out = ctx.output("Out");
    const xShape = ctx.optionalOutput("XShape");
    const attrAxes = ctx.attrs.axes;
    return (scope, thread) => {
      const t = x.tensor(scope);
      const axes = attrAxes.length > 0
        ? attrAxes
        : targetOf(scope, list, "AxesTensorList", axesTensor, []);
      out.write(
        scope,
        viewAs(thread.run.device, t, unsqueezedDims(t.shape, axes)),
      );
      writeXShape(xShape, scope, t);
    };
  },
});

// ---- flatten_contiguous_range -----------------------------------------------

// Dims start_axis..stop_axis become one; rank 0 becomes [1].
function flattenedDims(
  from: readonly number[],
  startAxis: number,
  stopAxis: number,
): number[] {
  const rank = from.length;
  if (rank === 0) return [1];
  const start = startAxis < 0 ? startAxis + rank : startAxis;
  const stop = stopAxis < 0 ? stopAxis + rank : stopAxis;
  if (!(start >= 0 && stop < rank && start <= stop)) {
    throw new RangeError(
      `flatten_contiguous_range: start_axis ${startAxis} and stop_axis ${stopAxis} do not name a range of the dims of X ${
        text(from)
      }`,
    );
  }
  return [
    ...from.slice(0, start),
    product(from.slice(start, stop + 1)),
    ...from.slice(stop + 1),
  ];
}

const flattenContiguousRange = defineOp({
  type: "flatten_contiguous_range",
  kernels: ["reshape"],
  summary:
    "Out = X with dims start_axis..stop_axis (inclusive) merged into one; rank 0 gives [1]",
  inputs: { X: slot.tensor() },
  outputs: { Out: slot.tensor(), XShape: slot.tensor({ optional: true }) },
  attrs: { start_axis: attr.int(1), stop_axis: attr.int(1) },
  infer({ inputs, attrs }) {
    const x = inputs("X")[0];
    const shape = x?.shape &&
      flattenedDims(x.shape, attrs.start_axis, attrs.stop_axis);
    return { Out: { dtype: x?.dtype, shape }, XShape: xShapeType(x) };
  },
  prepare(ctx) {
    const x = ctx.input("X");
    const out = ctx.output("Out");
    const xShape = ctx.optionalOutput("XShape");
    const { start_axis, stop_axis } = ctx.attrs;
    return (scope, thread) => {
      const t = x.tensor(scope);
      const dims = flattenedDims(t.shape, start_axis, stop_axis);
      out.write(scope, viewAs(thread.run.device, t, dims));
      writeXShape(xShape, scope, t);
    };
  },
});

// ---- stack and unstack ------------------------------------------------------

function stackedType(
  xs: readonly InferredType[],
  axis: number,
): InferredType {
  const known = xs.filter((x) => x.shape !== undefined);
  const first = known[0]?.shape;
  const dtype = xs[0]?.dtype;
  if (first === undefined || known.length < xs.length) return { dtype };
  known.forEach((x, i) => {
    const agree = x.shape!.length === first.length &&
      x.shape!.every((d, j) => d === first[j] || d < 0 || first[j] < 0);
    if (!agree) {
      throw new RangeError(
        `stack: X[0] ${text(first)} and X[${i}] ${text(x.shape!)} differ`,
      );
    }
  });
  const a = axis < 0 ? axis + first.length + 1 : axis;
  if (!(a >= 0 && a <= first.length)) {
    throw new RangeError(
      `stack: axis ${axis} is out of range for inputs ${text(first)}`,
    );
  }
  return { dtype, shape: [...first.slice(0, a), xs.length, ...first.slice(a)] };
}

// Paddle's StackOpMaker: its output is Y.
const stack = defineOp({
  type: "stack",
  kernels: ["stack"],
  summary: "Y = every X (one shape) joined along a new axis",
  inputs: { X: slot.tensor({ duplicable: true }) },
  outputs: { Y: slot.tensor() },
  attrs: { axis: attr.int(0) },
  infer: ({ inputs, attrs }) => ({ Y: stackedType(inputs("X"), attrs.axis) }),
  prepare(ctx) {
    const xs = ctx.inputList("X");
    const y = ctx.output("Y");
    const axis = ctx.attrs.axis;
    return (scope, thread) => {
      y.write(
        scope,
        thread.run.device.kernels.stack(xs.map((x) => x.tensor(scope)), axis),
      );
    };
  },
});

// The axis unstack cuts and the dims of each part; throws when X's dim
// there is known and is not num.
function unstackLayout(
  from: readonly number[],
  axis: number,
  num: number,
): { axis: number; dims: number[] } {
  const a = axis < 0 ? axis + from.length : axis;
  if (!(a >= 0 && a < from.length)) {
    throw new RangeError(
      `unstack: axis ${axis} is out of range for X ${text(from)}`,
    );
  }
  if (from[a] >= 0 && from[a] !== num) {
    throw new RangeError(
      `unstack: X ${text(from)} has ${
        from[a]
      } along axis ${axis}, not num ${num}`,
    );
  }
  return { axis: a, dims: from.filter((_, i) => i !== a) };
}

// Paddle's UnStackOpMaker: num has no default and must be positive.
const unstack = defineOp({
  type: "unstack",
  kernels: ["split", "reshape"],
  summary: "Y = X cut along axis into num tensors, without that axis",
  inputs: { X: slot.tensor() },
  outputs: { Y: slot.tensor({ duplicable: true }) },
  attrs: { axis: attr.int(0), num: attr.required("int") },
  check(a) {
    if (a.num < 1) throw new AttrError("num", `${a.num} is not positive`);
  },
  infer({ inputs, attrs }) {
    const x = inputs("X")[0];
    const shape = x?.shape &&
      unstackLayout(x.shape, attrs.axis, attrs.num).dims;
    const part = { dtype: x?.dtype, shape };
    return { Y: new Array<InferredType>(attrs.num).fill(part) };
  },
  prepare(ctx) {
    const x = ctx.input("X");
    const ys = ctx.outputList("Y");
    const { axis, num } = ctx.attrs;
    return (scope, thread) => {
      const t = x.tensor(scope);
      const { axis: a, dims } = unstackLayout(t.shape, axis, num);
      if (ys.length !== num) {
        throw new RangeError(`unstack: num ${num}, but ${ys.length} outputs`);
      }
      const device = thread.run.device;
      const parts = device.kernels.split(t, a, { num });
      parts.forEach((p, i) => ys[i].write(scope, viewAs(device, p, dims)));
    };
  },
});

// ---- expand_v2 --------------------------------------------------------------

// Paddle's ExpandV2: X's dims align with the last dims of shape; -1 keeps
// X's dim; a dim of 1 repeats; a new leading dim must be positive.
function expandedDims(
  from: readonly number[] | undefined,
  shape: readonly number[],
): number[] | undefined {
  if (from === undefined) return undefined;
  const lead = shape.length - from.length;
  const fail = (why: string): never => {
    throw new RangeError(
      `expand_v2: X ${text(from)} cannot expand to ${text(shape)}: ${why}`,
    );
  };
  if (lead < 0) fail("fewer dims than X");
  return shape.map((d, i) => {
    const x = i < lead ? undefined : from[i - lead];
    if (x === undefined) {
      return d > 0 ? d : fail(`new dim ${i} is ${d}, not positive`);
    }
    if (d === -1) return x;
    if (d <= 0) return fail(`dim ${i} is ${d}, neither positive nor -1`);
    if (x >= 0 && x !== 1 && x !== d) {
      return fail(`dim ${i} of X is ${x}, neither 1 nor ${d}`);
    }
    return d;
  });
}

const expandV2 = defineOp({
  type: "expand_v2",
  kernels: ["broadcastTo"],
  summary:
    "Out = X repeated to shape (-1 keeps X's dim; dims of 1 repeat); Shape, then expand_shapes_tensor, take precedence",
  inputs: {
    X: slot.tensor(),
    Shape: slot.tensor({ optional: true }),
    expand_shapes_tensor: slot.tensor({ optional: true, duplicable: true }),
  },
  outputs: { Out: slot.tensor() },
  attrs: { shape: attr.ints([]) },
  infer({ inputs, attrs }) {
    const x = inputs("X")[0];
    const fromTensors = inputs("Shape").length > 0 ||
      inputs("expand_shapes_tensor").length > 0;
    const shape = fromTensors ? undefined : expandedDims(x?.shape, attrs.shape);
    return { Out: { dtype: x?.dtype, shape } };
  },
  prepare(ctx) {
    const x = ctx.input("X");
    const shapeTensor = ctx.optionalInput("Shape");
    const list = ctx.inputList("expand_shapes_tensor");
    const out = ctx.output("Out");
    const attrShape = ctx.attrs.shape;
    return (scope, thread) => {
      const t = x.tensor(scope);
      // Paddle reads Shape before expand_shapes_tensor here.
      const shape = shapeTensor !== undefined
        ? valuesOf(shapeTensor.tensor(scope))
        : targetOf(scope, list, "expand_shapes_tensor", undefined, attrShape);
      const dims = expandedDims(t.shape, shape)!;
      out.write(scope, thread.run.device.kernels.broadcastTo(t, dims));
    };
  },
});

// ---- fill_constant_batch_size_like ------------------------------------------

// str_value, when given, overrides value (as Paddle's kernel parses it;
// "inf" and "nan" included); int64 reads it exactly.
function fillValue(dtype: DType, value: number, str: string): Scalar {
  if (dtype === "int64") {
    if (str === "") return BigInt(Math.trunc(value));
    if (!/^\s*[-+]?\d+\s*$/.test(str)) {
      throw new AttrError("str_value", `"${str}" is not an integer`);
    }
    return BigInt(str.trim());
  }
  let v = value;
  if (str !== "") {
    const special = /^\s*([-+]?)(inf|infinity|nan)\s*$/i.exec(str);
    v = special
      ? special[2].toLowerCase() === "nan"
        ? NaN
        : special[1] === "-"
        ? -Infinity
        : Infinity
      : Number(str);
    if (Number.isNaN(v) && !special) {
      throw new AttrError("str_value", `"${str}" is not a number`);
    }
  }
  return dtype === "bool" ? v !== 0 : v;
}

function batchSizeLikeDims(
  input: readonly number[] | undefined,
  shape: readonly number[],
  inputIdx: number,
  outputIdx: number,
): number[] {
  const batch = input === undefined ? -1 : input[inputIdx];
  if (input !== undefined && batch === undefined) {
    throw new RangeError(
      `fill_constant_batch_size_like: input_dim_idx ${inputIdx} is out of range for Input ${
        text(input)
      }`,
    );
  }
  return shape.map((d, i) => (i === outputIdx ? batch : d));
}

const fillConstantBatchSizeLike = defineOp({
  type: "fill_constant_batch_size_like",
  kernels: ["fill"],
  summary:
    "Out = a tensor of shape, its output_dim_idx dim taken from Input's input_dim_idx dim, filled with value (or str_value)",
  inputs: { Input: slot.tensor() },
  outputs: { Out: slot.tensor() },
  attrs: {
    shape: attr.required("ints"),
    value: attr.float(0),
    str_value: attr.string(""),
    dtype: attr.int(5),
    input_dim_idx: attr.int(0),
    output_dim_idx: attr.int(0),
    force_cpu: attr.bool(false),
  },
  check(a) {
    checkDTypeAttr("dtype", a.dtype);
    fillValue(dtypeAttr(a.dtype), a.value, a.str_value);
    if (!(a.output_dim_idx >= 0 && a.output_dim_idx < a.shape.length)) {
      throw new AttrError(
        "output_dim_idx",
        `${a.output_dim_idx} is out of range for shape ${text(a.shape)}`,
      );
    }
    if (a.input_dim_idx < 0) {
      throw new AttrError("input_dim_idx", `${a.input_dim_idx} is negative`);
    }
  },
  infer: ({ inputs, attrs }) => ({
    Out: {
      dtype: dtypeAttr(attrs.dtype),
      shape: batchSizeLikeDims(
        inputs("Input")[0]?.shape,
        attrs.shape,
        attrs.input_dim_idx,
        attrs.output_dim_idx,
      ),
    },
  }),
  prepare(ctx) {
    const input = ctx.input("Input");
    const out = ctx.output("Out");
    const a = ctx.attrs;
    const dtype = dtypeAttr(a.dtype);
    const value = fillValue(dtype, a.value, a.str_value);
    return (scope, thread) => {
      const dims = batchSizeLikeDims(
        input.tensor(scope).shape,
        a.shape,
        a.input_dim_idx,
        a.output_dim_idx,
      );
      out.write(scope, thread.run.device.kernels.fill(dims, dtype, value));
    };
  },
});

// ---- pixel_shuffle ----------------------------------------------------------

const PIXEL_SHUFFLE_FORMATS = ["NCHW", "NHWC", "AnyLayout"];

// The output dims of pixel_shuffle; throws unless X has rank 4 and its
// channels divide by r².
function shuffledDims(
  from: readonly number[],
  r: number,
  channelsLast: boolean,
): number[] {
  if (from.length !== 4) {
    throw new RangeError(
      `pixel_shuffle: X ${text(from)} is not of rank 4`,
    );
  }
  const [n, c, h, w] = channelsLast
    ? [from[0], from[3], from[1], from[2]]
    : from;
  if (c >= 0 && c % (r * r) !== 0) {
    throw new RangeError(
      `pixel_shuffle: X ${
        text(from)
      }: ${c} channels do not divide by upscale_factor² = ${r * r}`,
    );
  }
  const scaled = (d: number) => (d < 0 ? -1 : d * r);
  const channels = c < 0 ? -1 : c / (r * r);
  return channelsLast
    ? [n, scaled(h), scaled(w), channels]
    : [n, channels, scaled(h), scaled(w)];
}

// Paddle's PixelShuffle: channel c·r² + i·r + j of pixel (y, x) goes to
// channel c of pixel (y·r + i, x·r + j); a reshape, a transpose and a
// reshape, so it runs wherever transpose does.
function pixelShuffle(
  device: Device,
  x: Tensor,
  r: number,
  channelsLast: boolean,
): Tensor {
  const dims = shuffledDims(x.shape, r, channelsLast);
  const k = device.kernels;
  if (channelsLast) {
    const [n, h, w, c] = x.shape;
    const split = k.reshape(x, [n, h, w, c / (r * r), r, r]);
    return k.reshape(k.transpose(split, [0, 1, 4, 2, 5, 3]), dims);
  }
  const [n, c, h, w] = x.shape;
  const split = k.reshape(x, [n, c / (r * r), r, r, h, w]);
  return k.reshape(k.transpose(split, [0, 1, 4, 2, 5, 3]), dims);
}

const pixelShuffleOp = defineOp({
  type: "pixel_shuffle",
  kernels: ["reshape", "transpose"],
  summary:
    "Out = X's channels moved into upscale_factor × upscale_factor blocks of pixels (NCHW, or NHWC; AnyLayout is NCHW)",
  inputs: { X: slot.tensor() },
  outputs: { Out: slot.tensor() },
  attrs: { upscale_factor: attr.int(1), data_format: attr.string("AnyLayout") },
  check(a) {
    if (!(a.upscale_factor >= 1)) {
      throw new AttrError(
        "upscale_factor",
        `${a.upscale_factor} is not positive`,
      );
    }
    if (!PIXEL_SHUFFLE_FORMATS.includes(a.data_format)) {
      throw new AttrError(
        "data_format",
        `"${a.data_format}" is not one of ${
          PIXEL_SHUFFLE_FORMATS.map((f) => `"${f}"`).join(", ")
        }`,
      );
    }
  },
  infer({ inputs, attrs }) {
    const x = inputs("X")[0];
    const shape = x?.shape &&
      shuffledDims(x.shape, attrs.upscale_factor, attrs.data_format === "NHWC");
    return { Out: { dtype: x?.dtype, shape } };
  },
  prepare(ctx) {
    const x = ctx.input("X");
    const out = ctx.output("Out");
    const r = ctx.attrs.upscale_factor;
    const channelsLast = ctx.attrs.data_format === "NHWC";
    return (scope, thread) => {
      out.write(
        scope,
        pixelShuffle(thread.run.device, x.tensor(scope), r, channelsLast),
      );
    };
  },
});

/**
 * Every op of this group.
 *
 * @example Usage
 * ```ts
 * import { PADDLE_SHAPE_OPS } from "./paddle_shape.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const reshape2 = PADDLE_SHAPE_OPS.find((def) => def.type === "reshape2")!;
 * assertEquals(Object.keys(reshape2.outputs), ["Out", "XShape"]);
 * ```
 */
export const PADDLE_SHAPE_OPS: readonly OpDef[] = [
  reshape2,
  transpose2,
  squeeze2,
  unsqueeze2,
  flattenContiguousRange,
  stack,
  unstack,
  expandV2,
  fillConstantBatchSizeLike,
  pixelShuffleOp,
];
