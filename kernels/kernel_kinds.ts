// The kinds of the table-driven kernels: each closed set of kinds that a
// kernel taking a kind first (binary, compare, logical, unary, reduce, pool2d,
// activation) accepts, as a type and as a list of its values.
//
// Invariants: each list names every kind of its type exactly once, in a fixed
// order (the GPU tables and the tests iterate the lists, so a kind missing
// from its list would never be placed on the GPU nor tested). ACTIVATION_KINDS
// is the keys of ACTIVATION_PARAMS, so an activation cannot lack its parameter
// list. A device implements every kind of every kernel (kernels/device.ts).

/**
 * Arithmetic kinds of {@linkcode Kernels.binary}.
 *
 * @example Usage
 * ```ts
 * import type { BinaryKind } from "./kernel_kinds.ts";
 * import { cpuDevice } from "./cpu/device.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const kind: BinaryKind = "floordiv";
 * const x = Tensor.fromArray([7, -7], "int32");
 * const y = Tensor.fromArray([2, 2], "int32");
 * assertEquals(cpuDevice.kernels.binary(kind, x, y).toNested(), [3, -4]);
 * ```
 */
export type BinaryKind =
  | "add"
  | "sub"
  | "mul"
  | "div"
  | "max"
  | "min"
  | "pow"
  | "mod"
  | "floordiv";

/**
 * Every binary kind.
 *
 * @example Usage
 * ```ts
 * import { BINARY_KINDS } from "./kernel_kinds.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(BINARY_KINDS.includes("floordiv"), true);
 * ```
 */
export const BINARY_KINDS: readonly BinaryKind[] = [
  "add",
  "sub",
  "mul",
  "div",
  "max",
  "min",
  "pow",
  "mod",
  "floordiv",
];

/**
 * Comparison kinds of {@linkcode Kernels.compare}; all return bool.
 *
 * @example Usage
 * ```ts
 * import type { CompareKind } from "./kernel_kinds.ts";
 * import { cpuDevice } from "./cpu/device.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const kind: CompareKind = "less_than";
 * const x = Tensor.fromArray([1, 3], "float32");
 * const y = Tensor.fromArray([2, 2], "float32");
 * assertEquals(cpuDevice.kernels.compare(kind, x, y).dtype, "bool");
 * ```
 */
export type CompareKind =
  | "less_than"
  | "less_equal"
  | "greater_than"
  | "greater_equal"
  | "equal"
  | "not_equal";

/**
 * Every comparison kind.
 *
 * @example Usage
 * ```ts
 * import { COMPARE_KINDS } from "./kernel_kinds.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(COMPARE_KINDS.length, 6);
 * ```
 */
export const COMPARE_KINDS: readonly CompareKind[] = [
  "less_than",
  "less_equal",
  "greater_than",
  "greater_equal",
  "equal",
  "not_equal",
];

/**
 * Kinds of {@linkcode Kernels.logical}.
 *
 * @example Usage
 * ```ts
 * import type { LogicalKind } from "./kernel_kinds.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const kind: LogicalKind = "xor";
 * assertEquals(kind, "xor");
 * ```
 */
export type LogicalKind = "and" | "or" | "xor";

/**
 * Every logical kind.
 *
 * @example Usage
 * ```ts
 * import { LOGICAL_KINDS } from "./kernel_kinds.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(LOGICAL_KINDS, ["and", "or", "xor"]);
 * ```
 */
export const LOGICAL_KINDS: readonly LogicalKind[] = ["and", "or", "xor"];

/**
 * Kinds of {@linkcode Kernels.unary}.
 *
 * @example Usage
 * ```ts
 * import type { UnaryKind } from "./kernel_kinds.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const kind: UnaryKind = "sqrt";
 * assertEquals(kind, "sqrt");
 * ```
 */
export type UnaryKind =
  | "relu"
  | "sigmoid"
  | "tanh"
  | "exp"
  | "log"
  | "sqrt"
  | "abs"
  | "square"
  | "sin"
  | "cos"
  | "floor"
  | "ceil"
  | "round"
  | "reciprocal";

/**
 * Every unary kind.
 *
 * @example Usage
 * ```ts
 * import { UNARY_KINDS } from "./kernel_kinds.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(UNARY_KINDS.includes("reciprocal"), true);
 * ```
 */
export const UNARY_KINDS: readonly UnaryKind[] = [
  "relu",
  "sigmoid",
  "tanh",
  "exp",
  "log",
  "sqrt",
  "abs",
  "square",
  "sin",
  "cos",
  "floor",
  "ceil",
  "round",
  "reciprocal",
];

/**
 * Kinds of {@linkcode Kernels.reduce}.
 *
 * @example Usage
 * ```ts
 * import type { ReduceKind } from "./kernel_kinds.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const kind: ReduceKind = "prod";
 * assertEquals(kind, "prod");
 * ```
 */
export type ReduceKind = "sum" | "mean" | "max" | "min" | "prod";

/**
 * Every reduction kind.
 *
 * @example Usage
 * ```ts
 * import { REDUCE_KINDS } from "./kernel_kinds.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(REDUCE_KINDS, ["sum", "mean", "max", "min", "prod"]);
 * ```
 */
export const REDUCE_KINDS: readonly ReduceKind[] = [
  "sum",
  "mean",
  "max",
  "min",
  "prod",
];

/**
 * Kinds of {@linkcode Kernels.pool2d}.
 *
 * @example Usage
 * ```ts
 * import type { PoolKind } from "./kernel_kinds.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const kind: PoolKind = "avg";
 * assertEquals(kind, "avg");
 * ```
 */
export type PoolKind = "max" | "avg";

/**
 * Every pooling kind.
 *
 * @example Usage
 * ```ts
 * import { POOL_KINDS } from "./kernel_kinds.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(POOL_KINDS, ["max", "avg"]);
 * ```
 */
export const POOL_KINDS: readonly PoolKind[] = ["max", "avg"];

/**
 * Kinds of {@linkcode Kernels.activation}: Paddle's parameterized
 * activations (`gelu_tanh` is gelu with `approximate`).
 *
 * @example Usage
 * ```ts
 * import type { ActivationKind } from "./kernel_kinds.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const kind: ActivationKind = "leaky_relu";
 * assertEquals(kind, "leaky_relu");
 * ```
 */
export type ActivationKind =
  | "gelu"
  | "gelu_tanh"
  | "swish"
  | "hard_swish"
  | "hard_sigmoid"
  | "leaky_relu"
  | "relu6"
  | "elu"
  | "clip"
  | "thresholded_relu";

/**
 * The parameters each activation kind takes, in the order
 * {@linkcode Kernels.activation} reads them: Paddle's attribute names.
 *
 * @example Usage
 * ```ts
 * import { ACTIVATION_PARAMS } from "./kernel_kinds.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(ACTIVATION_PARAMS.hard_swish, ["threshold", "scale", "offset"]);
 * assertEquals(ACTIVATION_PARAMS.gelu, []);
 * ```
 */
export const ACTIVATION_PARAMS: Readonly<
  Record<ActivationKind, readonly string[]>
> = {
  gelu: [],
  gelu_tanh: [],
  swish: ["beta"],
  hard_swish: ["threshold", "scale", "offset"],
  hard_sigmoid: ["slope", "offset"],
  leaky_relu: ["alpha"],
  relu6: ["threshold"],
  elu: ["alpha"],
  clip: ["min", "max"],
  thresholded_relu: ["threshold", "value"],
};

/**
 * Every activation kind.
 *
 * @example Usage
 * ```ts
 * import { ACTIVATION_KINDS } from "./kernel_kinds.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(ACTIVATION_KINDS.includes("gelu_tanh"), true);
 * ```
 */
export const ACTIVATION_KINDS: readonly ActivationKind[] = Object.keys(
  ACTIVATION_PARAMS,
) as ActivationKind[];
