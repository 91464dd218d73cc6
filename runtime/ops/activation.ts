/**
 * Paddle's activations and elementwise math beyond Fluid's: `gelu`,
 * `swish`, `hard_swish`, `hard_sigmoid`, `leaky_relu`, `relu6`, `elu`,
 * `thresholded_relu`, `clip`, `pow`, `log_softmax` and `dropout`, with the slots, attributes
 * and defaults of Paddle 2.x's OpMakers. The parameterized activations are
 * one kernel (`activation`) whose parameters are the ops' attributes of
 * the same names (`ACTIVATION_PARAMS`).
 *
 * @module
 */
import { keyFromSeed } from "../../kernels/counter_random.ts";
import type { Device } from "../../kernels/device.ts";
import {
  ACTIVATION_PARAMS,
  type ActivationKind,
} from "../../kernels/kernel_kinds.ts";
import { isFloatDType } from "../../kernels/dtype.ts";
import { Tensor } from "../../kernels/tensor.ts";
import { AttrError } from "../core/attr_read.ts";
import {
  attr,
  type AttrSchema,
  type AttrSpec,
  type AttrValues,
  defineOp,
  type OpDef,
  slot,
} from "../core/op_def.ts";
import { unaryKernelOp } from "./kernel_op.ts";
import { sameAs } from "./shape_rules.ts";

// An op that is one activation kind, its parameters read from attributes
// of their own names (so `attrs` must name every one of them).
function parameterized<const A extends Record<string, AttrSpec<"float">>>(
  kind: ActivationKind,
  summary: string,
  attrs: A,
): OpDef {
  const names = ACTIVATION_PARAMS[kind];
  return unaryKernelOp({
    type: kind,
    summary,
    attrs,
    compute: (device, x, a) =>
      device.kernels.activation(
        kind,
        x,
        names.map((n) => (a as Record<string, number>)[n]),
      ),
    kernels: [{ kernel: "activation", kinds: [kind] }],
    infer: sameAs,
    rows: "elementwise",
  });
}

const gelu = unaryKernelOp({
  type: "gelu",
  kernels: [{ kernel: "activation", kinds: ["gelu", "gelu_tanh"] }],
  summary:
    "Out = 0.5·X·(1 + erf(X/√2)), or with approximate 0.5·X·(1 + tanh(√(2/π)(X + 0.044715X³))); gelu(-inf) is NaN, as in Paddle",
  attrs: { approximate: attr.bool(false) },
  compute: (device, x, a) =>
    device.kernels.activation(a.approximate ? "gelu_tanh" : "gelu", x, []),
  infer: sameAs,
  rows: "elementwise",
});

// Paddle's ClipOpMaker: min and max have no defaults; the Min and Max
// tensors (shape [1]) take precedence over them.
const clip = defineOp({
  type: "clip",
  kernels: [{ kernel: "activation", kinds: ["clip"] }],
  summary:
    "Out = X clamped to [min, max] (Min/Max tensors take precedence); NaN passes through",
  inputs: {
    X: slot.tensor(),
    Min: slot.tensor({ optional: true }),
    Max: slot.tensor({ optional: true }),
  },
  outputs: { Out: slot.tensor() },
  attrs: { min: attr.required("float"), max: attr.required("float") },
  check(a, ctx) {
    if (!ctx.hasInput("Min") && !ctx.hasInput("Max") && a.min > a.max) {
      throw new AttrError("max", `${a.max} is below min ${a.min}`);
    }
  },
  infer: ({ inputs }) => ({ Out: sameAs(inputs("X")[0]) }),
  rows: "elementwise",
  prepare(ctx) {
    const x = ctx.input("X");
    const minTensor = ctx.optionalInput("Min");
    const maxTensor = ctx.optionalInput("Max");
    const out = ctx.output("Out");
    const { min, max } = ctx.attrs;
    return (scope, thread) => {
      const lo = minTensor ? scalarOf(minTensor.tensor(scope), "Min") : min;
      const hi = maxTensor ? scalarOf(maxTensor.tensor(scope), "Max") : max;
      if (lo > hi) {
        throw new RangeError(`clip: min ${lo} is above max ${hi}`);
      }
      out.write(
        scope,
        thread.run.device.kernels.activation("clip", x.tensor(scope), [lo, hi]),
      );
    };
  },
});

// The one value of a [1] tensor that stands for an attribute.
function scalarOf(t: Tensor, slotName: string): number {
  if (t.size !== 1) {
    throw new RangeError(
      `input "${slotName}" has ${t.size} elements; it must hold one`,
    );
  }
  return Number(t.item(0));
}

// One rank-0 float32 tensor per factor, for every pow op and every run:
// the GPU device keeps an upload with the tensor's elements, and a program
// is prepared anew for each run. Programs use few distinct factors.
const FACTORS = new Map<number, Tensor>();

function float32Factor(value: number): Tensor {
  let t = FACTORS.get(value);
  if (t === undefined) {
    FACTORS.set(value, t = Tensor.fromArray([value], "float32", []));
  }
  return t;
}

// Paddle's PowOpMaker: factor 1; FactorTensor ([1], float32) takes
// precedence. X ** factor in X's dtype (an integer X truncates the factor).
const pow = defineOp({
  type: "pow",
  kernels: ["cast", { kernel: "binary", kinds: ["pow"] }],
  summary:
    "Out = X ** factor in X's dtype (FactorTensor, shape [1], takes precedence)",
  inputs: { X: slot.tensor(), FactorTensor: slot.tensor({ optional: true }) },
  outputs: { Out: slot.tensor() },
  attrs: { factor: attr.float(1) },
  infer: ({ inputs }) => ({ Out: sameAs(inputs("X")[0]) }),
  rows: "elementwise",
  prepare(ctx) {
    const x = ctx.input("X");
    const factorTensor = ctx.optionalInput("FactorTensor");
    const out = ctx.output("Out");
    // The factor as a rank-0 tensor of X's dtype, made once per dtype and,
    // in float32, shared by every run (so a GPU device uploads it once).
    let factor = float32Factor(ctx.attrs.factor);
    return (scope, thread) => {
      const t = x.tensor(scope);
      const kernels = thread.run.device.kernels;
      let f: Tensor;
      if (factorTensor !== undefined) {
        const value = scalarOf(factorTensor.tensor(scope), "FactorTensor");
        f = kernels.cast(Tensor.fromArray([value], "float32", []), t.dtype);
      } else {
        if (factor.dtype !== t.dtype) factor = kernels.cast(factor, t.dtype);
        f = factor;
      }
      out.write(scope, kernels.binary("pow", t, f, -1));
    };
  },
});

// log(softmax(X)) without its underflow: X - max - log Σ e^(X - max).
// Every step takes the dtypes the first one takes on the GPU (float32,
// float16), so no intermediate result is read back inside the op (the
// block runner reads back only an op's inputs, then runs it again).
function logSoftmax(device: Device, x: Tensor, axis: number): Tensor {
  const k = device.kernels;
  const keep = { dims: [axis], keepDim: true };
  const shifted = k.binary("sub", x, k.reduce("max", x, keep), -1);
  const logSum = k.unary("log", k.reduce("sum", k.unary("exp", shifted), keep));
  return k.binary("sub", shifted, logSum, -1);
}

const DROPOUT_IMPLEMENTATIONS = ["downgrade_in_infer", "upscale_in_train"];

type DropoutAttrs = {
  readonly dropout_prob: AttrSpec<"float">;
  readonly is_test: AttrSpec<"bool">;
  readonly fix_seed: AttrSpec<"bool">;
  readonly seed: AttrSpec<"int">;
  readonly dropout_implementation: AttrSpec<"string">;
};

// Paddle's DropoutOpMaker. At inference (is_test) downgrade_in_infer
// scales by 1 - p and upscale_in_train passes X through; Mask is left
// unwritten there, as Paddle leaves it. In training each element is kept
// when its uniform draw in [0, 1) is at least p (Paddle's test), and kept
// ones are divided by 1 - p under upscale_in_train; Mask (uint8) says
// which. The draws come from the Seed tensor, else `seed` with fix_seed,
// else the running thread's stream.
const dropout = defineOp({
  type: "dropout",
  kernels: [
    "scale",
    // training only: a mask drawn and applied
    "uniformRandom",
    { kernel: "compare", kinds: ["greater_equal"] },
    { kernel: "binary", kinds: ["mul", "div"] },
    "cast",
    "fill",
  ],
  summary:
    "Out = X with elements dropped at dropout_prob in training; at inference (is_test) X·(1-p) for downgrade_in_infer, X for upscale_in_train",
  inputs: { X: slot.tensor(), Seed: slot.tensor({ optional: true }) },
  outputs: { Out: slot.tensor(), Mask: slot.tensor({ optional: true }) },
  attrs: {
    dropout_prob: attr.float(0.5),
    is_test: attr.bool(false),
    fix_seed: attr.bool(false),
    seed: attr.int(0),
    dropout_implementation: attr.string("downgrade_in_infer"),
  },
  // A Seed tensor makes the draws a function of the inputs too, but only
  // the attributes are known here: the judgement errs on the safe side.
  impure: (a) =>
    a.is_test || a.fix_seed ? undefined : "draws from the run's random stream",
  check(a) {
    if (!DROPOUT_IMPLEMENTATIONS.includes(a.dropout_implementation)) {
      throw new AttrError(
        "dropout_implementation",
        `"${a.dropout_implementation}" is not one of ${
          DROPOUT_IMPLEMENTATIONS.map((s) => `"${s}"`).join(", ")
        }`,
      );
    }
    if (!(a.dropout_prob >= 0 && a.dropout_prob <= 1)) {
      throw new AttrError("dropout_prob", `${a.dropout_prob} is not in [0, 1]`);
    }
  },
  infer: ({ inputs }) => {
    const x = inputs("X")[0];
    return { Out: sameAs(x), Mask: { dtype: "uint8", shape: x?.shape } };
  },
  rows: "elementwise",
  prepare(ctx) {
    const x = ctx.input("X");
    const out = ctx.output("Out");
    const a = ctx.attrs;
    const upscale = a.dropout_implementation === "upscale_in_train";
    if (a.is_test) {
      return (scope, thread) => {
        const t = x.tensor(scope);
        out.write(
          scope,
          upscale
            ? t
            : thread.run.device.kernels.scale(t, 1 - a.dropout_prob, 0, true),
        );
      };
    }
    const seedTensor = ctx.optionalInput("Seed");
    const mask = ctx.optionalOutput("Mask");
    return (scope, thread) => {
      const seed = seedTensor
        ? scalarOf(seedTensor.tensor(scope), "Seed")
        : a.fix_seed
        ? a.seed
        : undefined;
      const key = seed === undefined
        ? [thread.thread.random.nextUint32(), thread.thread.random.nextUint32()]
        : keyFromSeed(seed);
      const [y, keep] = train(
        thread.run.device,
        x.tensor(scope),
        a,
        key as [number, number],
      );
      out.write(scope, y);
      mask?.write(scope, thread.run.device.kernels.cast(keep, "uint8"));
    };
  },
});

// One training step of dropout: Out and the bool tensor of kept elements.
function train(
  device: Device,
  x: Tensor,
  a: AttrValues<DropoutAttrs>,
  key: [number, number],
): [Tensor, Tensor] {
  const k = device.kernels;
  const p = a.dropout_prob;
  // The draws and the mask are float64 and bool, which stay on the host:
  // a device that computed them would have to read the mask back in the
  // middle of this op (block_runner.ts reads back only an op's inputs).
  const draws = k.uniformRandom(x.shape, "float64", 0, 1, key);
  const keep = k.compare(
    "greater_equal",
    draws,
    Tensor.fromArray([p], "float64", []),
    -1,
  );
  const dtype = isFloatDType(x.dtype) ? x.dtype : "float32";
  let y = k.binary("mul", x, k.cast(keep, x.dtype), -1);
  if (a.dropout_implementation === "upscale_in_train") {
    y = p === 1 ? k.fill(x.shape, x.dtype, 0) : k.binary(
      "div",
      y,
      k.cast(Tensor.fromArray([1 - p], dtype, []), y.dtype),
      -1,
    );
  }
  return [y, keep];
}

/**
 * Every activation and math op of this group.
 *
 * @example Usage
 * ```ts
 * import { ACTIVATION_OPS } from "./activation.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gelu = ACTIVATION_OPS.find((def) => def.type === "gelu")!;
 * assertEquals(gelu.attrs.approximate.default, false);
 * ```
 */
export const ACTIVATION_OPS: readonly OpDef[] = [
  gelu,
  parameterized("swish", "Out = X·sigmoid(beta·X)", { beta: attr.float(1) }),
  parameterized(
    "hard_swish",
    "Out = X·min(max(X + offset, 0), threshold) / scale",
    {
      threshold: attr.float(6),
      scale: attr.float(6),
      offset: attr.float(3),
    },
  ),
  parameterized(
    "hard_sigmoid",
    "Out = max(0, min(1, slope·X + offset))",
    { slope: attr.float(0.2), offset: attr.float(0.5) },
  ),
  parameterized("leaky_relu", "Out = X if X > 0, else alpha·X", {
    alpha: attr.float(0.02),
  }),
  parameterized("relu6", "Out = min(max(X, 0), threshold)", {
    threshold: attr.float(6),
  }),
  parameterized("elu", "Out = X if X >= 0, else alpha·(e^X - 1)", {
    alpha: attr.float(1),
  }),
  parameterized(
    "thresholded_relu",
    "Out = X if X > threshold, else value (Paddle 3's value; 0 before)",
    { threshold: attr.float(1), value: attr.float(0) },
  ),
  clip,
  pow,
  unaryKernelOp({
    type: "log_softmax",
    kernels: [
      { kernel: "binary", kinds: ["sub"] },
      { kernel: "reduce", kinds: ["max", "sum"] },
      { kernel: "unary", kinds: ["exp", "log"] },
    ],
    summary: "Out = log(softmax(X)) along axis, as X - max - log Σ e^(X - max)",
    attrs: { axis: attr.int(-1) },
    compute: (device, x, a) => logSoftmax(device, x, a.axis),
    infer: sameAs,
    rows: "last_axis",
  }),
  dropout as OpDef<AttrSchema>,
];
