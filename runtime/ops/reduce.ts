/**
 * Reductions and products: `reduce_*`, `mean`, `sum`, `softmax`, `mul`,
 * `matmul`.
 *
 * @module
 */
import type { ReduceKind } from "../../kernels/kernel_kinds.ts";
import {
  attr,
  defineOp,
  type InferredType,
  type OpDef,
  slot,
} from "../core/op_def.ts";
import { AttrError } from "../core/attr_read.ts";
import { binaryKernelOp, unaryKernelOp } from "./kernel_op.ts";
import { broadcastRule, sameAs } from "./shape_rules.ts";

/**
 * The type of a `reduce_*` result, by the rules of Fluid's `ReduceOp`:
 * `reduce_all` (or an empty `dim`, as Paddle 2.x reads it) reduces every
 * dim; negative dims count from the end; without `keep_dim` the reduced dims
 * go, and nothing left is `[1]`.
 */
function reducedShape(
  x: InferredType,
  dims: readonly number[],
  keepDim: boolean,
  all: boolean,
): InferredType {
  if (x.shape === undefined) return { dtype: x.dtype };
  const rank = x.shape.length;
  const axes = new Set(
    all || dims.length === 0
      ? x.shape.keys()
      : dims.map((d) => (d < 0 ? d + rank : d)),
  );
  for (const a of axes) {
    if (a < 0 || a >= rank) {
      throw new RangeError(`reduce: dim ${a} out of range for rank ${rank}`);
    }
  }
  const shape = keepDim
    ? x.shape.map((d, i) => (axes.has(i) ? 1 : d))
    : x.shape.filter((_, i) => !axes.has(i));
  return { dtype: x.dtype, shape: shape.length === 0 ? [1] : shape };
}

// Fluid's ReduceOpMaker: dim {0}, keep_dim false, reduce_all false. A
// program that leaves `dim` out reduces dim 0, as it does under Paddle.
// Paddle 2.x adds in_dtype and out_dtype (both -1: X's own dtype), which
// Paddle's own Python API never sets for these ops; Rill accepts -1 only.
function reduction(kind: ReduceKind): OpDef {
  return unaryKernelOp({
    type: `reduce_${kind}`,
    summary:
      `Out = the ${kind} of X over dim (default [0]), or of all of X; in_dtype and out_dtype -1 only`,
    attrs: {
      dim: attr.ints([0]),
      keep_dim: attr.bool(false),
      reduce_all: attr.bool(false),
      in_dtype: attr.int(-1),
      out_dtype: attr.int(-1),
    },
    check(a) {
      for (const name of ["in_dtype", "out_dtype"] as const) {
        if (a[name] !== -1) {
          throw new AttrError(
            name,
            `${
              a[name]
            } asks for a cast, which Rill does not do here (only -1, X's own dtype)`,
          );
        }
      }
    },
    compute: (device, x, a) =>
      device.kernels.reduce(kind, x, {
        dims: a.dim,
        keepDim: a.keep_dim,
        reduceAll: a.reduce_all,
      }),
    kernels: [{ kernel: "reduce", kinds: [kind] }],
    infer: (x, a) => reducedShape(x, a.dim, a.keep_dim, a.reduce_all),
  });
}

// Paddle flattens X to a matrix at x_num_col_dims and Y at
// y_num_col_dims: each must leave at least one dim on both sides.
function checkColumnDims(
  name: "x" | "y",
  n: number,
  shape: readonly number[],
): void {
  if (n >= 1 && n < shape.length) return;
  throw new RangeError(
    `mul: ${name}_num_col_dims ${n} is out of range for ${name.toUpperCase()} ` +
      `[${shape.join(", ")}] (1 to ${shape.length - 1})`,
  );
}

function matrixShape(
  x: InferredType,
  y: InferredType,
  xCols: number,
  yCols: number,
): InferredType {
  if (x.shape === undefined || y.shape === undefined) return { dtype: x.dtype };
  checkColumnDims("x", xCols, x.shape);
  checkColumnDims("y", yCols, y.shape);
  const inner = (s: readonly number[], from: number, to: number) =>
    s.slice(from, to).reduce((p, d) => (p < 0 || d < 0 ? -1 : p * d), 1);
  const k1 = inner(x.shape, xCols, x.shape.length);
  const k2 = inner(y.shape, 0, yCols);
  if (k1 >= 0 && k2 >= 0 && k1 !== k2) {
    throw new RangeError(
      `mul: X [${x.shape.join(", ")}] and Y [${
        y.shape.join(", ")
      }] do not multiply: X's dims from x_num_col_dims ${xCols} hold ${k1} ` +
        `elements, Y's dims before y_num_col_dims ${yCols} hold ${k2}`,
    );
  }
  return {
    dtype: x.dtype,
    shape: [...x.shape.slice(0, xCols), ...y.shape.slice(yCols)],
  };
}

function matmulShape(
  x: InferredType,
  y: InferredType,
  tx: boolean,
  ty: boolean,
): InferredType {
  if (x.shape === undefined || y.shape === undefined) return { dtype: x.dtype };
  if (x.shape.length < 2 || y.shape.length < 2) return { dtype: x.dtype };
  const last2 = (s: readonly number[], t: boolean) => {
    const [r, c] = s.slice(-2);
    return t ? [c, r] : [r, c];
  };
  const [m, k1] = last2(x.shape, tx);
  const [k2, n] = last2(y.shape, ty);
  if (k1 >= 0 && k2 >= 0 && k1 !== k2) {
    throw new RangeError(
      `matmul: X [${x.shape.join(", ")}] and Y [${
        y.shape.join(", ")
      }] do not multiply`,
    );
  }
  const batch = x.shape.length >= y.shape.length ? x.shape : y.shape;
  return { dtype: x.dtype, shape: [...batch.slice(0, -2), m, n] };
}

// Paddle's matmul_v2 InferShape: a 1-D X is a row [1, K] and a 1-D Y a
// column [K, 1], whatever trans_x and trans_y say (its kernel ignores them
// for vectors), and their vector dims leave the result; two vectors give
// [1] (Paddle before 0-D tensors); the batch dims broadcast as NumPy's.
function matmulV2Shape(
  x: InferredType,
  y: InferredType,
  tx: boolean,
  ty: boolean,
): InferredType {
  if (x.shape === undefined || y.shape === undefined) return { dtype: x.dtype };
  const shapes = `X [${x.shape.join(", ")}] and Y [${y.shape.join(", ")}]`;
  if (x.shape.length === 0 || y.shape.length === 0) {
    throw new RangeError(`matmul_v2: ${shapes}: operands need rank >= 1`);
  }
  const matrix = (s: readonly number[], t: boolean, vector: number[]) => {
    if (s.length === 1) return vector;
    const [r, c] = s.slice(-2);
    return t ? [c, r] : [r, c];
  };
  const [m, k1] = matrix(x.shape, tx, [1, x.shape[0]]);
  const [k2, n] = matrix(y.shape, ty, [y.shape[0], 1]);
  if (k1 >= 0 && k2 >= 0 && k1 !== k2) {
    throw new RangeError(
      `matmul_v2: ${shapes} do not multiply: inner dims ${k1} and ${k2}`,
    );
  }
  let batch: readonly number[];
  try {
    batch = broadcastRule(
      { shape: x.shape.slice(0, -2) },
      { shape: y.shape.slice(0, -2) },
      -1,
    ).shape!;
  } catch {
    throw new RangeError(`matmul_v2: the batch dims of ${shapes} differ`);
  }
  const shape = [...batch];
  if (x.shape.length > 1) shape.push(m);
  if (y.shape.length > 1) shape.push(n);
  return { dtype: x.dtype, shape: shape.length === 0 ? [1] : shape };
}

const sum = defineOp({
  type: "sum",
  summary: "Out = the elementwise sum of every X",
  inputs: { X: slot.tensor({ duplicable: true }) },
  outputs: { Out: slot.tensor() },
  attrs: {},
  kernels: ["addN"],
  infer: ({ inputs }) => ({ Out: sameAs(inputs("X")[0]) }),
  prepare(ctx) {
    const xs = ctx.inputList("X");
    const out = ctx.output("Out");
    return (scope, thread) => {
      out.write(
        scope,
        thread.run.device.kernels.addN(xs.map((x) => x.tensor(scope))),
      );
    };
  },
});

/**
 * Every reduction and product op.
 *
 * @example Usage
 * ```ts
 * import { REDUCE_OPS } from "./reduce.ts";
 * import { assert } from "@std/assert";
 *
 * assert(REDUCE_OPS.some((def) => def.type === "matmul"));
 * ```
 */
export const REDUCE_OPS: readonly OpDef[] = [
  reduction("sum"),
  reduction("mean"),
  reduction("max"),
  reduction("min"),
  reduction("prod"),
  unaryKernelOp({
    type: "mean",
    summary: "Out = the mean of every element of X, shape [1]",
    attrs: {},
    compute: (device, x) => device.kernels.mean(x),
    kernels: ["mean"],
    infer: (x) => ({ dtype: x.dtype, shape: [1] }),
  }),
  sum,
  unaryKernelOp({
    type: "softmax",
    summary: "Out = softmax of X along axis",
    attrs: { axis: attr.int(-1) },
    compute: (device, x, a) => device.kernels.softmax(x, a.axis),
    kernels: ["softmax"],
    infer: sameAs,
    rows: "last_axis",
  }),
  binaryKernelOp({
    type: "mul",
    summary: "Out = X × Y as 2-D matrices (Fluid's mul)",
    attrs: { x_num_col_dims: attr.int(1), y_num_col_dims: attr.int(1) },
    compute: (device, x, y, a) =>
      device.kernels.mul2d(x, y, a.x_num_col_dims, a.y_num_col_dims),
    kernels: ["mul2d"],
    infer: (x, y, a) => matrixShape(x, y, a.x_num_col_dims, a.y_num_col_dims),
    rows: {
      mixesRows: (a) =>
        a.x_num_col_dims === 1
          ? undefined
          : `goes into a mul with x_num_col_dims ${a.x_num_col_dims}, not 1`,
    },
    poolWorthy: "product",
  }),
  binaryKernelOp({
    type: "matmul",
    summary: "Out = alpha · op(X) × op(Y), batched and broadcast",
    attrs: {
      transpose_X: attr.bool(false),
      transpose_Y: attr.bool(false),
      alpha: attr.float(1),
    },
    compute: (device, x, y, a) =>
      device.kernels.matmul(x, y, {
        transposeX: a.transpose_X,
        transposeY: a.transpose_Y,
        alpha: a.alpha,
      }),
    kernels: ["matmul"],
    infer: (x, y, a) => matmulShape(x, y, a.transpose_X, a.transpose_Y),
    rows: {
      mixesRows: (a) =>
        a.transpose_X ? "goes into a matmul that transposes it" : undefined,
    },
    poolWorthy: "product",
  }),
  binaryKernelOp({
    type: "matmul_v2",
    summary:
      "Out = op(X) × op(Y) (Paddle 2.x): batch dims broadcast; a 1-D X is a row and a 1-D Y a column whatever trans_x and trans_y say, and two vectors give [1]",
    attrs: { trans_x: attr.bool(false), trans_y: attr.bool(false) },
    compute: (device, x, y, a) =>
      device.kernels.matmul(x, y, {
        transposeX: a.trans_x,
        transposeY: a.trans_y,
      }),
    kernels: ["matmul"],
    infer: (x, y, a) => matmulV2Shape(x, y, a.trans_x, a.trans_y),
    rows: {
      mixesRows: (a) =>
        a.trans_x ? "goes into a matmul_v2 that transposes it" : undefined,
    },
    poolWorthy: "product",
  }),
];
