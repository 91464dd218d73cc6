/**
 * Builder functions, one per operator (Fluid's `fluid.layers`): each appends
 * its op to the default program's current block and returns the output
 * variables, declared with the dtype and shape the op's `infer` gives.
 * Every function is a thin call of `appendLayer`, which reads the op's
 * registered definition; none repeats a slot or attribute list.
 *
 * @module
 */
import type { DType } from "../kernels/dtype.ts";
import { readAttrs } from "./attr_read.ts";
import { codeOfDType } from "./dtype_codes.ts";
import type { InferredType, VarInfo } from "./op_def.ts";
import { OPS } from "./ops/mod.ts";
import {
  type AttrInput,
  defaultProgram,
  encodeAttrs,
  type SlotInput,
  Variable,
} from "./program.ts";

/** Options every single-output builder function takes. */
export interface OutOptions {
  /** Write into this variable instead of a new one. */
  out?: Variable;
}

/**
 * Appends op `type` to the default program's current block. Output slots
 * not given in `outputs` get new variables typed by the op's `infer`.
 *
 * @param type The op type.
 * @param inputs Input slots.
 * @param attrs Attributes (`undefined` ones left out).
 * @param outputs Output slots given by the caller.
 * @returns Every output slot's variables.
 *
 * @example Usage
 * ```ts
 * import { appendLayer } from "./layers.ts";
 * import { Program } from "./program.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const { Out } = p.guard(() =>
 *   appendLayer("fill_constant", {}, { shape: [2, 3], dtype: 5, value: 1 })
 * );
 * assertEquals(Out[0].shape, [2, 3]);
 * ```
 */
export function appendLayer(
  type: string,
  inputs: Readonly<Record<string, SlotInput>>,
  attrs: Readonly<Record<string, AttrInput | undefined>> = {},
  outputs: Readonly<Record<string, SlotInput>> = {},
): Record<string, Variable[]> {
  const def = OPS.get(type);
  if (def === undefined) throw new TypeError(`append op: unknown op "${type}"`);
  const block = defaultProgram().currentBlock;
  const infos = (slot: string): VarInfo[] =>
    listOf(inputs[slot]).map((v) => v.info);
  let inferred: Readonly<
    Record<string, InferredType | readonly InferredType[]>
  > = {};
  try {
    const values = readAttrs(def.attrs, encodeAttrs(def, attrs));
    inferred = def.infer?.({ inputs: infos, attrs: values as never }) ?? {};
  } catch (e) {
    throw new TypeError(`append op ${type}: ${(e as Error).message}`);
  }
  const result: Record<string, Variable[]> = {};
  for (const [slot, spec] of Object.entries(def.outputs)) {
    const given = outputs[slot];
    if (given !== undefined) {
      result[slot] = [...listOf(given)];
    } else if (!spec.optional && !spec.duplicable) {
      const t = inferred[slot] as InferredType | undefined;
      const kind = spec.kind === "any" ? inputKind(inputs) : spec.kind;
      result[slot] = [block.createVar({
        name: block.program.uniqueName(`${type}.${slot.toLowerCase()}`),
        kind,
        dtype: t?.dtype,
        shape: t?.shape,
      })];
    }
  }
  block.appendOp({ type, inputs, outputs: result, attrs });
  return result;
}

function listOf(s: SlotInput): readonly Variable[] {
  return s === undefined ? [] : s instanceof Variable ? [s] : s;
}

// `assign` and friends output what they take.
function inputKind(
  inputs: Readonly<Record<string, SlotInput>>,
): Exclude<VarInfo["kind"], "other"> {
  const kind = Object.values(inputs).flatMap((s) => listOf(s))[0]?.kind;
  return kind === undefined || kind === "other" ? "tensor" : kind;
}

function out1(
  type: string,
  inputs: Readonly<Record<string, SlotInput>>,
  attrs: Readonly<Record<string, AttrInput | undefined>>,
  options: OutOptions = {},
): Variable {
  return appendLayer(type, inputs, attrs, { Out: options.out }).Out[0];
}

// ---- Values and arithmetic ------------------------------------------------

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
 * import { fillConstant, Program } from "../mod.ts";
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

// `value` is a float32 on the wire; a value it cannot hold goes in
// `str_value` too, so that 2 ** 60 (int64) or 0.1 (float64) stay exact.
function exactText(
  v: number | bigint | boolean,
  dtype: DType,
): string | undefined {
  if (typeof v === "bigint") return v.toString();
  if (typeof v !== "number" || Object.is(Math.fround(v), v)) return undefined;
  if (dtype !== "int64") return String(v);
  return Number.isFinite(v) ? BigInt(Math.trunc(v)).toString() : undefined;
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
 * import { assignValue, Program } from "../mod.ts";
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
 * import { assign, fillConstant, Program } from "../mod.ts";
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
 * import { fillConstant, fillZerosLike, Program } from "../mod.ts";
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
 * import { cast, fillConstant, Program } from "../mod.ts";
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
 * import { fillConstant, increment, Program } from "../mod.ts";
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
 * import { Program, uniformRandom } from "../mod.ts";
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
 * import { gaussianRandom, Program } from "../mod.ts";
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
 * import { fillConstant, Program, range } from "../mod.ts";
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
 * import { fillConstant, Program, shape } from "../mod.ts";
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

/** Options of the `reduce_*` builders. */
export interface ReduceOptions extends OutOptions {
  /** The dims to reduce; empty: all. @default {[]} */
  dim?: readonly number[];
  /** Keep reduced dims as size 1. @default {false} */
  keepDim?: boolean;
}

/** A builder of a `reduce_*` op. */
export type ReduceBuilder = (x: Variable, options?: ReduceOptions) => Variable;

function binaryBuilder(type: string): BinaryBuilder {
  return (x, y, options = {}) =>
    out1(
      type,
      { X: x, Y: y },
      type.startsWith("logical") ? {} : { axis: options.axis },
      options,
    );
}

function unaryBuilder(type: string): UnaryBuilder {
  return (x, options = {}) => out1(type, { X: x }, {}, options);
}

function reduceBuilder(type: string): ReduceBuilder {
  return (x, options = {}) =>
    out1(type, { X: x }, {
      dim: options.dim,
      keep_dim: options.keepDim,
      reduce_all: options.dim === undefined || options.dim.length === 0
        ? true
        : undefined,
    }, options);
}

/**
 * `elementwise_add`: Out = x + y, broadcasting like NumPy.
 *
 * @example Usage
 * ```ts
 * import { elementwiseAdd, fillConstant, Program } from "../mod.ts";
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
 * import { elementwiseSub, fillConstant, Program } from "../mod.ts";
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
 * import { elementwiseMul, fillConstant, Program } from "../mod.ts";
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
 * import { elementwiseDiv, fillConstant, Program } from "../mod.ts";
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
 * import { elementwiseMax, fillConstant, Program } from "../mod.ts";
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
 * import { elementwiseMin, fillConstant, Program } from "../mod.ts";
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
 * import { elementwisePow, fillConstant, Program } from "../mod.ts";
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
 * import { elementwiseMod, fillConstant, Program } from "../mod.ts";
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
 * import { elementwiseFloordiv, fillConstant, Program } from "../mod.ts";
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
 * import { lessThan, fillConstant, Program } from "../mod.ts";
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
 * import { lessEqual, fillConstant, Program } from "../mod.ts";
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
 * import { greaterThan, fillConstant, Program } from "../mod.ts";
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
 * import { greaterEqual, fillConstant, Program } from "../mod.ts";
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
 * import { equal, fillConstant, Program } from "../mod.ts";
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
 * import { notEqual, fillConstant, Program } from "../mod.ts";
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
 * import { logicalAnd, fillConstant, Program } from "../mod.ts";
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
 * import { logicalOr, fillConstant, Program } from "../mod.ts";
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
 * import { logicalXor, fillConstant, Program } from "../mod.ts";
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
 * import { relu, fillConstant, Program } from "../mod.ts";
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
 * import { sigmoid, fillConstant, Program } from "../mod.ts";
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
 * import { tanh, fillConstant, Program } from "../mod.ts";
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
 * import { exp, fillConstant, Program } from "../mod.ts";
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
 * import { log, fillConstant, Program } from "../mod.ts";
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
 * import { sqrt, fillConstant, Program } from "../mod.ts";
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
 * import { abs, fillConstant, Program } from "../mod.ts";
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
 * import { square, fillConstant, Program } from "../mod.ts";
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
 * import { sin, fillConstant, Program } from "../mod.ts";
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
 * import { cos, fillConstant, Program } from "../mod.ts";
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
 * import { floor, fillConstant, Program } from "../mod.ts";
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
 * import { ceil, fillConstant, Program } from "../mod.ts";
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
 * import { round, fillConstant, Program } from "../mod.ts";
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
 * import { reciprocal, fillConstant, Program } from "../mod.ts";
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
 * import { logicalNot, fillConstant, Program } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => logicalNot(fillConstant({ shape: [1] })));
 * assertEquals(y.kind, "tensor");
 * ```
 */
export const logicalNot: UnaryBuilder = unaryBuilder("logical_not");

/**
 * `mean`: Out = the mean of every element, shape [1].
 *
 * @example Usage
 * ```ts
 * import { mean, fillConstant, Program } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => mean(fillConstant({ shape: [1] })));
 * assertEquals(y.kind, "tensor");
 * ```
 */
export const mean: UnaryBuilder = unaryBuilder("mean");

/**
 * `reduce_sum`: Out = the sum of x over `dim` (every dim when none given).
 *
 * @example Usage
 * ```ts
 * import { reduceSum, fillConstant, Program } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => reduceSum(fillConstant({ shape: [2, 3] }), { dim: [1] }));
 * assertEquals(y.shape, [2]);
 * ```
 */
export const reduceSum: ReduceBuilder = reduceBuilder("reduce_sum");

/**
 * `reduce_mean`: Out = the mean of x over `dim` (every dim when none given).
 *
 * @example Usage
 * ```ts
 * import { reduceMean, fillConstant, Program } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => reduceMean(fillConstant({ shape: [2, 3] }), { dim: [1] }));
 * assertEquals(y.shape, [2]);
 * ```
 */
export const reduceMean: ReduceBuilder = reduceBuilder("reduce_mean");

/**
 * `reduce_max`: Out = the max of x over `dim` (every dim when none given).
 *
 * @example Usage
 * ```ts
 * import { reduceMax, fillConstant, Program } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => reduceMax(fillConstant({ shape: [2, 3] }), { dim: [1] }));
 * assertEquals(y.shape, [2]);
 * ```
 */
export const reduceMax: ReduceBuilder = reduceBuilder("reduce_max");

/**
 * `reduce_min`: Out = the min of x over `dim` (every dim when none given).
 *
 * @example Usage
 * ```ts
 * import { reduceMin, fillConstant, Program } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => reduceMin(fillConstant({ shape: [2, 3] }), { dim: [1] }));
 * assertEquals(y.shape, [2]);
 * ```
 */
export const reduceMin: ReduceBuilder = reduceBuilder("reduce_min");

/**
 * `reduce_prod`: Out = the product of x over `dim` (every dim when none given).
 *
 * @example Usage
 * ```ts
 * import { reduceProd, fillConstant, Program } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => reduceProd(fillConstant({ shape: [2, 3] }), { dim: [1] }));
 * assertEquals(y.shape, [2]);
 * ```
 */
export const reduceProd: ReduceBuilder = reduceBuilder("reduce_prod");

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
 * import { fillConstant, Program, scale } from "../mod.ts";
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

/**
 * `softmax` along `axis`.
 *
 * @param x The input.
 * @param options Axis (default -1), where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program, softmax } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => softmax(fillConstant({ shape: [2, 4] }))).shape, [2, 4]);
 * ```
 */
export function softmax(
  x: Variable,
  options: OutOptions & { axis?: number } = {},
): Variable {
  return out1("softmax", { X: x }, { axis: options.axis }, options);
}

/**
 * `sum`: the elementwise sum of every input.
 *
 * @param xs The inputs, of one shape.
 * @param options Where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program, sum } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const s = p.guard(() => sum([fillConstant({ shape: [2] }), fillConstant({ shape: [2] })]));
 * assertEquals(s.shape, [2]);
 * ```
 */
export function sum(
  xs: readonly Variable[],
  options: OutOptions = {},
): Variable {
  return out1("sum", { X: xs }, {}, options);
}

/** Options of `mul`. */
export interface MulOptions extends OutOptions {
  /** Dims of x that form the rows. @default {1} */
  xNumColDims?: number;
  /** Dims of y that form the rows. @default {1} */
  yNumColDims?: number;
}

/**
 * `mul`: Fluid's 2-D matrix product (the design doc's `mult`).
 *
 * @param x Left matrix.
 * @param y Right matrix.
 * @param options Flattening dims, where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, mul, Program } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() => mul(fillConstant({ shape: [2, 3] }), fillConstant({ shape: [3, 4] })));
 * assertEquals(y.shape, [2, 4]);
 * ```
 */
export function mul(
  x: Variable,
  y: Variable,
  options: MulOptions = {},
): Variable {
  return out1("mul", { X: x, Y: y }, {
    x_num_col_dims: options.xNumColDims,
    y_num_col_dims: options.yNumColDims,
  }, options);
}

/** Options of `matmul`. */
export interface MatmulOptions extends OutOptions {
  /** Transpose x's last two dims. @default {false} */
  transposeX?: boolean;
  /** Transpose y's last two dims. @default {false} */
  transposeY?: boolean;
  /** Scales the product. @default {1} */
  alpha?: number;
}

/**
 * `matmul`: batched matrix product with broadcast batch dims.
 *
 * @param x Left.
 * @param y Right.
 * @param options Transposes, alpha, where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, matmul, Program } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const y = p.guard(() =>
 *   matmul(fillConstant({ shape: [5, 2, 3] }), fillConstant({ shape: [4, 3] }), { transposeY: true })
 * );
 * assertEquals(y.shape, [5, 2, 4]);
 * ```
 */
export function matmul(
  x: Variable,
  y: Variable,
  options: MatmulOptions = {},
): Variable {
  return out1("matmul", { X: x, Y: y }, {
    transpose_X: options.transposeX,
    transpose_Y: options.transposeY,
    alpha: options.alpha,
  }, options);
}

// ---- Shapes and arrays ----------------------------------------------------

/**
 * `reshape`: `x` with a new shape; -1 infers a dim, 0 copies x's.
 *
 * @param x The input.
 * @param newShape The shape.
 * @param options Where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program, reshape } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => reshape(fillConstant({ shape: [2, 3] }), [3, -1])).shape, [3, 2]);
 * ```
 */
export function reshape(
  x: Variable,
  newShape: readonly number[],
  options: OutOptions = {},
): Variable {
  return out1("reshape", { X: x }, { shape: newShape }, options);
}

/**
 * `transpose`: `x` with its dims permuted.
 *
 * @param x The input.
 * @param perm The permutation.
 * @param options Where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program, transpose } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => transpose(fillConstant({ shape: [2, 3] }), [1, 0])).shape, [3, 2]);
 * ```
 */
export function transpose(
  x: Variable,
  perm: readonly number[],
  options: OutOptions = {},
): Variable {
  return out1("transpose", { X: x }, { axis: perm }, options);
}

/**
 * `concat`: the inputs joined along `axis`.
 *
 * @param xs The inputs.
 * @param options Axis (default 0), where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { concat, fillConstant, Program } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const c = p.guard(() => concat([fillConstant({ shape: [2] }), fillConstant({ shape: [3] })]));
 * assertEquals(c.dtype, "float32");
 * ```
 */
export function concat(
  xs: readonly Variable[],
  options: OutOptions & { axis?: number } = {},
): Variable {
  return out1("concat", { X: xs }, { axis: options.axis }, options);
}

/** Options of `split`: exactly one of `sections` and `num`. */
export interface SplitOptions {
  /** Sizes of the parts (one may be -1). */
  sections?: readonly number[];
  /** Number of equal parts. */
  num?: number;
  /** The dim to cut. @default {0} */
  axis?: number;
}

/**
 * `split`: `x` cut into parts along `axis`.
 *
 * @param x The input.
 * @param options Sections or num, axis.
 * @returns One variable per part.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program, split } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => split(fillConstant({ shape: [4] }), { num: 2 })).length, 2);
 * ```
 */
export function split(x: Variable, options: SplitOptions): Variable[] {
  const count = options.num ?? options.sections?.length ?? 0;
  const block = defaultProgram().currentBlock;
  const outs = Array.from(
    { length: count },
    () =>
      block.createVar({
        name: block.program.uniqueName("split.out"),
        dtype: x.dtype,
      }),
  );
  appendLayer("split", { X: x }, {
    axis: options.axis,
    sections: options.sections,
    num: options.num,
  }, { Out: outs });
  return outs;
}

/** Options of `slice`. */
export interface SliceOptions extends OutOptions {
  /** The dims sliced. */
  axes: readonly number[];
  /** Start per axis (negative counts from the end). */
  starts: readonly number[];
  /** End per axis, exclusive. */
  ends: readonly number[];
}

/**
 * `slice`: `x[starts:ends]` along `axes`.
 *
 * @param x The input.
 * @param options Axes, starts, ends.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program, slice } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const s = p.guard(() => slice(fillConstant({ shape: [4] }), { axes: [0], starts: [1], ends: [3] }));
 * assertEquals(s.dtype, "float32");
 * ```
 */
export function slice(x: Variable, options: SliceOptions): Variable {
  return out1("slice", { Input: x }, {
    axes: options.axes,
    starts: options.starts,
    ends: options.ends,
  }, options);
}

/**
 * `gather`: x's entries at `index` along `axis`.
 *
 * @param x The input.
 * @param index Integer indices.
 * @param options Axis (default 0), where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { assignValue, fillConstant, gather, Program } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const g = p.guard(() => gather(fillConstant({ shape: [4] }), assignValue([0, 2], { dtype: "int32" })));
 * assertEquals(g.dtype, "float32");
 * ```
 */
export function gather(
  x: Variable,
  index: Variable,
  options: OutOptions & { axis?: number } = {},
): Variable {
  return out1(
    "gather",
    { X: x, Index: index },
    { axis: options.axis },
    options,
  );
}

/**
 * `create_array`: a new empty tensor array.
 *
 * @param options The declared element type, where to write.
 * @returns The array variable.
 *
 * @example Usage
 * ```ts
 * import { createArray, Program } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => createArray()).kind, "array");
 * ```
 */
export function createArray(
  options: OutOptions & { dtype?: DType } = {},
): Variable {
  return out1("create_array", {}, {
    dtype: options.dtype && codeOfDType(options.dtype),
  }, options);
}

/**
 * `write_to_array`: `array[i] = x`, in place.
 *
 * @param x The tensor.
 * @param i The index (one integer).
 * @param array The array; a new one when absent.
 * @returns The array variable.
 *
 * @example Usage
 * ```ts
 * import { arrayWrite, fillConstant, Program } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const a = p.guard(() =>
 *   arrayWrite(fillConstant({ shape: [2] }), fillConstant({ shape: [1], dtype: "int64" }))
 * );
 * assertEquals(a.kind, "array");
 * ```
 */
export function arrayWrite(
  x: Variable,
  i: Variable,
  array?: Variable,
): Variable {
  return out1("write_to_array", { X: x, I: i }, {}, {
    out: array ?? createArray(),
  });
}

/**
 * `read_from_array`: `array[i]`.
 *
 * @param array The array.
 * @param i The index.
 * @param options Where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { arrayRead, createArray, fillConstant, Program } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const t = p.guard(() => arrayRead(createArray(), fillConstant({ shape: [1], dtype: "int64" })));
 * assertEquals(t.kind, "tensor");
 * ```
 */
export function arrayRead(
  array: Variable,
  i: Variable,
  options: OutOptions = {},
): Variable {
  return out1("read_from_array", { X: array, I: i }, {}, options);
}

/**
 * `array_length`: the number of slots of `array` (int64).
 *
 * @param array The array.
 * @param options Where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { arrayLength, createArray, Program } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => arrayLength(createArray())).dtype, "int64");
 * ```
 */
export function arrayLength(
  array: Variable,
  options: OutOptions = {},
): Variable {
  return out1("array_length", { X: array }, {}, options);
}

/**
 * `split_to_array`: `x` cut along `axis` into `num` near-equal chunks.
 *
 * @param x The input.
 * @param num How many chunks (one integer).
 * @param options Axis (default 0), where to write.
 * @returns The array variable.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program, splitToArray } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * const a = p.guard(() =>
 *   splitToArray(fillConstant({ shape: [5, 2] }), fillConstant({ shape: [1], dtype: "int32", value: 2 }))
 * );
 * assertEquals(a.kind, "array");
 * ```
 */
export function splitToArray(
  x: Variable,
  num: Variable,
  options: OutOptions & { axis?: number } = {},
): Variable {
  return out1(
    "split_to_array",
    { X: x, Num: num },
    { axis: options.axis },
    options,
  );
}

/**
 * `array_to_tensor`: the array's tensors concatenated (or stacked).
 *
 * @param array The array.
 * @param options Axis (default 0), `useStack`, where to write.
 * @returns The output variable.
 *
 * @example Usage
 * ```ts
 * import { arrayToTensor, createArray, Program } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => arrayToTensor(createArray(), { useStack: true })).kind, "tensor");
 * ```
 */
export function arrayToTensor(
  array: Variable,
  options: OutOptions & { axis?: number; useStack?: boolean } = {},
): Variable {
  return appendLayer("array_to_tensor", { X: array }, {
    axis: options.axis,
    use_stack: options.useStack,
  }, { Out: options.out }).Out[0];
}

/**
 * `print`: writes `<message> <value>` when the op runs.
 *
 * @param x The variable to show.
 * @param options The message.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, print, Program } from "../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => print(fillConstant({ shape: [1] }), { message: "x" }));
 * assertEquals(p.desc.blocks[0].ops[1].type, "print");
 * ```
 */
export function print(x: Variable, options: { message?: string } = {}): void {
  defaultProgram().currentBlock.appendOp({
    type: "print",
    inputs: { In: x },
    attrs: { message: options.message },
  });
}
