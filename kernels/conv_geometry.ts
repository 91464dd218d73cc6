// The checked geometry of a 2-D convolution, transposed convolution or
// pooling call: every size a kernel loops over, derived once from the
// operands' shapes and the resolved options, with one error per way the
// operands can disagree. The CPU and GPU kernels both start here, so they
// refuse the same calls with the same messages.

import { formatShape } from "./_shape.ts";
import type {
  Conv2dKernelOptions,
  Conv2dTransposeKernelOptions,
  Pool2dKernelOptions,
} from "./kernel_options.ts";
import { type DType, isFloatDType } from "./dtype.ts";
import {
  convOutputSize,
  convTransposeOutputSize,
  poolOutputSize,
} from "./window_size.ts";

/**
 * What the geometry reads of an operand: its dims and element type (a
 * `Tensor`, or a tensor on a device).
 */
export interface Shaped {
  /** The dims. */
  readonly shape: readonly number[];
  /** The element type. */
  readonly dtype: DType;
}

/**
 * The sizes of one call, in NCHW terms whatever the layout: `c`, `h`, `w`
 * are the input's, `oc`, `oh`, `ow` the result's.
 */
export interface WindowGeometry {
  /** Images. */
  readonly n: number;
  /** Input channels. */
  readonly c: number;
  /** Input height. */
  readonly h: number;
  /** Input width. */
  readonly w: number;
  /** Result channels. */
  readonly oc: number;
  /** Result height. */
  readonly oh: number;
  /** Result width. */
  readonly ow: number;
  /** Window height (filter or pool). */
  readonly kh: number;
  /** Window width. */
  readonly kw: number;
  /** Stride down. */
  readonly sh: number;
  /** Stride across. */
  readonly sw: number;
  /** Dilation down (1 for pooling). */
  readonly dh: number;
  /** Dilation across. */
  readonly dw: number;
  /** Padding on top. */
  readonly pt: number;
  /** Padding on the left. */
  readonly pl: number;
  /** Channel groups (1 for pooling). */
  readonly groups: number;
  /** Input channels per group. */
  readonly cg: number;
  /** Result channels per group. */
  readonly ocg: number;
  /** Whether the input and result are NHWC. */
  readonly channelLast: boolean;
}

/**
 * Checks a convolution's operands and options and returns its geometry.
 *
 * @param x The input, `[N, C, H, W]` (NHWC with `channelLast`).
 * @param filter The filter, `[OC, C / groups, KH, KW]`.
 * @param options The resolved window options.
 * @returns The geometry.
 * @throws {RangeError} If a rank, a channel count, an option or the output
 * size is wrong; the message names the shapes.
 * @throws {TypeError} If the operands are not of one float dtype.
 *
 * @example Usage
 * ```ts
 * import { convGeometry } from "./conv_geometry.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * const x = Tensor.zeros([1, 4, 5, 5], "float32");
 * const g = convGeometry(x, Tensor.zeros([6, 2, 3, 3], "float32"), { groups: 2, paddings: [1, 1, 1, 1] });
 * assertEquals([g.oc, g.oh, g.ow, g.cg, g.ocg], [6, 5, 5, 2, 3]);
 * assertThrows(() => convGeometry(x, Tensor.zeros([6, 3, 3, 3], "float32"), { groups: 2 }), RangeError);
 * ```
 */
export function convGeometry(
  x: Shaped,
  filter: Shaped,
  options: Conv2dKernelOptions = {},
): WindowGeometry {
  const base = windowBase("conv2d", x, options, options.dilations);
  checkFloatPair("conv2d", x, filter);
  const [oc, fc, kh, kw] = fourDims("conv2d", "filter", filter);
  const groups = groupsOf("conv2d", options.groups);
  const { c } = base;
  const fail = (why: string): never => {
    throw new RangeError(
      `conv2d: input ${formatShape(x.shape)} and filter ${
        formatShape(filter.shape)
      } with groups ${groups}: ${why}`,
    );
  };
  if (fc * groups !== c) {
    fail(`the input has ${c} channels, the filter takes ${fc} × ${groups}`);
  }
  if (oc % groups !== 0) {
    fail(`${oc} output channels do not split into ${groups} groups`);
  }
  const axes = windowAxes(base, kh, kw);
  const oh = convOutputSize(base.h, axes[0]);
  const ow = convOutputSize(base.w, axes[1]);
  if (oh <= 0 || ow <= 0 || kh <= 0 || kw <= 0) {
    fail(
      `the ${kh}×${kw} window dilated by [${base.dh}, ${base.dw}] does not fit ` +
        `the input padded by ${formatShape(base.paddings)}`,
    );
  }
  return {
    ...base,
    oc,
    oh,
    ow,
    kh,
    kw,
    groups,
    cg: fc,
    ocg: oc / groups,
  };
}

/**
 * Checks a transposed convolution's operands and options and returns its
 * geometry (`c`, `h`, `w` the input's; `oc`, `oh`, `ow` the result's).
 *
 * @param x The input, `[N, C, H, W]` (NHWC with `channelLast`).
 * @param filter The filter, `[C, OC / groups, KH, KW]`.
 * @param options The resolved window options and output size.
 * @returns The geometry.
 * @throws {RangeError} If a rank, a channel count, an option or the output
 * size is wrong; the message names the shapes.
 * @throws {TypeError} If the operands are not of one float dtype.
 *
 * @example Usage
 * ```ts
 * import { convTransposeGeometry } from "./conv_geometry.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.zeros([1, 4, 3, 3], "float32");
 * const g = convTransposeGeometry(x, Tensor.zeros([4, 2, 3, 3], "float32"), { strides: [2, 2] });
 * assertEquals([g.oc, g.oh, g.ow], [2, 7, 7]);
 * ```
 */
export function convTransposeGeometry(
  x: Shaped,
  filter: Shaped,
  options: Conv2dTransposeKernelOptions = {},
): WindowGeometry {
  const action = "conv2d_transpose";
  const base = windowBase(action, x, options, options.dilations);
  checkFloatPair(action, x, filter);
  const [fc, ocg, kh, kw] = fourDims(action, "filter", filter);
  const groups = groupsOf(action, options.groups);
  const fail = (why: string): never => {
    throw new RangeError(
      `${action}: input ${formatShape(x.shape)} and filter ${
        formatShape(filter.shape)
      } with groups ${groups}: ${why}`,
    );
  };
  if (fc !== base.c) {
    fail(`the input has ${base.c} channels, the filter ${fc}`);
  }
  if (base.c % groups !== 0) {
    fail(`${base.c} input channels do not split into ${groups} groups`);
  }
  const axes = windowAxes(base, kh, kw);
  const least = [
    convTransposeOutputSize(base.h, axes[0]),
    convTransposeOutputSize(base.w, axes[1]),
  ];
  const size = options.outputSize ?? least;
  // Paddle lets the output grow by less than max(stride, dilation).
  const slack = [Math.max(base.sh, base.dh), Math.max(base.sw, base.dw)];
  for (let i = 0; i < 2; i++) {
    if (
      size.length !== 2 || least[i] <= 0 ||
      !(Number.isInteger(size[i]) && size[i] >= least[i] &&
        size[i] < least[i] + slack[i])
    ) {
      fail(
        `output size ${formatShape(size)} is not within a stride of ` +
          `${formatShape(least)} (paddings ${formatShape(base.paddings)})`,
      );
    }
  }
  return {
    ...base,
    oc: ocg * groups,
    oh: size[0],
    ow: size[1],
    kh,
    kw,
    groups,
    cg: base.c / groups,
    ocg,
  };
}

/**
 * Checks a pooling's operand and options and returns its geometry (`oc`
 * is `c`; adaptive pooling's window is the result's size).
 *
 * @param x The input, `[N, C, H, W]` (NHWC with `channelLast`).
 * @param options The resolved window options.
 * @returns The geometry.
 * @throws {RangeError} If the rank, an option or the output size is wrong,
 * naming the shapes (a window larger than the padded input).
 * @throws {TypeError} If X is not of a float dtype.
 *
 * @example Usage
 * ```ts
 * import { poolGeometry } from "./conv_geometry.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * const x = Tensor.zeros([1, 2, 5, 5], "float32");
 * assertEquals(poolGeometry(x, { ksize: [2, 2], strides: [2, 2] }).oh, 2);
 * assertThrows(() => poolGeometry(x, { ksize: [7, 7] }), RangeError);
 * ```
 */
export function poolGeometry(
  x: Shaped,
  options: Pool2dKernelOptions,
): WindowGeometry {
  const base = windowBase("pool2d", x, options, undefined);
  if (!isFloatDType(x.dtype)) {
    throw new TypeError(`pool2d: dtype "${x.dtype}" is not a float type`);
  }
  const [kh, kw] = pairOf("pool2d", "ksize", options.ksize, 1);
  let oh: number, ow: number;
  if (options.adaptive === true) {
    [oh, ow] = [kh, kw];
  } else {
    const ceil = options.ceilMode === true;
    const axes = windowAxes(base, kh, kw);
    oh = poolOutputSize(base.h, axes[0], ceil);
    ow = poolOutputSize(base.w, axes[1], ceil);
    if (oh <= 0 || ow <= 0) {
      throw new RangeError(
        `pool2d: the ${kh}×${kw} window is larger than input ${
          formatShape(x.shape)
        } padded by ${formatShape(base.paddings)}`,
      );
    }
  }
  return {
    ...base,
    oc: base.c,
    oh,
    ow,
    kh,
    kw,
    groups: 1,
    cg: 1,
    ocg: 1,
  };
}

interface WindowBase {
  readonly n: number;
  readonly c: number;
  readonly h: number;
  readonly w: number;
  readonly sh: number;
  readonly sw: number;
  readonly dh: number;
  readonly dw: number;
  readonly pt: number;
  readonly pl: number;
  readonly paddings: readonly number[];
  readonly channelLast: boolean;
}

// The input's dims and the options every window shares, checked.
function windowBase(
  action: string,
  x: Shaped,
  options: Conv2dKernelOptions,
  dilations: readonly number[] | undefined,
): WindowBase {
  const channelLast = options.channelLast === true;
  const [n, d1, d2, d3] = fourDims(action, "input", x);
  const [c, h, w] = channelLast ? [d3, d1, d2] : [d1, d2, d3];
  const [sh, sw] = pairOf(action, "strides", options.strides ?? [1, 1], 1);
  const [dh, dw] = pairOf(action, "dilations", dilations ?? [1, 1], 1);
  const paddings = options.paddings ?? [0, 0, 0, 0];
  if (
    paddings.length !== 4 ||
    !paddings.every((p) => Number.isInteger(p) && p >= 0)
  ) {
    throw new RangeError(
      `${action}: paddings ${
        formatShape(paddings)
      } are not four non-negative integers`,
    );
  }
  return {
    n,
    c,
    h,
    w,
    sh,
    sw,
    dh,
    dw,
    pt: paddings[0],
    pl: paddings[2],
    paddings,
    channelLast,
  };
}

function windowAxes(base: WindowBase, kh: number, kw: number) {
  const p = base.paddings;
  return [
    {
      kernel: kh,
      stride: base.sh,
      dilation: base.dh,
      before: p[0],
      after: p[1],
    },
    {
      kernel: kw,
      stride: base.sw,
      dilation: base.dw,
      before: p[2],
      after: p[3],
    },
  ] as const;
}

function fourDims(
  action: string,
  what: string,
  t: Shaped,
): [number, number, number, number] {
  if (t.shape.length !== 4) {
    throw new RangeError(
      `${action}: ${what} ${formatShape(t.shape)} is not of rank 4`,
    );
  }
  return [t.shape[0], t.shape[1], t.shape[2], t.shape[3]];
}

function pairOf(
  action: string,
  name: string,
  values: readonly number[],
  least: number,
): [number, number] {
  if (
    values.length !== 2 ||
    !values.every((v) => Number.isInteger(v) && v >= least)
  ) {
    throw new RangeError(
      `${action}: ${name} ${
        formatShape(values)
      } are not two integers of at least ${least}`,
    );
  }
  return [values[0], values[1]];
}

function groupsOf(action: string, groups: number | undefined): number {
  const g = groups ?? 1;
  if (!Number.isInteger(g) || g < 1) {
    throw new RangeError(`${action}: groups ${g} is not a positive integer`);
  }
  return g;
}

function checkFloatPair(action: string, x: Shaped, filter: Shaped): void {
  if (!isFloatDType(x.dtype) || filter.dtype !== x.dtype) {
    throw new TypeError(
      `${action}: input "${x.dtype}" and filter "${filter.dtype}" are not one float type`,
    );
  }
}
