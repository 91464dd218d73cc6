/**
 * Paddle's ops whose results are positions: `arg_max`, `top_k_v2` and
 * `one_hot_v2`, with the slots, attributes and defaults of Paddle 2.x's
 * OpMakers. A larger value comes first, NaN counts as larger than every
 * number (Paddle's comparators), and equal values keep the order of their
 * positions, so arg_max gives the first largest and a sorted top_k_v2
 * lists ties by position (Paddle leaves their order open).
 *
 * @module
 */
import type { DType } from "../../kernels/dtype.ts";
import { AttrError } from "../core/attr_read.ts";
import {
  attr,
  defineOp,
  type InferredType,
  type OpDef,
  slot,
} from "../core/op_def.ts";
import { checkDTypeAttr, dtypeAttr } from "./values.ts";

function text(shape: readonly number[]): string {
  return `[${shape.join(", ")}]`;
}

// arg_max's dtype attribute: INT64 (Paddle's default) and -1 give int64.
function argMaxDType(code: number): DType {
  return code === 2 ? "int32" : "int64";
}

// Paddle 2.x's ArgMinMax shape: flatten gives [1]; else X's dims with the
// axis dropped, or kept as 1 with keepdims; nothing left is [1].
function argMaxDims(
  from: readonly number[],
  axis: number,
  keepdims: boolean,
  flatten: boolean,
): number[] {
  if (flatten) return [1];
  const a = axis < 0 ? axis + from.length : axis;
  if (!(Number.isInteger(a) && a >= 0 && a < from.length)) {
    throw new RangeError(
      `arg_max: axis ${axis} is out of range for X ${text(from)}`,
    );
  }
  const dims = keepdims
    ? from.map((d, i) => (i === a ? 1 : d))
    : from.filter((_, i) => i !== a);
  return dims.length === 0 ? [1] : dims;
}

// Paddle's ArgMaxOpMaker: axis (int64) has no default.
const argMax = defineOp({
  type: "arg_max",
  kernels: ["reshape", "argMax"],
  summary:
    "Out = the position of the first largest element of X along axis (of all of X with flatten); int64 unless dtype is INT32 (2); no dim left gives [1]",
  inputs: { X: slot.tensor() },
  outputs: { Out: slot.tensor() },
  attrs: {
    axis: attr.required("long"),
    keepdims: attr.bool(false),
    dtype: attr.int(3),
    flatten: attr.bool(false),
  },
  check(a) {
    if (![-1, 2, 3].includes(a.dtype)) {
      throw new AttrError(
        "dtype",
        `${a.dtype} is not -1, INT32 (2) or INT64 (3)`,
      );
    }
  },
  infer({ inputs, attrs: a }) {
    const x = inputs("X")[0];
    const shape = x?.shape &&
      argMaxDims(x.shape, Number(a.axis), a.keepdims, a.flatten);
    return { Out: { dtype: argMaxDType(a.dtype), shape } };
  },
  prepare(ctx) {
    const x = ctx.input("X");
    const out = ctx.output("Out");
    const a = ctx.attrs;
    const axis = Number(a.axis);
    const dtype = argMaxDType(a.dtype);
    return (scope, thread) => {
      const t = x.tensor(scope);
      const k = thread.run.device.kernels;
      const dims = argMaxDims(t.shape, axis, a.keepdims, a.flatten);
      const from = a.flatten ? k.reshape(t, [t.size]) : t;
      const found = k.argMax(from, a.flatten ? 0 : axis, dtype);
      out.write(scope, k.reshape(found, dims));
    };
  },
});

function topKType(
  x: InferredType | undefined,
  k: number,
  axis: number,
): InferredType {
  const from = x?.shape;
  if (from === undefined) return { dtype: x?.dtype };
  const a = axis < 0 ? axis + from.length : axis;
  if (!(Number.isInteger(a) && a >= 0 && a < from.length)) {
    throw new RangeError(
      `top_k_v2: axis ${axis} is out of range for X ${text(from)}`,
    );
  }
  if (k >= 0 && from[a] >= 0 && k > from[a]) {
    throw new RangeError(
      `top_k_v2: k ${k} is larger than dim ${from[a]} of X ${text(from)}`,
    );
  }
  return { dtype: x?.dtype, shape: from.with(a, k) };
}

// Paddle's TopkV2OpMaker: the K tensor takes precedence over k.
const topKV2 = defineOp({
  type: "top_k_v2",
  kernels: ["topK"],
  summary:
    "Out, Indices = the k largest (or smallest) elements of X along axis, sorted, and their int64 positions (K overrides k)",
  inputs: { X: slot.tensor(), K: slot.tensor({ optional: true }) },
  outputs: { Out: slot.tensor(), Indices: slot.tensor() },
  attrs: {
    k: attr.int(1),
    axis: attr.int(-1),
    largest: attr.bool(true),
    sorted: attr.bool(true),
  },
  infer({ inputs, attrs: a }) {
    const k = inputs("K").length > 0 ? -1 : a.k;
    const out = topKType(inputs("X")[0], k, a.axis);
    return { Out: out, Indices: { dtype: "int64", shape: out.shape } };
  },
  prepare(ctx) {
    const x = ctx.input("X");
    const kTensor = ctx.optionalInput("K");
    const out = ctx.output("Out");
    const indices = ctx.output("Indices");
    const { k, axis, largest } = ctx.attrs;
    return (scope, thread) => {
      const count = kTensor ? Number(kTensor.tensor(scope).item(0)) : k;
      const [values, where] = thread.run.device.kernels.topK(
        x.tensor(scope),
        count,
        axis,
        largest,
      );
      out.write(scope, values);
      indices.write(scope, where);
    };
  },
});

// Paddle's OneHotV2OpMaker: depth_tensor takes precedence over depth; the
// new dim is appended (one_hot v1 replaced a last dim of 1).
const oneHotV2 = defineOp({
  type: "one_hot_v2",
  kernels: ["oneHot"],
  summary:
    "Out = one-hot rows of depth for X's integer positions, as a new last dim (depth_tensor overrides depth)",
  inputs: { X: slot.tensor(), depth_tensor: slot.tensor({ optional: true }) },
  outputs: { Out: slot.tensor() },
  attrs: {
    depth: attr.int(-1),
    dtype: attr.int(5),
    allow_out_of_range: attr.bool(false),
  },
  check(a, ctx) {
    checkDTypeAttr("dtype", a.dtype);
    if (!ctx.hasInput("depth_tensor") && a.depth < 1) {
      throw new AttrError("depth", `${a.depth} is not positive`);
    }
  },
  infer({ inputs, attrs: a }) {
    const x = inputs("X")[0];
    const depth = inputs("depth_tensor").length > 0 ? -1 : a.depth;
    return {
      Out: {
        dtype: dtypeAttr(a.dtype),
        shape: x?.shape && [...x.shape, depth],
      },
    };
  },
  prepare(ctx) {
    const x = ctx.input("X");
    const depthTensor = ctx.optionalInput("depth_tensor");
    const out = ctx.output("Out");
    const a = ctx.attrs;
    const dtype = dtypeAttr(a.dtype);
    return (scope, thread) => {
      const depth = depthTensor
        ? Number(depthTensor.tensor(scope).item(0))
        : a.depth;
      out.write(
        scope,
        thread.run.device.kernels.oneHot(
          x.tensor(scope),
          depth,
          dtype,
          a.allow_out_of_range,
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
 * import { INDEX_OPS } from "./indices.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const topK = INDEX_OPS.find((def) => def.type === "top_k_v2")!;
 * assertEquals(Object.keys(topK.outputs), ["Out", "Indices"]);
 * ```
 */
export const INDEX_OPS: readonly OpDef[] = [argMax, topKV2, oneHotV2];
