/**
 * Elementwise ops: arithmetic, comparisons, logic, activations, `scale`.
 * Binary ops broadcast like NumPy; `axis` ≥ 0 aligns Y to X from that
 * dimension, as in Fluid.
 *
 * @module
 */
import type {
  BinaryKind,
  CompareKind,
  LogicalKind,
  UnaryKind,
} from "../../kernels/kernel_kinds.ts";
import { attr, type OpDef } from "../core/op_def.ts";
import { binaryKernelOp, unaryKernelOp } from "./kernel_op.ts";
import { scalarArithmetic, scalarComparison } from "./scalar_path.ts";
import { broadcastRule, sameAs } from "./shape_rules.ts";

function arithmetic(kind: BinaryKind, summary: string): OpDef {
  return binaryKernelOp({
    type: `elementwise_${kind}`,
    summary,
    attrs: { axis: attr.int(-1) },
    compute: (device, x, y, a) => device.kernels.binary(kind, x, y, a.axis),
    kernels: [{ kernel: "binary", kinds: [kind] }],
    infer: (x, y, a) => broadcastRule(x, y, a.axis),
    rows: "broadcast",
    scalar: scalarArithmetic(kind),
    inPlace: kind,
  });
}

function comparison(kind: CompareKind, summary: string): OpDef {
  return binaryKernelOp({
    type: kind,
    summary,
    attrs: { axis: attr.int(-1) },
    compute: (device, x, y, a) => device.kernels.compare(kind, x, y, a.axis),
    kernels: [{ kernel: "compare", kinds: [kind] }],
    infer: (x, y, a) => broadcastRule(x, y, a.axis, "bool"),
    scalar: scalarComparison(kind),
  });
}

function logical(kind: LogicalKind): OpDef {
  return binaryKernelOp({
    type: `logical_${kind}`,
    summary: `Out = X ${kind} Y, elementwise on bools`,
    attrs: {},
    compute: (device, x, y) => device.kernels.logical(kind, x, y),
    kernels: [{ kernel: "logical", kinds: [kind] }],
    infer: (x, y) => broadcastRule(x, y, -1, "bool"),
  });
}

function activation(kind: UnaryKind, summary: string): OpDef {
  return unaryKernelOp({
    type: kind,
    summary,
    attrs: {},
    compute: (device, x) => device.kernels.unary(kind, x),
    kernels: [{ kernel: "unary", kinds: [kind] }],
    infer: sameAs,
    rows: "elementwise",
  });
}

/**
 * Every elementwise op.
 *
 * @example Usage
 * ```ts
 * import { ELEMENTWISE_OPS } from "./elementwise.ts";
 * import { assert } from "@std/assert";
 *
 * assert(ELEMENTWISE_OPS.some((def) => def.type === "elementwise_add"));
 * ```
 */
export const ELEMENTWISE_OPS: readonly OpDef[] = [
  arithmetic("add", "Out = X + Y"),
  arithmetic("sub", "Out = X - Y"),
  arithmetic("mul", "Out = X * Y"),
  arithmetic("div", "Out = X / Y (integers truncate)"),
  arithmetic("max", "Out = max(X, Y)"),
  arithmetic("min", "Out = min(X, Y)"),
  arithmetic("pow", "Out = X ** Y"),
  arithmetic("mod", "Out = X mod Y, with the sign of Y"),
  arithmetic("floordiv", "Out = floor(X / Y)"),
  comparison("less_than", "Out = X < Y"),
  comparison("less_equal", "Out = X <= Y"),
  comparison("greater_than", "Out = X > Y"),
  comparison("greater_equal", "Out = X >= Y"),
  comparison("equal", "Out = X == Y"),
  comparison("not_equal", "Out = X != Y"),
  logical("and"),
  logical("or"),
  logical("xor"),
  unaryKernelOp({
    type: "logical_not",
    summary: "Out = !X",
    attrs: {},
    compute: (device, x) => device.kernels.logicalNot(x),
    kernels: ["logicalNot"],
    infer: (x) => ({ ...x, dtype: "bool" }),
  }),
  activation("relu", "Out = max(X, 0)"),
  activation("sigmoid", "Out = 1 / (1 + exp(-X))"),
  activation("tanh", "Out = tanh(X)"),
  activation("exp", "Out = exp(X)"),
  activation("log", "Out = ln(X)"),
  activation("sqrt", "Out = sqrt(X)"),
  activation("abs", "Out = |X|"),
  activation("square", "Out = X * X"),
  activation("sin", "Out = sin(X)"),
  activation("cos", "Out = cos(X)"),
  activation("floor", "Out = floor(X)"),
  activation("ceil", "Out = ceil(X)"),
  activation("round", "Out = round(X), halves away from zero"),
  activation("reciprocal", "Out = 1 / X"),
  unaryKernelOp({
    type: "scale",
    summary: "Out = scale * X + bias (or scale * (X + bias))",
    attrs: {
      scale: attr.float(1),
      bias: attr.float(0),
      bias_after_scale: attr.bool(true),
    },
    compute: (device, x, a) =>
      device.kernels.scale(x, a.scale, a.bias, a.bias_after_scale),
    kernels: ["scale"],
    infer: sameAs,
    rows: "elementwise",
  }),
];
