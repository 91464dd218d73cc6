/**
 * Normalization at inference, with Paddle's slots, attributes and
 * defaults: `batch_norm` (`BatchNormOpMaker`), `layer_norm`,
 * `instance_norm` and `group_norm`.
 *
 * `batch_norm` runs in Paddle's inference mode only: `is_test` (without
 * `trainable_statistics`) or `use_global_stats`, read as BOOLEAN or, as
 * Paddle 1.x stored them, INT 0/1. It normalizes by the persistable
 * `Mean` and `Variance`, and binds `MeanOut` and `VarianceOut`, which
 * Paddle names after those same variables, to them unchanged. Paddle's
 * inference kernel leaves `SavedMean` and `SavedVariance` unset; here they
 * are zeros, one per channel, and `ReserveSpace` (cuDNN's) is empty.
 * Training mode, which would compute and fold batch statistics, is
 * refused when the program is checked.
 *
 * @module
 */
import { Tensor } from "../../kernels/tensor.ts";
import { AttrError } from "../core/attr_read.ts";
import {
  attr,
  type AttrValues,
  defineOp,
  type InferredType,
  type OpDef,
  slot,
  type VarInfo,
} from "../core/op_def.ts";
import type { VarRef } from "../core/var_ref.ts";
import type { Scope } from "../core/scope.ts";
import { channelLast, checkLayout, shapeText } from "./_window_attrs.ts";
import { sameAs } from "./shape_rules.ts";

const BATCH_NORM_ATTRS = {
  is_test: attr.bool(false),
  momentum: attr.float(0.9),
  epsilon: attr.float(1e-5),
  data_layout: attr.string("NCHW"),
  use_global_stats: attr.bool(false),
  trainable_statistics: attr.bool(false),
} as const;

type BatchNormAttrs = AttrValues<typeof BATCH_NORM_ATTRS>;

// Whether Paddle's kernel uses the given statistics (its `global_stats`).
function inferenceMode(a: BatchNormAttrs): boolean {
  return (a.is_test && !a.trainable_statistics) || a.use_global_stats;
}

// The statistics' dtype: float32 for float16 X, else X's.
function statDType(x: VarInfo | undefined): InferredType["dtype"] {
  return x?.dtype === "float16" ? "float32" : x?.dtype;
}

// Checks that a per-channel parameter's known shape is [C].
function checkPerChannel(
  slotName: string,
  p: VarInfo | undefined,
  x: VarInfo | undefined,
  c: number,
  what = "channel",
): void {
  const s = p?.shape;
  if (s === undefined || c < 0) return;
  if (s.length !== 1 || (s[0] >= 0 && s[0] !== c)) {
    throw new RangeError(
      `${slotName} ${
        shapeText(s)
      } does not have one element per ${what} of input ${
        shapeText(x!.shape!)
      } (${c})`,
    );
  }
}

// The input's channel count for a layout, -1 if unknown; throws on a rank
// outside [2, 5].
function channelsOf(x: VarInfo | undefined, last: boolean): number {
  const s = x?.shape;
  if (s === undefined) return -1;
  if (s.length < 2 || s.length > 5) {
    throw new RangeError(`input ${shapeText(s)} is not of rank 2 to 5`);
  }
  return s[last || s.length === 2 ? s.length - 1 : 1];
}

const batchNorm = defineOp({
  type: "batch_norm",
  kernels: ["batchNorm"],
  summary:
    "Y = (X − Mean) / sqrt(Variance + epsilon) · Scale + Bias per channel (inference)",
  inputs: {
    X: slot.tensor(),
    Scale: slot.tensor({ optional: true }),
    Bias: slot.tensor({ optional: true }),
    Mean: slot.tensor(),
    Variance: slot.tensor(),
    MomentumTensor: slot.tensor({ optional: true }),
  },
  outputs: {
    Y: slot.tensor(),
    MeanOut: slot.tensor(),
    VarianceOut: slot.tensor(),
    SavedMean: slot.tensor(),
    SavedVariance: slot.tensor(),
    ReserveSpace: slot.tensor({ optional: true }),
  },
  attrs: BATCH_NORM_ATTRS,
  check(a) {
    checkLayout("data_layout", a.data_layout);
    if (!inferenceMode(a)) {
      throw new AttrError(
        a.is_test ? "trainable_statistics" : "is_test",
        "training mode (batch statistics) is not supported: set is_test " +
          "(without trainable_statistics) or use_global_stats",
      );
    }
  },
  infer({ inputs, attrs }) {
    const x = inputs("X")[0];
    const c = channelsOf(x, channelLast(attrs.data_layout));
    for (const name of ["Scale", "Bias", "Mean", "Variance"]) {
      checkPerChannel(name, inputs(name)[0], x, c);
    }
    const stat = { dtype: statDType(x), shape: c < 0 ? undefined : [c] };
    return {
      Y: sameAs(x),
      MeanOut: sameAs(inputs("Mean")[0]),
      VarianceOut: sameAs(inputs("Variance")[0]),
      SavedMean: stat,
      SavedVariance: stat,
      ReserveSpace: { dtype: statDType(x) },
    };
  },
  prepare(ctx) {
    const x = ctx.input("X");
    const scale = ctx.optionalInput("Scale");
    const bias = ctx.optionalInput("Bias");
    const mean = ctx.input("Mean");
    const variance = ctx.input("Variance");
    const y = ctx.output("Y");
    const meanOut = ctx.output("MeanOut");
    const varianceOut = ctx.output("VarianceOut");
    const saved = [ctx.output("SavedMean"), ctx.output("SavedVariance")];
    const reserve = ctx.optionalOutput("ReserveSpace");
    const a = ctx.attrs;
    const last = channelLast(a.data_layout);
    return (scope, thread) => {
      const m = mean.tensor(scope), v = variance.tensor(scope);
      y.write(
        scope,
        thread.run.device.kernels.batchNorm(x.tensor(scope), {
          mean: m,
          variance: v,
          scale: scale?.tensor(scope),
          bias: bias?.tensor(scope),
          epsilon: a.epsilon,
          channelLast: last,
        }),
      );
      meanOut.write(scope, m);
      varianceOut.write(scope, v);
      const dtype = m.dtype === "float64" ? "float64" : "float32";
      for (const out of saved) out.write(scope, Tensor.zeros([m.size], dtype));
      reserve?.write(scope, Tensor.zeros([0], dtype));
    };
  },
});

const EPSILON = { epsilon: attr.float(1e-5) } as const;

// The optional Scale and Bias of the self-normalizing ops.
const AFFINE = {
  Scale: slot.tensor({ optional: true }),
  Bias: slot.tensor({ optional: true }),
} as const;

// Reads the optional Scale and Bias of a run.
function affineOf(
  scale: VarRef | undefined,
  bias: VarRef | undefined,
  scope: Scope,
): { scale?: Tensor; bias?: Tensor } {
  return { scale: scale?.tensor(scope), bias: bias?.tensor(scope) };
}

// Writes a kernel's [Y, statistic, statistic] to Y and the optional
// statistic outputs.
function writeAll(
  scope: Scope,
  results: readonly Tensor[],
  outs: readonly (VarRef | undefined)[],
): void {
  outs.forEach((out, i) => out?.write(scope, results[i]));
}

const layerNorm = defineOp({
  type: "layer_norm",
  kernels: ["layerNorm"],
  summary:
    "Y = X normalized over the dims from begin_norm_axis, · Scale + Bias",
  inputs: { X: slot.tensor(), ...AFFINE },
  outputs: {
    Y: slot.tensor(),
    Mean: slot.tensor({ optional: true }),
    Variance: slot.tensor({ optional: true }),
  },
  attrs: { ...EPSILON, begin_norm_axis: attr.int(1) },
  infer({ inputs, attrs }) {
    const x = inputs("X")[0];
    const s = x?.shape;
    const axis = attrs.begin_norm_axis;
    if (s !== undefined && (axis < 1 || axis >= s.length)) {
      throw new AttrError(
        "begin_norm_axis",
        `${axis} is outside [1, ${s.length}) for input ${shapeText(s)}`,
      );
    }
    const known = (dims: readonly number[]) =>
      dims.some((d) => d < 0) ? -1 : dims.reduce((p, d) => p * d, 1);
    const left = s === undefined ? -1 : known(s.slice(0, axis));
    const right = s === undefined ? -1 : known(s.slice(axis));
    for (const name of ["Scale", "Bias"]) {
      checkPerChannel(name, inputs(name)[0], x, right, "normalized element");
    }
    const stat = {
      dtype: statDType(x),
      shape: left < 0 ? undefined : [left],
    };
    return { Y: sameAs(x), Mean: stat, Variance: stat };
  },
  prepare(ctx) {
    const x = ctx.input("X");
    const scale = ctx.optionalInput("Scale"), bias = ctx.optionalInput("Bias");
    const outs = [
      ctx.output("Y"),
      ctx.optionalOutput("Mean"),
      ctx.optionalOutput("Variance"),
    ];
    const { epsilon, begin_norm_axis: beginNormAxis } = ctx.attrs;
    return (scope, thread) => {
      const results = thread.run.device.kernels.layerNorm(x.tensor(scope), {
        ...affineOf(scale, bias, scope),
        epsilon,
        beginNormAxis,
      });
      writeAll(scope, results, outs);
    };
  },
});

const instanceNorm = defineOp({
  type: "instance_norm",
  kernels: ["instanceNorm"],
  summary: "Y = each image's channels normalized apart, · Scale + Bias",
  inputs: { X: slot.tensor(), ...AFFINE },
  outputs: {
    Y: slot.tensor(),
    SavedMean: slot.tensor({ optional: true }),
    SavedVariance: slot.tensor({ optional: true }),
  },
  attrs: EPSILON,
  infer({ inputs }) {
    const x = inputs("X")[0];
    const c = channelsOf(x, false);
    for (const name of ["Scale", "Bias"]) {
      checkPerChannel(name, inputs(name)[0], x, c);
    }
    const n = x?.shape?.[0] ?? -1;
    const stat = {
      dtype: statDType(x),
      shape: n < 0 || c < 0 ? undefined : [n * c],
    };
    return { Y: sameAs(x), SavedMean: stat, SavedVariance: stat };
  },
  prepare(ctx) {
    const x = ctx.input("X");
    const scale = ctx.optionalInput("Scale"), bias = ctx.optionalInput("Bias");
    const outs = [
      ctx.output("Y"),
      ctx.optionalOutput("SavedMean"),
      ctx.optionalOutput("SavedVariance"),
    ];
    const epsilon = ctx.attrs.epsilon;
    return (scope, thread) => {
      const results = thread.run.device.kernels.instanceNorm(x.tensor(scope), {
        ...affineOf(scale, bias, scope),
        epsilon,
      });
      writeAll(scope, results, outs);
    };
  },
});

const groupNorm = defineOp({
  type: "group_norm",
  kernels: ["groupNorm"],
  summary: "Y = each image's channel groups normalized apart, · Scale + Bias",
  inputs: { X: slot.tensor(), ...AFFINE },
  outputs: {
    Y: slot.tensor(),
    Mean: slot.tensor({ optional: true }),
    Variance: slot.tensor({ optional: true }),
  },
  attrs: {
    ...EPSILON,
    groups: attr.required("int"),
    data_layout: attr.string("NCHW"),
  },
  check(a) {
    checkLayout("data_layout", a.data_layout);
    if (a.groups < 1) {
      throw new AttrError("groups", `${a.groups} is not a positive integer`);
    }
  },
  infer({ inputs, attrs }) {
    const x = inputs("X")[0];
    const c = channelsOf(x, channelLast(attrs.data_layout));
    if (c >= 0 && c % attrs.groups !== 0) {
      throw new RangeError(
        `input ${
          shapeText(x!.shape!)
        } has ${c} channels, which do not split into ${attrs.groups} groups`,
      );
    }
    for (const name of ["Scale", "Bias"]) {
      checkPerChannel(name, inputs(name)[0], x, c);
    }
    const n = x?.shape?.[0] ?? -1;
    const stat = {
      dtype: statDType(x),
      shape: n < 0 ? undefined : [n, attrs.groups],
    };
    return { Y: sameAs(x), Mean: stat, Variance: stat };
  },
  prepare(ctx) {
    const x = ctx.input("X");
    const scale = ctx.optionalInput("Scale"), bias = ctx.optionalInput("Bias");
    const outs = [
      ctx.output("Y"),
      ctx.optionalOutput("Mean"),
      ctx.optionalOutput("Variance"),
    ];
    const a = ctx.attrs;
    return (scope, thread) => {
      const results = thread.run.device.kernels.groupNorm(x.tensor(scope), {
        ...affineOf(scale, bias, scope),
        epsilon: a.epsilon,
        groups: a.groups,
        channelLast: channelLast(a.data_layout),
      });
      writeAll(scope, results, outs);
    };
  },
});

/**
 * Every normalization op.
 *
 * @example Usage
 * ```ts
 * import { NORM_OPS } from "./norm.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(NORM_OPS.map((def) => def.type), ["batch_norm", "layer_norm", "instance_norm", "group_norm"]);
 * ```
 */
export const NORM_OPS: readonly OpDef[] = [
  batchNorm,
  layerNorm,
  instanceNorm,
  groupNorm,
];
