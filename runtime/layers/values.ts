/**
 * Builders for the ops that make values: constants, copies, casts,
 * counters, random tensors, ranges and shapes.
 *
 * @module
 */
import type { DType } from "../../kernels/dtype.ts";
import { codeOfDType } from "../core/dtype_codes.ts";
import type { Variable } from "../build/program.ts";
import { out1, type OutOptions } from "./append_layer.ts";
import { exactText } from "./_exact_text.ts";

/** Options of `fillConstant`. */
export interface FillConstantOptions extends OutOptions {
  /** The shape. */
  shape: readonly number[];
  /** The element type. @default {"float32"} */
  dtype?: DType;
  /** The value (a bigint is exact for int64). @default {0} */
  value?: number | bigint | boolean;
}

/**
 * `fill_constant`: a tensor of `shape` filled with `value`.
 *
 * @param options Shape, dtype, value.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const x = p.guard(() => fillConstant({ shape: [1], dtype: "int64", value: 2n ** 60n }));
 * assertEquals(x.dtype, "int64");
 * ```
 */
export function fillConstant(options: FillConstantOptions): Variable {
  const v = options.value ?? 0;
  const dtype = options.dtype ?? "float32";
  return out1("fill_constant", {}, {
    shape: options.shape,
    dtype: codeOfDType(dtype),
    value: Number(v),
    str_value: exactText(v, dtype),
  }, options);
}

/** Options of `assignValue`. */
export interface AssignValueOptions extends OutOptions {
  /** The element type. @default {"float32"} */
  dtype?: DType;
  /** The shape. @default {[values.length]} */
  shape?: readonly number[];
}

/**
 * `assign_value`: a tensor holding `values`.
 *
 * @param values The values, flat, row-major.
 * @param options Dtype and shape.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const x = p.guard(() => assignValue([1, 2, 3, 4], { shape: [2, 2] }));
 * assertEquals(x.shape, [2, 2]);
 * ```
 */
export function assignValue(
  values: readonly number[] | readonly bigint[] | readonly boolean[],
  options: AssignValueOptions = {},
): Variable {
  const dtype = options.dtype ?? "float32";
  const field = dtype === "bool"
    ? "bool_values"
    : dtype === "int64"
    ? "int64_values"
    : dtype.startsWith("float")
    ? "fp32_values"
    : "int32_values";
  return out1("assign_value", {}, {
    shape: options.shape ?? [values.length],
    dtype: codeOfDType(dtype),
    [field]: field === "int64_values"
      ? values.map((v) => BigInt(v as number))
      : values,
  }, options);
}

/**
 * `assign`: binds a variable to `x`'s value, of any kind.
 *
 * @param x The source.
 * @param options Where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { assign, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => assign(fillConstant({ shape: [3] })));
 * assertEquals(y.shape, [3]);
 * ```
 */
export function assign(x: Variable, options: OutOptions = {}): Variable {
  return out1("assign", { X: x }, {}, options);
}

/**
 * `fill_zeros_like`: zeros shaped and typed like `x`.
 *
 * @param x The model.
 * @param options Where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, fillZerosLike, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const z = p.guard(() => fillZerosLike(fillConstant({ shape: [2], value: 5 })));
 * assertEquals(z.shape, [2]);
 * ```
 */
export function fillZerosLike(x: Variable, options: OutOptions = {}): Variable {
  return out1("fill_zeros_like", { X: x }, {}, options);
}

/**
 * `cast`: `x` converted to `dtype`.
 *
 * @param x The input.
 * @param dtype The new element type.
 * @param options Where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { cast, fillConstant, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => cast(fillConstant({ shape: [1], value: 1.5 }), "int32"));
 * assertEquals(y.dtype, "int32");
 * ```
 */
export function cast(
  x: Variable,
  dtype: DType,
  options: OutOptions = {},
): Variable {
  return out1("cast", { X: x }, { out_dtype: codeOfDType(dtype) }, options);
}

/** Options of `increment`. */
export interface IncrementOptions extends OutOptions {
  /** Added to x. @default {1} */
  step?: number;
}

/**
 * `increment`: `x + step`. Like Fluid's default `in_place=True`, the result
 * rebinds `x` unless `out` names another variable.
 *
 * @param x The counter.
 * @param options Step, where to write.
 * @returns The output variable (`x` by default).
 *
 * @example Usage
 * ```ts
 * import { fillConstant, increment, Program } from "../../mod.ts";
 * import { assertStrictEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const i = fillConstant({ shape: [1], dtype: "int64" });
 *   assertStrictEquals(increment(i).name, i.name);
 * });
 * ```
 */
export function increment(
  x: Variable,
  options: IncrementOptions = {},
): Variable {
  return out1("increment", { X: x }, { step: options.step }, {
    out: options.out ?? x,
  });
}

/** Options of the random tensor builders. */
export interface RandomOptions extends OutOptions {
  /** The shape. */
  shape: readonly number[];
  /** The element type. @default {"float32"} */
  dtype?: DType;
  /** A fixed seed; 0 draws from the run's seed. @default {0} */
  seed?: number;
}

/**
 * `uniform_random`: uniform values in [min, max).
 *
 * @param options Shape, dtype, bounds, seed.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { Program, uniformRandom } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const r = p.guard(() => uniformRandom({ shape: [4], min: 0, max: 1 }));
 * assertEquals(r.shape, [4]);
 * ```
 */
export function uniformRandom(
  options: RandomOptions & { min?: number; max?: number },
): Variable {
  return out1("uniform_random", {}, {
    shape: options.shape,
    dtype: codeOfDType(options.dtype ?? "float32"),
    min: options.min,
    max: options.max,
    seed: options.seed,
  }, options);
}

/**
 * `gaussian_random`: normal values with `mean` and `std`.
 *
 * @param options Shape, dtype, mean, std, seed.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { gaussianRandom, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const r = p.guard(() => gaussianRandom({ shape: [2, 2], std: 2 }));
 * assertEquals(r.shape, [2, 2]);
 * ```
 */
export function gaussianRandom(
  options: RandomOptions & { mean?: number; std?: number },
): Variable {
  return out1("gaussian_random", {}, {
    shape: options.shape,
    dtype: codeOfDType(options.dtype ?? "float32"),
    mean: options.mean,
    std: options.std,
    seed: options.seed,
  }, options);
}

/**
 * `range`: `[start, start+step, ...)` below `end`.
 *
 * @param start First value.
 * @param end Bound.
 * @param step Stride.
 * @param options Where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program, range } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const r = p.guard(() => {
 *   const c = (v: number) => fillConstant({ shape: [1], dtype: "int32", value: v });
 *   return range(c(0), c(10), c(2));
 * });
 * assertEquals(r.dtype, "int32");
 * ```
 */
export function range(
  start: Variable,
  end: Variable,
  step: Variable,
  options: OutOptions = {},
): Variable {
  return out1("range", { Start: start, End: end, Step: step }, {}, options);
}

/**
 * `shape`: the shape of `x` as an int32 tensor.
 *
 * @param x The input.
 * @param options Where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program, shape } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const s = p.guard(() => shape(fillConstant({ shape: [2, 3] })));
 * assertEquals(s.shape, [2]);
 * ```
 */
export function shape(x: Variable, options: OutOptions = {}): Variable {
  return out1("shape", { Input: x }, {}, options);
}
