/**
 * Paddle's extra attributes, by rule: the one table that says which
 * attributes Paddle writes on its ops beyond what they compute, and at
 * which values they change nothing. The reader (`readAttrs`, so the
 * validator, prepare and the builder's shape rules), the builder
 * (`encodeAttrs`) and the printer (`dump`) read it through
 * `judge_extra_attr.ts`; nothing else lists these names.
 *
 * Paddle's `OpProtoAndCheckerMaker` adds bookkeeping to every op (its role,
 * name scope, call stack, device), and its `op_compat.yaml` marks per op the
 * "extra" attributes: kernel-selection and quantization hints for its oneDNN
 * and cuDNN kernels (`use_mkldnn`, `mkldnn_data_type`, `scale_*`, …), fusion
 * switches that its inference passes set (`fuse_*`, `fused_reshape_*`), and
 * distributed-training switches. Paddle 1.5–2.x saves them on every op that
 * has them, at their defaults: `mul` carries `scale_x`, `scale_y` (FLOATS)
 * and `scale_out`, each conv about twenty.
 *
 * What "neutral" means: a value at which the op computes, in Paddle, what
 * its reference float32 kernel computes from the op's own attributes, which
 * is what Rill computes. Three kinds of rule follow:
 *   - any value: the attribute only picks among kernels that compute the
 *     same function (`use_cudnn`, `use_mkldnn` in float32,
 *     `workspace_size_MB`), or is read only by a kernel that no program Rill
 *     accepts can reach. The quantization scales are of that kind: Paddle
 *     reads `scale_*`/`Scale_*` and `force_fp32_output` only in its int8
 *     oneDNN kernels, chosen by `use_quantizer`, by `mkldnn_data_type`
 *     "int8" or by int8 inputs from a `quantize` op; Rill refuses the first
 *     two at any value but their neutral one and has no `quantize` op;
 *   - the values that ask for nothing (`use_quantizer` false,
 *     `mkldnn_data_type` "float32", a layout hint "" or "AnyLayout"): any
 *     other value asks for reduced precision, a fused operation or a oneDNN
 *     memory layout, and is refused with one error naming the attribute and
 *     its value (the validator adds the block, the op and its type);
 *   - "off" for the fusion switches: false, "", or any number (the numbers
 *     are the parameters of a fused activation, read only while one is on).
 *
 * A rule applies to every op whose schema does not declare the name; an
 * op that declares it reads it as its own attribute (`is_test` on an op
 * whose inference mode differs). Paddle writes each name only on the ops
 * of `op_compat.yaml` that have it; Rill accepts it on any op, so every
 * rule's neutral values must be neutral on every op, which is why a layout
 * hint accepts only "no layout" and the distributed lookup only "off".
 *
 * @module
 */
import { AttrType } from "../../gen/rill/v1/framework_pb.ts";

/**
 * The values at which an extra attribute changes nothing:
 *   - `any`: every value;
 *   - `one_of`: exactly these (a BOOLEAN, STRING or number compared as
 *     stored);
 *   - `empty`: an empty list;
 *   - `off`: false, "", or any number.
 */
export type ExtraAttrNeutral =
  | { readonly kind: "any" }
  | {
    readonly kind: "one_of";
    readonly values: readonly (boolean | string | number)[];
  }
  | { readonly kind: "empty" }
  | { readonly kind: "off" };

/**
 * One rule of `PADDLE_EXTRA_ATTRS`.
 *
 * @example Usage
 * ```ts
 * import { extraAttrRule } from "./paddle_extra_attrs.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const rule = extraAttrRule("use_quantizer")!;
 * assertEquals(rule.neutral, { kind: "one_of", values: [false] });
 * ```
 */
export interface ExtraAttrRule {
  /** The attribute's name, or a prefix and `*` (`fuse_*`) for a family. */
  readonly name: string;
  /** What Paddle does with it. */
  readonly meaning: string;
  /** The stored types it may have; every type when absent. */
  readonly types?: readonly AttrType[];
  /** The values that change nothing. */
  readonly neutral: ExtraAttrNeutral;
  /** What any other value asks for (rules whose neutral is not `any`). */
  readonly asks?: string;
  /**
   * Some ops give it a meaning of their own and declare it: on an op Rill
   * lacks, the printer shows it.
   */
  readonly meaningfulOnSomeOps?: boolean;
}

const BOOL = [AttrType.BOOLEAN] as const;
const STRING = [AttrType.STRING] as const;
const FLOATISH = [
  AttrType.FLOAT,
  AttrType.FLOATS,
  AttrType.FLOAT64,
  AttrType.FLOAT64S,
] as const;
const NO_LAYOUT = ["", "AnyLayout"] as const;
const LAYOUT = "a oneDNN memory layout of the operands";
const SERVERS = "a lookup on parameter servers";

// The table's rows: neutral at every value, at some values, or "off".
function anyValue(
  name: string,
  meaning: string,
  types?: readonly AttrType[],
): ExtraAttrRule {
  return { name, meaning, types, neutral: { kind: "any" } };
}

function neutralAt(
  name: string,
  values: readonly (boolean | string | number)[],
  meaning: string,
  asks: string,
): ExtraAttrRule {
  const type = typeof values[0] === "boolean" ? BOOL : STRING;
  return {
    name,
    meaning,
    types: type,
    neutral: { kind: "one_of", values },
    asks,
  };
}

/**
 * Paddle's extra attributes and their neutral values, in groups: the
 * bookkeeping every op carries, kernel choice, precision and quantization,
 * fusion, layout hints, the distributed lookup. Exact names are looked up
 * before families (`name` ending in `*`).
 *
 * @example Usage
 * ```ts
 * import { PADDLE_EXTRA_ATTRS } from "./paddle_extra_attrs.ts";
 * import { assert } from "@std/assert";
 *
 * const names = PADDLE_EXTRA_ATTRS.map((rule) => rule.name);
 * assert(names.includes("op_callstack") && names.includes("scale_*"));
 * ```
 */
export const PADDLE_EXTRA_ATTRS: readonly ExtraAttrRule[] = [
  // Bookkeeping: what OpProtoAndCheckerMaker adds to every op, and the
  // hints Paddle Inference's passes leave. No kernel reads them.
  anyValue("op_role", "the op's role in training"),
  anyValue("op_role_var", "the parameters of a backward op"),
  anyValue("op_namescope", "the Python name scope"),
  anyValue("op_callstack", "the Python call stack that made the op"),
  anyValue("op_device", "a device placement hint"),
  anyValue("with_quant_attr", "the op carries quantization attributes"),
  anyValue("@ENABLE_CACHE_RUNTIME_CONTEXT@", "an inference cache hint"),
  anyValue("@ALL_KERNELS_MUST_COMPUTE_RUNTIME_SHAPE@", "a shape hint"),
  anyValue("skip_eager_deletion_vars", "what garbage collection keeps"),
  // Kernel choice: every choice computes the same function.
  anyValue("use_mkldnn", "use the oneDNN kernel", BOOL),
  anyValue("use_cudnn", "use the cuDNN kernel", BOOL),
  anyValue("workspace_size_MB", "cuDNN's workspace limit", [
    AttrType.INT,
    AttrType.LONG,
  ]),
  anyValue("exhaustive_search", "search cuDNN's algorithms", BOOL),
  {
    ...anyValue("is_test", "inference mode, where it differs (ops declare it)"),
    meaningfulOnSomeOps: true,
  },
  // Precision and quantization.
  neutralAt(
    "mkldnn_data_type",
    ["float32", ""],
    "the oneDNN kernel's arithmetic",
    "oneDNN's bfloat16 or int8 arithmetic",
  ),
  neutralAt(
    "use_quantizer",
    [false],
    "quantize the op for oneDNN",
    "oneDNN's int8 kernel",
  ),
  anyValue("force_fp32_output", "float32 output of an int8 kernel", BOOL),
  anyValue("scale_*", "an int8 kernel's quantization scale", FLOATISH),
  anyValue("Scale_*", "an int8 kernel's quantization scale", FLOATISH),
  // Fusion, set by Paddle Inference's oneDNN passes.
  {
    name: "fuse_*",
    meaning: "an operation fused into the op, and its parameters",
    types: [AttrType.BOOLEAN, AttrType.STRING, AttrType.FLOAT, AttrType.INT],
    neutral: { kind: "off" },
    asks: "an operation fused into the op",
  },
  {
    name: "fused_reshape_*",
    meaning: "a reshape fused into an operand or the result",
    types: [AttrType.INTS],
    neutral: { kind: "empty" },
    asks: "a reshape fused into the op",
  },
  {
    name: "fused_transpose_*",
    meaning: "a transpose fused into an operand or the result",
    types: [AttrType.INTS],
    neutral: { kind: "empty" },
    asks: "a transpose fused into the op",
  },
  neutralAt(
    "use_addto",
    [false],
    "add the result to the output's old value",
    "the result added to the output's old value",
  ),
  // Layout hints of the oneDNN kernels.
  neutralAt("x_data_format", NO_LAYOUT, "X's oneDNN layout", LAYOUT),
  neutralAt("y_data_format", NO_LAYOUT, "Y's oneDNN layout", LAYOUT),
  {
    ...neutralAt(
      "data_format",
      NO_LAYOUT,
      "a layout (ops it matters to declare it)",
      LAYOUT,
    ),
    meaningfulOnSomeOps: true,
  },
  // The distributed lookup of lookup_table and nce (parameter servers);
  // its parameters are read only while it is on.
  anyValue("is_sparse", "a sparse gradient", BOOL),
  neutralAt("is_distributed", [false], "a table split across servers", SERVERS),
  neutralAt("remote_prefetch", [false], "prefetch rows from servers", SERVERS),
  anyValue("trainer_id", "the trainer, for parameter servers"),
  anyValue("slot", "a feature slot, for parameter servers"),
  anyValue("height_sections", "the table's split across servers"),
  anyValue("epmap", "the parameter servers' endpoints"),
  anyValue("table_names", "the tables on parameter servers"),
];

// The table compiled once: exact names in a map, families by prefix.
const EXACT = new Map<string, ExtraAttrRule>();
const FAMILIES: [string, ExtraAttrRule][] = [];
for (const rule of PADDLE_EXTRA_ATTRS) {
  if (rule.name.endsWith("*")) FAMILIES.push([rule.name.slice(0, -1), rule]);
  else EXACT.set(rule.name, rule);
}

/**
 * The rule of `PADDLE_EXTRA_ATTRS` for an attribute name: its exact rule,
 * else the first family whose prefix it extends.
 *
 * @param name An attribute's name.
 * @returns The rule, or `undefined` for a name no rule covers.
 *
 * @example Usage
 * ```ts
 * import { extraAttrRule } from "./paddle_extra_attrs.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(extraAttrRule("scale_y")?.name, "scale_*");
 * assertEquals(extraAttrRule("Scale_weights")?.name, "Scale_*");
 * assertEquals(extraAttrRule("scale"), undefined);
 * ```
 */
export function extraAttrRule(name: string): ExtraAttrRule | undefined {
  const exact = EXACT.get(name);
  if (exact !== undefined) return exact;
  for (const [prefix, rule] of FAMILIES) {
    if (name.length > prefix.length && name.startsWith(prefix)) return rule;
  }
  return undefined;
}
