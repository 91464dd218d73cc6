/**
 * Convolutions, with Paddle's slots, attributes and defaults
 * (`Conv2DOpMaker`, `Conv2DTransposeOpMaker`): `conv2d`,
 * `depthwise_conv2d` (the same op for one input channel per group) and
 * `conv2d_transpose`. The filter is OIHW in every layout (IOHW for the
 * transpose); `data_format` NHWC makes the input and output channels-last,
 * AnyLayout reads as NCHW.
 *
 * `Bias` and `ResidualData` are slots Paddle's fused oneDNN kernels read
 * (its reference kernels ignore them): they are accepted empty, as Paddle
 * writes them, and refused when they name a variable, since their meaning
 * depends on which Paddle kernel ran.
 *
 * @module
 */
import type { Device } from "../../kernels/device.ts";
import type { Tensor } from "../../kernels/tensor.ts";
import {
  convOutputSize,
  convTransposeOutputSize,
} from "../../kernels/window_size.ts";
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
import {
  channelLast,
  checkLayout,
  checkWindowAttrs,
  joinLayout,
  resolveWindow,
  shapeText,
  splitLayout,
} from "./_window_attrs.ts";

const CONV_ATTRS = {
  strides: attr.ints([1, 1]),
  paddings: attr.ints([0, 0]),
  padding_algorithm: attr.string("EXPLICIT"),
  groups: attr.int(1),
  dilations: attr.ints([1, 1]),
  data_format: attr.string("NCHW"),
} as const;

const TRANSPOSE_ATTRS = {
  ...CONV_ATTRS,
  output_padding: attr.ints([]),
  output_size: attr.ints([]),
} as const;

type ConvAttrs = AttrValues<typeof CONV_ATTRS>;
type TransposeAttrs = AttrValues<typeof TRANSPOSE_ATTRS>;

// A conv op's shape rule: throws a RangeError naming the shapes when the
// known dims cannot fit.
type ShapeRule<A> = (
  x: VarInfo | undefined,
  f: VarInfo | undefined,
  a: A,
) => InferredType;

// What the run passes to the kernel for the operands' real shapes.
type KernelCall<A> = (device: Device, x: Tensor, f: Tensor, a: A) => Tensor;

function convOp<A extends ConvAttrs>(
  type: string,
  summary: string,
  attrs: typeof CONV_ATTRS | typeof TRANSPOSE_ATTRS,
  rule: ShapeRule<A>,
  call: KernelCall<A>,
): OpDef {
  const transposed = "output_size" in attrs;
  return defineOp({
    type,
    summary,
    inputs: {
      Input: slot.tensor(),
      Filter: slot.tensor(),
      Bias: slot.tensor({ optional: true }),
      ...(transposed ? {} : { ResidualData: slot.tensor({ optional: true }) }),
    },
    outputs: { Output: slot.tensor() },
    attrs,
    kernels: [transposed ? "conv2dTranspose" : "conv2d"],
    check(a, ctx) {
      checkLayout("data_format", a.data_format);
      checkWindowAttrs(a, { dilations: a.dilations });
      if (a.groups < 1) {
        throw new AttrError("groups", `${a.groups} is not a positive integer`);
      }
      for (const unread of ["Bias", "ResidualData"]) {
        if (ctx.hasInput(unread)) {
          throw new RangeError(
            `input "${unread}" is read only by Paddle's fused oneDNN kernels: Rill takes it empty`,
          );
        }
      }
    },
    infer: ({ inputs, attrs: a }) => ({
      Output: rule(inputs("Input")[0], inputs("Filter")[0], a as never),
    }),
    prepare(ctx) {
      const x = ctx.input("Input");
      const f = ctx.input("Filter");
      const out = ctx.output("Output");
      const a = ctx.attrs as unknown as A;
      return (scope, thread) => {
        out.write(
          scope,
          call(thread.run.device, x.tensor(scope), f.tensor(scope), a),
        );
      };
    },
  });
}

// The input's and filter's dims, when both are known rank-4 shapes.
function rank4(
  x: VarInfo | undefined,
  f: VarInfo | undefined,
): [readonly number[], readonly number[]] | undefined {
  if (x?.shape === undefined || f?.shape === undefined) return undefined;
  for (const [what, s] of [["input", x.shape], ["filter", f.shape]] as const) {
    if (s.length !== 4) {
      throw new RangeError(`${what} ${shapeText(s)} is not of rank 4`);
    }
  }
  return [x.shape, f.shape];
}

// Output dims of conv2d and depthwise_conv2d (Paddle's ConvInferMeta).
function convRule(
  x: VarInfo | undefined,
  f: VarInfo | undefined,
  a: ConvAttrs,
): InferredType {
  const shapes = rank4(x, f);
  if (shapes === undefined) return { dtype: x?.dtype };
  const [xs, fs] = shapes;
  const last = channelLast(a.data_format);
  const [c, h, w] = splitLayout(xs, last);
  const [oc, fc, kh, kw] = fs;
  const fail = (why: string): never => {
    throw new RangeError(
      `input ${shapeText(xs)} and filter ${
        shapeText(fs)
      } with groups ${a.groups}: ${why}`,
    );
  };
  if (c >= 0 && fc >= 0 && fc * a.groups !== c) {
    fail(`the input has ${c} channels, the filter takes ${fc} × ${a.groups}`);
  }
  if (oc >= 0 && oc % a.groups !== 0) {
    fail(`${oc} output channels do not split into ${a.groups} groups`);
  }
  const { paddings, dilations } = resolveWindow(
    a,
    [h, w],
    [kh, kw],
    a.dilations,
  );
  const spatial = [h, w].map((size, i) => {
    const k = i === 0 ? kh : kw;
    const [before, after] = [paddings[2 * i], paddings[2 * i + 1]];
    if (size < 0 || k < 0 || before < 0) return -1;
    const o = convOutputSize(size, {
      kernel: k,
      stride: a.strides[i],
      dilation: dilations[i],
      before,
      after,
    });
    if (o <= 0) {
      fail(
        `the ${kh}×${kw} window dilated by [${
          dilations.join(", ")
        }] does not ` +
          `fit the input padded by [${paddings.join(", ")}]`,
      );
    }
    return o;
  });
  return { dtype: x?.dtype, shape: joinLayout(xs[0], oc, spatial, last) };
}

// Output dims of conv2d_transpose (Paddle's ConvTransposeInferMeta).
function transposeRule(
  x: VarInfo | undefined,
  f: VarInfo | undefined,
  a: TransposeAttrs,
): InferredType {
  const shapes = rank4(x, f);
  if (shapes === undefined) return { dtype: x?.dtype };
  const [xs, fs] = shapes;
  const last = channelLast(a.data_format);
  const [c, h, w] = splitLayout(xs, last);
  const [fc, ocg, kh, kw] = fs;
  if (c >= 0 && fc >= 0 && c !== fc) {
    throw new RangeError(
      `input ${shapeText(xs)} and filter ${
        shapeText(fs)
      } with groups ${a.groups}: the input has ${c} channels, the filter ${fc}`,
    );
  }
  const spatial = transposeSize(a, [h, w], [kh, kw]);
  const oc = ocg < 0 ? -1 : ocg * a.groups;
  return { dtype: x?.dtype, shape: joinLayout(xs[0], oc, spatial, last) };
}

// The output's [h, w]: output_size if given, else the smallest size plus
// output_padding; -1 where an input dim is unknown. Throws when a known
// output_size or output_padding leaves the range Paddle allows: at least
// the smallest size, less than it plus max(stride, dilation).
function transposeSize(
  a: TransposeAttrs,
  input: readonly number[],
  kernel: readonly number[],
): number[] {
  const { paddings, dilations } = resolveWindow(a, input, kernel, a.dilations);
  return [0, 1].map((i) => {
    const given = a.output_size.length > 0 ? a.output_size[i] : undefined;
    if (input[i] < 0 || kernel[i] < 0 || paddings[2 * i] < 0) {
      return given ?? -1;
    }
    const least = convTransposeOutputSize(input[i], {
      kernel: kernel[i],
      stride: a.strides[i],
      dilation: dilations[i],
      before: paddings[2 * i],
      after: paddings[2 * i + 1],
    });
    const size = given ?? least + (a.output_padding[i] ?? 0);
    const slack = Math.max(a.strides[i], dilations[i]);
    if (!(size >= least && size < least + slack) || least <= 0) {
      throw new RangeError(
        `output ${i === 0 ? "height" : "width"} ${size} is not within a ` +
          `stride of ${least}, the least for input ${
            shapeText(input)
          } spatial dims`,
      );
    }
    return size;
  });
}

function conv2dCall(
  device: Device,
  x: Tensor,
  f: Tensor,
  a: ConvAttrs,
): Tensor {
  const last = channelLast(a.data_format);
  const [, h, w] = splitLayout(x.shape, last);
  const resolved = resolveWindow(a, [h, w], f.shape.slice(2), a.dilations);
  return device.kernels.conv2d(x, f, {
    strides: a.strides,
    paddings: resolved.paddings,
    dilations: resolved.dilations,
    groups: a.groups,
    channelLast: last,
  });
}

function transposeCall(
  device: Device,
  x: Tensor,
  f: Tensor,
  a: TransposeAttrs,
): Tensor {
  const last = channelLast(a.data_format);
  const [, h, w] = splitLayout(x.shape, last);
  const kernel = f.shape.slice(2);
  const resolved = resolveWindow(a, [h, w], kernel, a.dilations);
  return device.kernels.conv2dTranspose(x, f, {
    strides: a.strides,
    paddings: resolved.paddings,
    dilations: resolved.dilations,
    groups: a.groups,
    channelLast: last,
    outputSize: transposeSize(a, [h, w], kernel),
  });
}

// depthwise_conv2d runs the conv2d kernel: its errors name this op.
function depthwiseCall(
  device: Device,
  x: Tensor,
  f: Tensor,
  a: ConvAttrs,
): Tensor {
  try {
    return conv2dCall(device, x, f, a);
  } catch (e) {
    if (e instanceof RangeError && e.message.startsWith("conv2d: ")) {
      throw new RangeError(`depthwise_conv2d: ${e.message.slice(8)}`);
    }
    throw e;
  }
}

/**
 * Every convolution op.
 *
 * @example Usage
 * ```ts
 * import { CONV_OPS } from "./conv.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(CONV_OPS.map((def) => def.type), ["conv2d", "depthwise_conv2d", "conv2d_transpose"]);
 * ```
 */
export const CONV_OPS: readonly OpDef[] = [
  convOp(
    "conv2d",
    "Output = Input convolved with Filter (strides, paddings, dilations, groups)",
    CONV_ATTRS,
    convRule,
    conv2dCall,
  ),
  convOp(
    "depthwise_conv2d",
    "Output = Input convolved with Filter, one input channel per group",
    CONV_ATTRS,
    convRule,
    depthwiseCall,
  ),
  convOp(
    "conv2d_transpose",
    "Output = Input spread through Filter (conv2d's input gradient)",
    TRANSPOSE_ATTRS,
    transposeRule,
    transposeCall,
  ),
];
