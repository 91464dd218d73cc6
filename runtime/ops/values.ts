/**
 * Ops that make values: constants, copies, casts, counters, random tensors,
 * ranges and shapes.
 *
 * @module
 */
import { type CounterKey, keyFromSeed } from "../../kernels/counter_random.ts";
import type { DType } from "../../kernels/dtype.ts";
import { Tensor } from "../../kernels/tensor.ts";
import type { Random } from "../../scheduler/random.ts";
import { AttrError } from "../core/attr_read.ts";
import { dtypeOfCode } from "../core/dtype_codes.ts";
import {
  attr,
  type AttrSpec,
  type AttrValues,
  defineOp,
  type OpDef,
  slot,
} from "../core/op_def.ts";
import type { OpRun, PrepareContext } from "../core/prepare_context.ts";
import { unaryKernelOp } from "./kernel_op.ts";
import { InPlaceScalar } from "./in_place_scalar.ts";
import { scalarArithmetic } from "./scalar_path.ts";
import { sameAs } from "./shape_rules.ts";

/**
 * The dtype a `dtype` attribute names; throws for a number that is not an
 * element type.
 *
 * @param code A `VarType.Type` number.
 * @returns The dtype.
 *
 * @example Usage
 * ```ts
 * import { dtypeAttr } from "./values.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(dtypeAttr(3), "int64");
 * ```
 */
export function dtypeAttr(code: number): DType {
  const dtype = dtypeOfCode(code);
  if (dtype === undefined) {
    throw new RangeError(`dtype ${code} is not a tensor element type`);
  }
  return dtype;
}

/**
 * Checks that attribute `name` holds a tensor element type, for an op's
 * `check`; throws an `AttrError` naming the attribute.
 *
 * @param name The attribute.
 * @param code Its value, a `VarType.Type` number.
 *
 * @example Usage
 * ```ts
 * import { checkDTypeAttr } from "./values.ts";
 * import { assertThrows } from "@std/assert";
 *
 * assertThrows(() => checkDTypeAttr("dtype", 16), Error, 'attribute "dtype"');
 * ```
 */
export function checkDTypeAttr(name: string, code: number): void {
  if (dtypeOfCode(code) === undefined) {
    throw new AttrError(name, `dtype ${code} is not a tensor element type`);
  }
}

/** Parses `str_value`/`value` into an element of `dtype`, exact for int64. */
function constantOf(
  dtype: DType,
  value: number,
  str: string,
): number | bigint | boolean {
  if (dtype === "int64") {
    if (str === "") {
      if (!Number.isFinite(value)) {
        throw new AttrError(
          "value",
          `${value} is not a finite number for int64`,
        );
      }
      return BigInt(Math.trunc(value));
    }
    if (!/^\s*[-+]?\d+\s*$/.test(str)) {
      throw new RangeError(`"${str}" is not an integer`);
    }
    const v = BigInt(str.trim());
    if (v !== BigInt.asIntN(64, v)) {
      throw new RangeError(`"${str}" does not fit int64`);
    }
    return v;
  }
  const v = str !== "" ? Number(str) : value;
  if (Number.isNaN(v) && str !== "" && !/^\s*[-+]?nan\s*$/i.test(str)) {
    throw new RangeError(`"${str}" is not a number`);
  }
  return dtype === "bool" ? v !== 0 : v;
}

const fillConstant = defineOp({
  type: "fill_constant",
  summary: "Out = a tensor of `shape` filled with `value`",
  inputs: {},
  outputs: { Out: slot.tensor() },
  attrs: {
    shape: attr.longs([]),
    dtype: attr.int(5),
    value: attr.float(0),
    str_value: attr.string(""),
  },
  kernels: ["fill"],
  check(a) {
    checkDTypeAttr("dtype", a.dtype);
    const negative = a.shape.findIndex((d) => d < 0n);
    if (negative >= 0) {
      throw new AttrError(
        "shape",
        `[${a.shape.join(", ")}]: dim ${negative} is negative`,
      );
    }
    try {
      constantOf(dtypeAttr(a.dtype), a.value, a.str_value);
    } catch (e) {
      if (e instanceof AttrError) throw e;
      throw new AttrError("str_value", (e as Error).message);
    }
  },
  infer: ({ attrs }) => ({
    Out: { dtype: dtypeAttr(attrs.dtype), shape: attrs.shape.map(Number) },
  }),
  prepare(ctx) {
    const { shape, dtype, value, str_value } = ctx.attrs;
    const d = dtypeAttr(dtype);
    const out = ctx.output("Out");
    const dims = shape.map(Number);
    const v = constantOf(d, value, str_value);
    return (scope, thread) => {
      out.write(scope, thread.run.device.kernels.fill(dims, d, v));
    };
  },
});

const assignValue = defineOp({
  type: "assign_value",
  summary: "Out = a tensor of `shape` holding the values given",
  inputs: {},
  outputs: { Out: slot.tensor() },
  attrs: {
    shape: attr.ints([]),
    dtype: attr.int(5),
    fp32_values: attr.floats(),
    int32_values: attr.ints(),
    int64_values: attr.longs(),
    bool_values: attr.bools(),
  },
  check(a) {
    checkDTypeAttr("dtype", a.dtype);
    const given = [a.fp32_values, a.int32_values, a.int64_values, a.bool_values]
      .filter((v) => v !== undefined && v.length > 0);
    if (given.length > 1) {
      throw new RangeError("more than one of *_values given");
    }
    const n = a.shape.reduce((p, d) => p * d, 1);
    const len = given[0]?.length ?? 0;
    if (len !== n) {
      throw new RangeError(
        `shape [${a.shape.join(", ")}] needs ${n} values, got ${len}`,
      );
    }
  },
  infer: ({ attrs }) => ({
    Out: { dtype: dtypeAttr(attrs.dtype), shape: attrs.shape },
  }),
  prepare(ctx) {
    const a = ctx.attrs;
    const values =
      [a.fp32_values, a.int32_values, a.int64_values, a.bool_values]
        .find((v) => v !== undefined && v.length > 0) ?? [];
    const t = Tensor.fromArray(
      values as number[] | bigint[] | boolean[],
      dtypeAttr(a.dtype),
      a.shape,
    );
    const out = ctx.output("Out");
    return (scope) => out.write(scope, t);
  },
});

const assign = defineOp({
  type: "assign",
  summary: "Out = X: binds Out to X's value, of any kind",
  inputs: { X: slot.any() },
  outputs: { Out: slot.any() },
  attrs: {},
  infer: ({ inputs }) => ({ Out: sameAs(inputs("X")[0]) }),
  rows: "elementwise",
  prepare(ctx) {
    const x = ctx.input("X");
    const out = ctx.output("Out");
    return (scope) => {
      const v = x.read(scope);
      if (v === undefined) x.tensor(scope); // panics: read before written
      out.write(scope, v);
    };
  },
});

const fillZerosLike = unaryKernelOp({
  type: "fill_zeros_like",
  summary: "Out = zeros shaped and typed like X",
  attrs: {},
  compute: (device, x) => device.kernels.fill(x.shape, x.dtype, 0),
  kernels: ["fill"],
  infer: sameAs,
});

const cast = unaryKernelOp({
  type: "cast",
  summary: "Out = X converted to out_dtype",
  attrs: { out_dtype: attr.required("int"), in_dtype: attr.int() },
  compute: (device, x, a) => device.kernels.cast(x, dtypeAttr(a.out_dtype)),
  kernels: ["cast"],
  infer: (x, a) => ({ ...x, dtype: dtypeAttr(a.out_dtype) }),
  rows: "elementwise",
});

const addScalars = scalarArithmetic("add")!;

const increment = defineOp({
  type: "increment",
  summary: "Out = X + step, in X's dtype",
  inputs: { X: slot.tensor({ transient: true }) },
  outputs: { Out: slot.tensor() },
  attrs: { step: attr.float(1) },
  kernels: ["cast", { kernel: "binary", kinds: ["add"] }],
  infer: ({ inputs }) => ({ Out: sameAs(inputs("X")[0]) }),
  prepare(ctx) {
    const x = ctx.input("X");
    const out = ctx.output("Out");
    const step = ctx.attrs.step;
    // While Out holds the tensor the site made for it, it is Out's alone
    // (Out is private) and takes the next result.
    const site = ctx.privateOutput("Out") ? InPlaceScalar.of("add") : undefined;
    // A rank-0 step broadcasts to any shape without changing it.
    let stepTensor = Tensor.fromArray([step], "float32", []);
    return (scope, thread) => {
      const t = x.tensor(scope);
      const device = thread.run.device;
      if (stepTensor.dtype !== t.dtype) {
        stepTensor = device.kernels.cast(
          Tensor.fromArray([step], "float64", []),
          t.dtype,
        );
      }
      const home = out.home(scope);
      const held = home.values[out.slot];
      const made = site === undefined
        ? addScalars(device, t, stepTensor)
        : site.apply(device, t, stepTensor, held);
      if (made === undefined) {
        home.values[out.slot] = device.kernels.binary("add", t, stepTensor, -1);
      } else if (made !== held) {
        home.values[out.slot] = made;
      }
    };
  },
});

/** The attributes both random ops have besides their two bounds. */
type RandomAttrs = {
  readonly shape: AttrSpec<"longs">;
  readonly dtype: AttrSpec<"int">;
  readonly seed: AttrSpec<"int">;
};

function randomOutput(a: AttrValues<RandomAttrs>) {
  return { Out: { dtype: dtypeAttr(a.dtype), shape: a.shape.map(Number) } };
}

function randomRun(
  ctx: PrepareContext<RandomAttrs>,
  lo: number,
  hi: number,
  draw: "uniformRandom" | "gaussianRandom",
): OpRun {
  const dims = ctx.attrs.shape.map(Number);
  const dtype = dtypeAttr(ctx.attrs.dtype);
  // A fixed seed is the generator's key, so the op draws the same values
  // every time it runs (as Paddle's kernels do), whatever the rest of the
  // program or --seed; seed 0 draws a fresh key from the running thread's
  // own stream. Either way the values are a function of the key and the
  // element's position, the same on every device.
  const seed = ctx.attrs.seed;
  const fixed = seed === 0 ? undefined : keyFromSeed(seed);
  const out = ctx.output("Out");
  return (scope, thread) => {
    const key = fixed ?? drawKey(thread.thread.random);
    out.write(scope, thread.run.device.kernels[draw](dims, dtype, lo, hi, key));
  };
}

// A random fill with seed 0 draws its key from the run's stream; with a
// seed its numbers are fixed by the attributes.
function drawsWithoutSeed(a: { seed: number }): string | undefined {
  return a.seed === 0 ? "draws from the run's random stream" : undefined;
}

// A fresh generator key: two words of a thread's stream.
function drawKey(random: Random): CounterKey {
  return [random.nextUint32(), random.nextUint32()];
}

const uniformRandom = defineOp({
  type: "uniform_random",
  summary: "Out = uniform in [min, max)",
  inputs: {},
  outputs: { Out: slot.tensor() },
  attrs: {
    shape: attr.longs([]),
    dtype: attr.int(5),
    min: attr.float(-1),
    max: attr.float(1),
    seed: attr.int(0),
  },
  impure: drawsWithoutSeed,
  check: (a) => checkDTypeAttr("dtype", a.dtype),
  kernels: ["uniformRandom"],
  infer: ({ attrs }) => randomOutput(attrs),
  prepare: (ctx) =>
    randomRun(ctx, ctx.attrs.min, ctx.attrs.max, "uniformRandom"),
});

const gaussianRandom = defineOp({
  type: "gaussian_random",
  summary: "Out = normal(mean, std)",
  inputs: {},
  outputs: { Out: slot.tensor() },
  attrs: {
    shape: attr.longs([]),
    dtype: attr.int(5),
    mean: attr.float(0),
    std: attr.float(1),
    seed: attr.int(0),
  },
  impure: drawsWithoutSeed,
  check: (a) => checkDTypeAttr("dtype", a.dtype),
  kernels: ["gaussianRandom"],
  infer: ({ attrs }) => randomOutput(attrs),
  prepare: (ctx) =>
    randomRun(ctx, ctx.attrs.mean, ctx.attrs.std, "gaussianRandom"),
});

const range = defineOp({
  type: "range",
  summary: "Out = [Start, Start+Step, ...) up to End",
  inputs: { Start: slot.tensor(), End: slot.tensor(), Step: slot.tensor() },
  outputs: { Out: slot.tensor() },
  attrs: {},
  kernels: ["range"],
  infer: ({ inputs }) => ({
    Out: { dtype: inputs("Start")[0]?.dtype, shape: [-1] },
  }),
  prepare(ctx) {
    const [start, end, step] = ["Start", "End", "Step"].map(ctx.input);
    const out = ctx.output("Out");
    return (scope, thread) => {
      const s = start.tensor(scope);
      // int64 bounds stay bigints, exact beyond 2^53.
      const scalar = (t: Tensor) => {
        const v = t.item(0);
        return typeof v === "bigint" ? v : Number(v);
      };
      out.write(
        scope,
        thread.run.device.kernels.range(
          scalar(s),
          scalar(end.tensor(scope)),
          scalar(step.tensor(scope)),
          s.dtype,
        ),
      );
    };
  },
});

const shape = defineOp({
  type: "shape",
  summary: "Out = the shape of Input (int32)",
  inputs: { Input: slot.tensor() },
  outputs: { Out: slot.tensor() },
  attrs: {},
  infer: ({ inputs }) => ({
    Out: { dtype: "int32", shape: [inputs("Input")[0]?.shape?.length ?? -1] },
  }),
  prepare(ctx) {
    const input = ctx.input("Input");
    const out = ctx.output("Out");
    return (scope) => {
      const dims = input.tensor(scope).shape;
      out.write(scope, Tensor.fromArray([...dims], "int32", [dims.length]));
    };
  },
});

/**
 * Every op that makes values.
 *
 * @example Usage
 * ```ts
 * import { VALUE_OPS } from "./values.ts";
 * import { assert } from "@std/assert";
 *
 * assert(VALUE_OPS.some((def) => def.type === "fill_constant"));
 * ```
 */
export const VALUE_OPS: readonly OpDef[] = [
  fillConstant,
  assignValue,
  assign,
  fillZerosLike,
  cast,
  increment,
  uniformRandom,
  gaussianRandom,
  range,
  shape,
];
