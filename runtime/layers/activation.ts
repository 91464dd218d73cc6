/**
 * Builders for Paddle's activations and math ops: `gelu`, `swish`,
 * `hard_swish`, `hard_sigmoid`, `leaky_relu`, `relu6`, `elu`,
 * `thresholded_relu`, `clip`,
 * `pow`, `log_softmax`, `dropout`. Each option left out is left out of the
 * op, which then takes Paddle's default.
 *
 * @module
 */
import type { Variable } from "../build/program.ts";
import { appendLayer, out1, type OutOptions } from "./append_layer.ts";

/** Options of {@linkcode gelu}. */
export interface GeluOptions extends OutOptions {
  /** `approximate`: use the tanh approximation. @default {false} */
  approximate?: boolean;
}

/**
 * `gelu`: `x·Φ(x)`, or its tanh approximation.
 *
 * @param x The input.
 * @param options The approximation and where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, gelu, Program, Tensor } from "../../mod.ts";
 * import { assertAlmostEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => gelu(assignValue([1])));
 * const { fetched } = await new Executor().run(p, { fetch: [y.name] });
 * assertAlmostEquals(Number((fetched[y.name] as Tensor).item(0)), 0.841345, 1e-5);
 * ```
 */
export function gelu(x: Variable, options: GeluOptions = {}): Variable {
  return out1("gelu", { X: x }, { approximate: options.approximate }, options);
}

/** Options of {@linkcode swish}. */
export interface SwishOptions extends OutOptions {
  /** `beta`. @default {1} */
  beta?: number;
}

/**
 * `swish`: `x·sigmoid(beta·x)`.
 *
 * @param x The input.
 * @param options Beta and where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, Program, swish, Tensor } from "../../mod.ts";
 * import { assertAlmostEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => swish(assignValue([1])));
 * const { fetched } = await new Executor().run(p, { fetch: [y.name] });
 * assertAlmostEquals(Number((fetched[y.name] as Tensor).item(0)), 0.731059, 1e-5);
 * ```
 */
export function swish(x: Variable, options: SwishOptions = {}): Variable {
  return out1("swish", { X: x }, { beta: options.beta }, options);
}

/** Options of {@linkcode hardSwish}. */
export interface HardSwishOptions extends OutOptions {
  /** `threshold`. @default {6} */
  threshold?: number;
  /** `scale`. @default {6} */
  scale?: number;
  /** `offset`. @default {3} */
  offset?: number;
}

/**
 * `hard_swish`: `x·min(max(x + offset, 0), threshold) / scale`.
 *
 * @param x The input.
 * @param options The constants and where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, hardSwish, print, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => print(hardSwish(assignValue([0, 3, 6])), { message: "y" }));
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["y [0, 3, 6]"]);
 * ```
 */
export function hardSwish(
  x: Variable,
  options: HardSwishOptions = {},
): Variable {
  return out1("hard_swish", { X: x }, {
    threshold: options.threshold,
    scale: options.scale,
    offset: options.offset,
  }, options);
}

/** Options of {@linkcode hardSigmoid}. */
export interface HardSigmoidOptions extends OutOptions {
  /** `slope`. @default {0.2} */
  slope?: number;
  /** `offset`. @default {0.5} */
  offset?: number;
}

/**
 * `hard_sigmoid`: `max(0, min(1, slope·x + offset))`.
 *
 * @param x The input.
 * @param options The line and where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, hardSigmoid, print, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => print(hardSigmoid(assignValue([-5, 0, 5])), { message: "y" }));
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["y [0, 0.5, 1]"]);
 * ```
 */
export function hardSigmoid(
  x: Variable,
  options: HardSigmoidOptions = {},
): Variable {
  return out1("hard_sigmoid", { X: x }, {
    slope: options.slope,
    offset: options.offset,
  }, options);
}

/** Options of {@linkcode leakyRelu} and {@linkcode elu}. */
export interface AlphaOptions extends OutOptions {
  /** `alpha`: 0.02 for `leaky_relu`, 1 for `elu`. @default {0.02} */
  alpha?: number;
}

/**
 * `leaky_relu`: `x` where positive, else `alpha·x`.
 *
 * @param x The input.
 * @param options Alpha (default 0.02) and where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, leakyRelu, print, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => print(leakyRelu(assignValue([-2, 3]), { alpha: 0.5 }), { message: "y" }));
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["y [-1, 3]"]);
 * ```
 */
export function leakyRelu(x: Variable, options: AlphaOptions = {}): Variable {
  return out1("leaky_relu", { X: x }, { alpha: options.alpha }, options);
}

/** Options of {@linkcode relu6}. */
export interface Relu6Options extends OutOptions {
  /** `threshold`: the cap. @default {6} */
  threshold?: number;
}

/**
 * `relu6`: `min(max(x, 0), threshold)`.
 *
 * @param x The input.
 * @param options The cap and where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, print, Program, relu6 } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => print(relu6(assignValue([-1, 3, 8])), { message: "y" }));
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["y [0, 3, 6]"]);
 * ```
 */
export function relu6(x: Variable, options: Relu6Options = {}): Variable {
  return out1("relu6", { X: x }, { threshold: options.threshold }, options);
}

/**
 * `elu`: `x` where not negative, else `alpha·(eˣ - 1)`.
 *
 * @param x The input.
 * @param options Alpha (default 1) and where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, elu, Executor, Program, Tensor } from "../../mod.ts";
 * import { assertAlmostEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => elu(assignValue([-1])));
 * const { fetched } = await new Executor().run(p, { fetch: [y.name] });
 * assertAlmostEquals(Number((fetched[y.name] as Tensor).item(0)), Math.expm1(-1), 1e-6);
 * ```
 */
export function elu(x: Variable, options: AlphaOptions = {}): Variable {
  return out1("elu", { X: x }, { alpha: options.alpha }, options);
}

/** Options of {@linkcode thresholdedRelu}. */
export interface ThresholdedReluOptions extends OutOptions {
  /** `threshold`: the bound an element must exceed to pass. @default {1} */
  threshold?: number;
  /** `value`: what replaces the others. @default {0} */
  value?: number;
}

/**
 * `thresholded_relu`: `x` where above `threshold`, else `value`.
 *
 * @param x The input.
 * @param options The threshold, the replacement and where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, print, Program, thresholdedRelu } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => print(thresholdedRelu(assignValue([0.5, 1, 2])), { message: "y" }));
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["y [0, 0, 2]"]);
 * ```
 */
export function thresholdedRelu(
  x: Variable,
  options: ThresholdedReluOptions = {},
): Variable {
  return out1("thresholded_relu", { X: x }, {
    threshold: options.threshold,
    value: options.value,
  }, options);
}

/**
 * `clip`: `x` clamped to `[min, max]`.
 *
 * @param x The input.
 * @param min The lower bound.
 * @param max The upper bound (at least `min`).
 * @param options Where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, clip, Executor, print, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => print(clip(assignValue([-1, 0.5, 3]), 0, 1), { message: "y" }));
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["y [0, 0.5, 1]"]);
 * ```
 */
export function clip(
  x: Variable,
  min: number,
  max: number,
  options: OutOptions = {},
): Variable {
  return out1("clip", { X: x }, { min, max }, options);
}

/** Options of {@linkcode pow}. */
export interface PowOptions extends OutOptions {
  /** `factor`: the exponent. @default {1} */
  factor?: number;
}

/**
 * `pow`: `x ** factor`, in `x`'s dtype.
 *
 * @param x The input.
 * @param options The exponent and where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, pow, print, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => print(pow(assignValue([2, 3]), { factor: 2 }), { message: "y" }));
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["y [4, 9]"]);
 * ```
 */
export function pow(x: Variable, options: PowOptions = {}): Variable {
  return out1("pow", { X: x }, { factor: options.factor }, options);
}

/** Options of {@linkcode logSoftmax}. */
export interface LogSoftmaxOptions extends OutOptions {
  /** `axis`. @default {-1} */
  axis?: number;
}

/**
 * `log_softmax`: `log(softmax(x))` along `axis`.
 *
 * @param x The input.
 * @param options The axis and where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Executor, logSoftmax, Program, Tensor } from "../../mod.ts";
 * import { assertAlmostEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => logSoftmax(assignValue([3, 3])));
 * const { fetched } = await new Executor().run(p, { fetch: [y.name] });
 * assertAlmostEquals(Number((fetched[y.name] as Tensor).item(1)), -Math.LN2, 1e-6);
 * ```
 */
export function logSoftmax(
  x: Variable,
  options: LogSoftmaxOptions = {},
): Variable {
  return out1("log_softmax", { X: x }, { axis: options.axis }, options);
}

/** Options of {@linkcode dropout}. */
export interface DropoutOptions extends OutOptions {
  /** `is_test`: inference, where nothing is dropped. @default {false} */
  isTest?: boolean;
  /** `fix_seed`: draw from `seed`, not the thread's stream. @default {false} */
  fixSeed?: boolean;
  /** `seed`, used with `fixSeed`. @default {0} */
  seed?: number;
  /**
   * `dropout_implementation`: `downgrade_in_infer` (scale by `1 - p` at
   * inference) or `upscale_in_train` (divide kept ones by `1 - p` in
   * training). @default {"downgrade_in_infer"}
   */
  dropoutImplementation?: "downgrade_in_infer" | "upscale_in_train";
  /** Also write the kept elements (uint8) into this variable (`Mask`). */
  mask?: Variable;
}

/**
 * `dropout`: `x` with each element dropped with probability `dropoutProb`
 * in training.
 *
 * @param x The input.
 * @param dropoutProb The probability, in `[0, 1]`.
 * @param options Mode, seed, and where to write.
 * @returns The `Out` variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, dropout, Executor, print, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => print(dropout(assignValue([2, 4]), 0.5, { isTest: true }), { message: "y" }));
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["y [1, 2]"]);
 * ```
 */
export function dropout(
  x: Variable,
  dropoutProb: number,
  options: DropoutOptions = {},
): Variable {
  return appendLayer("dropout", { X: x }, {
    dropout_prob: dropoutProb,
    is_test: options.isTest,
    fix_seed: options.fixSeed,
    seed: options.seed,
    dropout_implementation: options.dropoutImplementation,
  }, { Out: options.out, Mask: options.mask }).Out[0];
}
