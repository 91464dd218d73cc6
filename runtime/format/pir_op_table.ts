/**
 * The one table from PIR op names to Rill's ops: for each PIR op the
 * conversion (`pir_to_program.ts`) knows, the Rill op it becomes, the slot
 * each operand fills (or the attribute a constant operand becomes), the
 * slot each result fills, and the name each PIR attribute takes. A PIR op,
 * or an attribute of one, that is not here is what the conversion lists as
 * unsupported; nothing else in Rill lists PIR names.
 *
 * Operands and attributes follow Paddle 3's op definitions (`ops.yaml`):
 * operands in declared order, attributes by name. An in-place form
 * (`relu_`, `batch_norm_`) converts as its plain form: Rill's values never
 * change in place, so the result is a new variable either way.
 *
 * @module
 */

import type { PirMappedOp, PirOpRule } from "./pir_op_rule.ts";

export type {
  PirConstantKind,
  PirMappedOp,
  PirOperandRule,
  PirOpRule,
  PirSpecialOp,
} from "./pir_op_rule.ts";

/**
 * Attributes read and dropped on every op: the dygraph layer path PaddleX
 * appends, which has no effect on the math.
 */
export const PIR_IGNORED_ATTRS: ReadonlySet<string> = new Set(["struct_name"]);

// Each name mapped to itself.
function same(...names: string[]): Record<string, string> {
  return Object.fromEntries(names.map((n) => [n, n]));
}

function unary(
  type: string,
  attrs?: Record<string, string | null>,
): PirMappedOp {
  return { type, inputs: ["X"], outputs: ["Out"], attrs };
}

function binary(type: string): PirMappedOp {
  return { type, inputs: ["X", "Y"], outputs: ["Out"] };
}

// A reduction whose axes are an operand (a constant list).
function reduce(type: string): PirMappedOp {
  return {
    type,
    inputs: ["X", { attr: "dim", as: "ints" }],
    outputs: ["Out"],
    attrs: { keepdim: "keep_dim" },
    oneForZeroD: true,
  };
}

const CONV_ATTRS = same(
  "strides",
  "paddings",
  "padding_algorithm",
  "groups",
  "dilations",
  "data_format",
);

const CONV: PirMappedOp = {
  type: "conv2d",
  inputs: ["Input", "Filter"],
  outputs: ["Output"],
  attrs: CONV_ATTRS,
};

const BATCH_NORM: PirMappedOp = {
  type: "batch_norm",
  inputs: ["X", "Mean", "Variance", "Scale", "Bias"],
  outputs: [
    "Y",
    "MeanOut",
    "VarianceOut",
    "SavedMean",
    "SavedVariance",
    "ReserveSpace",
  ],
  attrs: {
    ...same("is_test", "momentum", "epsilon", "use_global_stats"),
    trainable_statistics: "trainable_statistics",
    data_format: "data_layout",
  },
};

const ENTRIES: Readonly<Record<string, PirOpRule>> = {
  // The program's structure.
  "p": { special: "parameter" },
  "1.data": { special: "data" },
  "1.fetch": { special: "fetch" },
  "1.full": { special: "full" },
  "1.full_int_array": { special: "full_int_array" },
  "0.combine": { special: "combine" },
  "0.split": { special: "split" },
  "1.if": { special: "if" },
  "1.while": { special: "while" },
  "2.yield": { special: "yield" },
  // Elementwise arithmetic, comparison and logic, broadcasting as Paddle.
  "1.add": binary("elementwise_add"),
  "1.subtract": binary("elementwise_sub"),
  "1.multiply": binary("elementwise_mul"),
  "1.divide": binary("elementwise_div"),
  "1.maximum": binary("elementwise_max"),
  "1.minimum": binary("elementwise_min"),
  "1.remainder": binary("elementwise_mod"),
  "1.floor_divide": binary("elementwise_floordiv"),
  "1.elementwise_pow": binary("elementwise_pow"),
  "1.equal": binary("equal"),
  "1.not_equal": binary("not_equal"),
  "1.less_than": binary("less_than"),
  "1.less_equal": binary("less_equal"),
  "1.greater_than": binary("greater_than"),
  "1.greater_equal": binary("greater_equal"),
  "1.logical_and": binary("logical_and"),
  "1.logical_or": binary("logical_or"),
  "1.logical_xor": binary("logical_xor"),
  "1.logical_not": unary("logical_not"),
  // Unary math and activations.
  ...Object.fromEntries(
    [
      "relu",
      "sigmoid",
      "tanh",
      "exp",
      "log",
      "sqrt",
      "abs",
      "floor",
      "ceil",
      "round",
      "sin",
      "cos",
      "reciprocal",
      "square",
      "relu6",
    ].map((name) => [`1.${name}`, unary(name)]),
  ),
  "1.hardswish": unary("hard_swish"),
  "1.hardsigmoid": unary("hard_sigmoid", same("slope", "offset")),
  "1.thresholded_relu": unary("thresholded_relu", same("threshold", "value")),
  "1.leaky_relu": unary("leaky_relu", { negative_slope: "alpha" }),
  "1.elu": unary("elu", same("alpha")),
  "1.gelu": unary("gelu", same("approximate")),
  "1.swish": unary("swish"),
  "1.pow": unary("pow", { y: "factor" }),
  "1.softmax": unary("softmax", same("axis")),
  "1.log_softmax": unary("log_softmax", same("axis")),
  "1.cast": unary("cast", { dtype: "out_dtype" }),
  "1.assign": unary("assign"),
  "1.scale": {
    type: "scale",
    inputs: ["X", { attr: "scale", as: "float" }],
    outputs: ["Out"],
    attrs: same("bias", "bias_after_scale"),
  },
  "1.clip": {
    type: "clip",
    inputs: [
      "X",
      { attr: "min", as: "float", slot: "Min" },
      { attr: "max", as: "float", slot: "Max" },
    ],
    outputs: ["Out"],
  },
  // Products, convolutions, pooling, normalization.
  "1.matmul": {
    type: "matmul_v2",
    inputs: ["X", "Y"],
    outputs: ["Out"],
    attrs: { transpose_x: "trans_x", transpose_y: "trans_y" },
    oneForZeroD: true,
  },
  "1.conv2d": CONV,
  "1.depthwise_conv2d": { ...CONV, type: "depthwise_conv2d" },
  "1.conv2d_transpose": {
    type: "conv2d_transpose",
    inputs: ["Input", "Filter", { attr: "output_size", as: "ints" }],
    outputs: ["Output"],
    attrs: { ...CONV_ATTRS, output_padding: "output_padding" },
  },
  "1.pool2d": {
    type: "pool2d",
    inputs: ["X", { attr: "ksize", as: "ints" }],
    outputs: ["Out"],
    attrs: same(
      "strides",
      "paddings",
      "ceil_mode",
      "exclusive",
      "data_format",
      "pooling_type",
      "global_pooling",
      "adaptive",
      "padding_algorithm",
    ),
  },
  "1.batch_norm": BATCH_NORM,
  "1.layer_norm": {
    type: "layer_norm",
    inputs: ["X", "Scale", "Bias"],
    outputs: ["Y", "Mean", "Variance"],
    attrs: same("epsilon", "begin_norm_axis"),
  },
  "1.group_norm": {
    type: "group_norm",
    inputs: ["X", "Scale", "Bias"],
    outputs: ["Y", "Mean", "Variance"],
    attrs: { ...same("epsilon", "groups"), data_format: "data_layout" },
  },
  "1.instance_norm": {
    type: "instance_norm",
    inputs: ["X", "Scale", "Bias"],
    outputs: ["Y", "SavedMean", "SavedVariance"],
    attrs: same("epsilon"),
  },
  "1.pixel_shuffle": unary(
    "pixel_shuffle",
    same("upscale_factor", "data_format"),
  ),
  "1.embedding": {
    type: "lookup_table_v2",
    inputs: ["Ids", "W"],
    outputs: ["Out"],
    attrs: { padding_idx: "padding_idx", sparse: null },
  },
  // Shapes and indexing.
  "1.reshape": {
    type: "reshape2",
    inputs: ["X", { attr: "shape", as: "ints", slot: "Shape" }],
    outputs: ["Out", "XShape"],
  },
  "1.flatten": {
    type: "flatten_contiguous_range",
    inputs: ["X"],
    outputs: ["Out", "XShape"],
    attrs: same("start_axis", "stop_axis"),
  },
  "1.transpose": {
    type: "transpose2",
    inputs: ["X"],
    outputs: ["Out", "XShape"],
    attrs: { perm: "axis" },
  },
  "1.squeeze": {
    type: "squeeze2",
    inputs: ["X", { attr: "axes", as: "ints" }],
    outputs: ["Out", "XShape"],
  },
  "1.unsqueeze": {
    type: "unsqueeze2",
    inputs: ["X", { attr: "axes", as: "ints", slot: "AxesTensor" }],
    outputs: ["Out", "XShape"],
  },
  "1.concat": {
    type: "concat",
    inputs: ["X", { attr: "axis", as: "int" }],
    outputs: ["Out"],
  },
  "1.stack": {
    type: "stack",
    inputs: ["X"],
    outputs: ["Y"],
    attrs: same("axis"),
  },
  "1.add_n": { type: "sum", inputs: ["X"], outputs: ["Out"] },
  // A list result (`0.t_vec`) fills a duplicable slot, one variable each.
  "1.split": {
    type: "split",
    inputs: ["X", { attr: "sections", as: "ints" }, {
      attr: "axis",
      as: "int",
    }],
    outputs: ["Out"],
  },
  "1.split_with_num": {
    type: "split",
    inputs: ["X", { attr: "axis", as: "int" }],
    outputs: ["Out"],
    attrs: same("num"),
  },
  "1.unstack": {
    type: "unstack",
    inputs: ["X"],
    outputs: ["Y"],
    attrs: same("axis", "num"),
  },
  "1.slice": {
    type: "slice",
    inputs: [
      "Input",
      { attr: "starts", as: "ints", slot: "StartsTensor" },
      { attr: "ends", as: "ints", slot: "EndsTensor" },
    ],
    outputs: ["Out"],
    attrs: same("axes", "infer_flags", "decrease_axis"),
  },
  "1.gather": {
    type: "gather",
    inputs: ["X", "Index", { attr: "axis", as: "int" }],
    outputs: ["Out"],
  },
  "1.expand": {
    type: "expand_v2",
    inputs: ["X", { attr: "shape", as: "ints", slot: "Shape" }],
    outputs: ["Out"],
  },
  "1.argmax": {
    type: "arg_max",
    inputs: ["X", { attr: "axis", as: "long" }],
    outputs: ["Out"],
    attrs: same("keepdims", "flatten", "dtype"),
  },
  "1.topk": {
    type: "top_k_v2",
    inputs: ["X", { attr: "k", as: "int", slot: "K" }],
    outputs: ["Out", "Indices"],
    attrs: same("axis", "largest", "sorted"),
  },
  "1.one_hot": {
    type: "one_hot_v2",
    inputs: ["X", { attr: "depth", as: "int", slot: "depth_tensor" }],
    outputs: ["Out"],
  },
  "1.shape": { type: "shape", inputs: ["Input"], outputs: ["Out"] },
  // Reductions: an empty axis reduces every dim, as Rill's reduce ops read
  // an empty `dim`.
  "1.sum": {
    ...reduce("reduce_sum"),
    neutral: { dtype: "Undefined(ALL_DTYPE)" },
  },
  "1.mean": reduce("reduce_mean"),
  "1.max": reduce("reduce_max"),
  "1.min": reduce("reduce_min"),
  "1.amax": {
    type: "reduce_max",
    inputs: ["X"],
    outputs: ["Out"],
    attrs: { axis: "dim", keepdim: "keep_dim" },
    oneForZeroD: true,
  },
  "1.amin": {
    type: "reduce_min",
    inputs: ["X"],
    outputs: ["Out"],
    attrs: { axis: "dim", keepdim: "keep_dim" },
    oneForZeroD: true,
  },
};

/**
 * Every PIR op name the table holds.
 *
 * @example Usage
 * ```ts
 * import { PIR_OP_NAMES } from "./pir_op_table.ts";
 * import { assert } from "@std/assert";
 *
 * assert(PIR_OP_NAMES.includes("1.hardswish"));
 * ```
 */
export const PIR_OP_NAMES: readonly string[] = Object.keys(ENTRIES);

/**
 * The table's entry for a PIR op name; an in-place form (`1.relu_`) reads
 * its plain form's. `undefined` for an op Rill cannot convert.
 *
 * @param name The op's name with its dialect (`1.batch_norm_`).
 * @returns The entry.
 *
 * @example Usage
 * ```ts
 * import { pirOpRule } from "./pir_op_table.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const rule = pirOpRule("1.batch_norm_");
 * assertEquals(rule !== undefined && "type" in rule ? rule.type : undefined, "batch_norm");
 * assertEquals(pirOpRule("1.matmul_grad"), undefined);
 * ```
 */
export function pirOpRule(name: string): PirOpRule | undefined {
  if (Object.hasOwn(ENTRIES, name)) return ENTRIES[name];
  if (name.endsWith("_") && Object.hasOwn(ENTRIES, name.slice(0, -1))) {
    const rule = ENTRIES[name.slice(0, -1)];
    return "type" in rule ? rule : undefined;
  }
  return undefined;
}
