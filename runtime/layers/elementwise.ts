/**
 * Builders for the elementwise ops: arithmetic, comparisons, logic,
 * activations, `scale`.
 *
 * @module
 */
import type { Variable } from "../build/program.ts";
import { out1, type OutOptions, unaryBuilder } from "./append_layer.ts";

/** Options of the elementwise and comparison builders. */
export interface ElementwiseOptions extends OutOptions {
  /** Paddle's axis: ≥ 0 aligns y to x from that dim. @default {-1} */
  axis?: number;
}

/** A builder of a binary op `X, Y → Out`. */
export type BinaryBuilder = (
  x: Variable,
  y: Variable,
  options?: ElementwiseOptions,
) => Variable;

/** A builder of a unary op `X → Out`. */
export type UnaryBuilder = (x: Variable, options?: OutOptions) => Variable;

function binaryBuilder(type: string): BinaryBuilder {
  return (x, y, options = {}) =>
    out1(
      type,
      { X: x, Y: y },
      type.startsWith("logical") ? {} : { axis: options.axis },
      options,
    );
}

/**
 * `elementwise_add`: Out = x + y, broadcasting like NumPy.
 *
 * @example Usage
 * ```ts
 * import { elementwiseAdd, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const z = p.guard(() => elementwiseAdd(fillConstant({ shape: [2, 3] }), fillConstant({ shape: [3] })));
 * assertEquals(z.shape, [2, 3]);
 * ```
 */
export const elementwiseAdd: BinaryBuilder = binaryBuilder("elementwise_add");

/**
 * `elementwise_sub`: Out = x - y, broadcasting like NumPy.
 *
 * @example Usage
 * ```ts
 * import { elementwiseSub, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const z = p.guard(() => elementwiseSub(fillConstant({ shape: [2, 3] }), fillConstant({ shape: [3] })));
 * assertEquals(z.shape, [2, 3]);
 * ```
 */
export const elementwiseSub: BinaryBuilder = binaryBuilder("elementwise_sub");

/**
 * `elementwise_mul`: Out = x * y, broadcasting like NumPy.
 *
 * @example Usage
 * ```ts
 * import { elementwiseMul, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const z = p.guard(() => elementwiseMul(fillConstant({ shape: [2, 3] }), fillConstant({ shape: [3] })));
 * assertEquals(z.shape, [2, 3]);
 * ```
 */
export const elementwiseMul: BinaryBuilder = binaryBuilder("elementwise_mul");

/**
 * `elementwise_div`: Out = x / y (integers truncate), broadcasting like NumPy.
 *
 * @example Usage
 * ```ts
 * import { elementwiseDiv, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const z = p.guard(() => elementwiseDiv(fillConstant({ shape: [2, 3] }), fillConstant({ shape: [3] })));
 * assertEquals(z.shape, [2, 3]);
 * ```
 */
export const elementwiseDiv: BinaryBuilder = binaryBuilder("elementwise_div");

/**
 * `elementwise_max`: Out = max(x, y), broadcasting like NumPy.
 *
 * @example Usage
 * ```ts
 * import { elementwiseMax, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const z = p.guard(() => elementwiseMax(fillConstant({ shape: [2, 3] }), fillConstant({ shape: [3] })));
 * assertEquals(z.shape, [2, 3]);
 * ```
 */
export const elementwiseMax: BinaryBuilder = binaryBuilder("elementwise_max");

/**
 * `elementwise_min`: Out = min(x, y), broadcasting like NumPy.
 *
 * @example Usage
 * ```ts
 * import { elementwiseMin, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const z = p.guard(() => elementwiseMin(fillConstant({ shape: [2, 3] }), fillConstant({ shape: [3] })));
 * assertEquals(z.shape, [2, 3]);
 * ```
 */
export const elementwiseMin: BinaryBuilder = binaryBuilder("elementwise_min");

/**
 * `elementwise_pow`: Out = x ** y, broadcasting like NumPy.
 *
 * @example Usage
 * ```ts
 * import { elementwisePow, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const z = p.guard(() => elementwisePow(fillConstant({ shape: [2, 3] }), fillConstant({ shape: [3] })));
 * assertEquals(z.shape, [2, 3]);
 * ```
 */
export const elementwisePow: BinaryBuilder = binaryBuilder("elementwise_pow");

/**
 * `elementwise_mod`: Out = x mod y, with the sign of y, broadcasting like NumPy.
 *
 * @example Usage
 * ```ts
 * import { elementwiseMod, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const z = p.guard(() => elementwiseMod(fillConstant({ shape: [2, 3] }), fillConstant({ shape: [3] })));
 * assertEquals(z.shape, [2, 3]);
 * ```
 */
export const elementwiseMod: BinaryBuilder = binaryBuilder("elementwise_mod");

/**
 * `elementwise_floordiv`: Out = floor(x / y), broadcasting like NumPy.
 *
 * @example Usage
 * ```ts
 * import { elementwiseFloordiv, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const z = p.guard(() => elementwiseFloordiv(fillConstant({ shape: [2, 3] }), fillConstant({ shape: [3] })));
 * assertEquals(z.shape, [2, 3]);
 * ```
 */
export const elementwiseFloordiv: BinaryBuilder = binaryBuilder(
  "elementwise_floordiv",
);

/**
 * `less_than`: Out = x < y, broadcasting like NumPy.
 *
 * @example Usage
 * ```ts
 * import { lessThan, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const z = p.guard(() => lessThan(fillConstant({ shape: [2, 3] }), fillConstant({ shape: [3] })));
 * assertEquals(z.shape, [2, 3]);
 * ```
 */
export const lessThan: BinaryBuilder = binaryBuilder("less_than");

/**
 * `less_equal`: Out = x <= y, broadcasting like NumPy.
 *
 * @example Usage
 * ```ts
 * import { lessEqual, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const z = p.guard(() => lessEqual(fillConstant({ shape: [2, 3] }), fillConstant({ shape: [3] })));
 * assertEquals(z.shape, [2, 3]);
 * ```
 */
export const lessEqual: BinaryBuilder = binaryBuilder("less_equal");

/**
 * `greater_than`: Out = x > y, broadcasting like NumPy.
 *
 * @example Usage
 * ```ts
 * import { greaterThan, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const z = p.guard(() => greaterThan(fillConstant({ shape: [2, 3] }), fillConstant({ shape: [3] })));
 * assertEquals(z.shape, [2, 3]);
 * ```
 */
export const greaterThan: BinaryBuilder = binaryBuilder("greater_than");

/**
 * `greater_equal`: Out = x >= y, broadcasting like NumPy.
 *
 * @example Usage
 * ```ts
 * import { greaterEqual, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const z = p.guard(() => greaterEqual(fillConstant({ shape: [2, 3] }), fillConstant({ shape: [3] })));
 * assertEquals(z.shape, [2, 3]);
 * ```
 */
export const greaterEqual: BinaryBuilder = binaryBuilder("greater_equal");

/**
 * `equal`: Out = x == y, broadcasting like NumPy.
 *
 * @example Usage
 * ```ts
 * import { equal, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const z = p.guard(() => equal(fillConstant({ shape: [2, 3] }), fillConstant({ shape: [3] })));
 * assertEquals(z.shape, [2, 3]);
 * ```
 */
export const equal: BinaryBuilder = binaryBuilder("equal");

/**
 * `not_equal`: Out = x != y, broadcasting like NumPy.
 *
 * @example Usage
 * ```ts
 * import { notEqual, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const z = p.guard(() => notEqual(fillConstant({ shape: [2, 3] }), fillConstant({ shape: [3] })));
 * assertEquals(z.shape, [2, 3]);
 * ```
 */
export const notEqual: BinaryBuilder = binaryBuilder("not_equal");

/**
 * `logical_and`: Out = x and y, broadcasting like NumPy.
 *
 * @example Usage
 * ```ts
 * import { logicalAnd, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const z = p.guard(() => logicalAnd(fillConstant({ shape: [2, 3] }), fillConstant({ shape: [3] })));
 * assertEquals(z.shape, [2, 3]);
 * ```
 */
export const logicalAnd: BinaryBuilder = binaryBuilder("logical_and");

/**
 * `logical_or`: Out = x or y, broadcasting like NumPy.
 *
 * @example Usage
 * ```ts
 * import { logicalOr, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const z = p.guard(() => logicalOr(fillConstant({ shape: [2, 3] }), fillConstant({ shape: [3] })));
 * assertEquals(z.shape, [2, 3]);
 * ```
 */
export const logicalOr: BinaryBuilder = binaryBuilder("logical_or");

/**
 * `logical_xor`: Out = x xor y, broadcasting like NumPy.
 *
 * @example Usage
 * ```ts
 * import { logicalXor, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const z = p.guard(() => logicalXor(fillConstant({ shape: [2, 3] }), fillConstant({ shape: [3] })));
 * assertEquals(z.shape, [2, 3]);
 * ```
 */
export const logicalXor: BinaryBuilder = binaryBuilder("logical_xor");

/**
 * `relu`: Out = max(x, 0).
 *
 * @example Usage
 * ```ts
 * import { relu, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => relu(fillConstant({ shape: [1] })));
 * assertEquals(y.kind, "tensor");
 * ```
 */
export const relu: UnaryBuilder = unaryBuilder("relu");

/**
 * `sigmoid`: Out = 1 / (1 + exp(-x)).
 *
 * @example Usage
 * ```ts
 * import { sigmoid, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => sigmoid(fillConstant({ shape: [1] })));
 * assertEquals(y.kind, "tensor");
 * ```
 */
export const sigmoid: UnaryBuilder = unaryBuilder("sigmoid");

/**
 * `tanh`: Out = tanh(x).
 *
 * @example Usage
 * ```ts
 * import { tanh, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => tanh(fillConstant({ shape: [1] })));
 * assertEquals(y.kind, "tensor");
 * ```
 */
export const tanh: UnaryBuilder = unaryBuilder("tanh");

/**
 * `exp`: Out = exp(x).
 *
 * @example Usage
 * ```ts
 * import { exp, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => exp(fillConstant({ shape: [1] })));
 * assertEquals(y.kind, "tensor");
 * ```
 */
export const exp: UnaryBuilder = unaryBuilder("exp");

/**
 * `log`: Out = ln(x).
 *
 * @example Usage
 * ```ts
 * import { log, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => log(fillConstant({ shape: [1] })));
 * assertEquals(y.kind, "tensor");
 * ```
 */
export const log: UnaryBuilder = unaryBuilder("log");

/**
 * `sqrt`: Out = sqrt(x).
 *
 * @example Usage
 * ```ts
 * import { sqrt, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => sqrt(fillConstant({ shape: [1] })));
 * assertEquals(y.kind, "tensor");
 * ```
 */
export const sqrt: UnaryBuilder = unaryBuilder("sqrt");

/**
 * `abs`: Out = |x|.
 *
 * @example Usage
 * ```ts
 * import { abs, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => abs(fillConstant({ shape: [1] })));
 * assertEquals(y.kind, "tensor");
 * ```
 */
export const abs: UnaryBuilder = unaryBuilder("abs");

/**
 * `square`: Out = x * x.
 *
 * @example Usage
 * ```ts
 * import { square, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => square(fillConstant({ shape: [1] })));
 * assertEquals(y.kind, "tensor");
 * ```
 */
export const square: UnaryBuilder = unaryBuilder("square");

/**
 * `sin`: Out = sin(x).
 *
 * @example Usage
 * ```ts
 * import { sin, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => sin(fillConstant({ shape: [1] })));
 * assertEquals(y.kind, "tensor");
 * ```
 */
export const sin: UnaryBuilder = unaryBuilder("sin");

/**
 * `cos`: Out = cos(x).
 *
 * @example Usage
 * ```ts
 * import { cos, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => cos(fillConstant({ shape: [1] })));
 * assertEquals(y.kind, "tensor");
 * ```
 */
export const cos: UnaryBuilder = unaryBuilder("cos");

/**
 * `floor`: Out = floor(x).
 *
 * @example Usage
 * ```ts
 * import { floor, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => floor(fillConstant({ shape: [1] })));
 * assertEquals(y.kind, "tensor");
 * ```
 */
export const floor: UnaryBuilder = unaryBuilder("floor");

/**
 * `ceil`: Out = ceil(x).
 *
 * @example Usage
 * ```ts
 * import { ceil, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => ceil(fillConstant({ shape: [1] })));
 * assertEquals(y.kind, "tensor");
 * ```
 */
export const ceil: UnaryBuilder = unaryBuilder("ceil");

/**
 * `round`: Out = round(x).
 *
 * @example Usage
 * ```ts
 * import { round, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => round(fillConstant({ shape: [1] })));
 * assertEquals(y.kind, "tensor");
 * ```
 */
export const round: UnaryBuilder = unaryBuilder("round");

/**
 * `reciprocal`: Out = 1 / x.
 *
 * @example Usage
 * ```ts
 * import { reciprocal, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => reciprocal(fillConstant({ shape: [1] })));
 * assertEquals(y.kind, "tensor");
 * ```
 */
export const reciprocal: UnaryBuilder = unaryBuilder("reciprocal");

/**
 * `logical_not`: Out = !x.
 *
 * @example Usage
 * ```ts
 * import { logicalNot, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => logicalNot(fillConstant({ shape: [1] })));
 * assertEquals(y.kind, "tensor");
 * ```
 */
export const logicalNot: UnaryBuilder = unaryBuilder("logical_not");

/** Options of `scale`. */
export interface ScaleOptions extends OutOptions {
  /** The factor. @default {1} */
  scale?: number;
  /** The offset. @default {0} */
  bias?: number;
  /** `scale * x + bias` when true, else `scale * (x + bias)`. @default {true} */
  biasAfterScale?: boolean;
}

/**
 * `scale`: `scale * x + bias`.
 *
 * @param x The input.
 * @param options Scale, bias, order, where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program, scale } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => scale(fillConstant({ shape: [3] }), { scale: 2 })).shape, [3]);
 * ```
 */
export function scale(x: Variable, options: ScaleOptions = {}): Variable {
  return out1("scale", { X: x }, {
    scale: options.scale,
    bias: options.bias,
    bias_after_scale: options.biasAfterScale,
  }, options);
}
