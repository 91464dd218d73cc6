/**
 * Pooling, with Paddle's slots, attributes and defaults (`Pool2dOpMaker`):
 * `pool2d`, max or average (`pooling_type`) over `ksize` windows, or over
 * the whole image (`global_pooling`), or into a `ksize` output
 * (`adaptive`). The windows, the divisor of an average and the output
 * size follow Paddle's kernel (kernels/cpu/pool.ts states them).
 *
 * @module
 */
import type { PoolKind } from "../../kernels/kernel_kinds.ts";
import type { Pool2dKernelOptions } from "../../kernels/kernel_options.ts";
import { poolOutputSize } from "../../kernels/window_size.ts";
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

const POOL_ATTRS = {
  pooling_type: attr.required("string"),
  ksize: attr.required("ints"),
  global_pooling: attr.bool(false),
  strides: attr.ints([1, 1]),
  paddings: attr.ints([0, 0]),
  exclusive: attr.bool(true),
  adaptive: attr.bool(false),
  ceil_mode: attr.bool(false),
  data_format: attr.string("NCHW"),
  padding_algorithm: attr.string("EXPLICIT"),
} as const;

type PoolAttrs = AttrValues<typeof POOL_ATTRS>;

// The kernel's options for an input's [h, w] (-1 where unknown): global
// pooling takes the whole image, global and adaptive pooling no padding.
function poolOptions(a: PoolAttrs, hw: readonly number[]): Pool2dKernelOptions {
  const { paddings } = resolveWindow(a, hw, a.ksize);
  const plain = !a.global_pooling && !a.adaptive;
  return {
    ksize: a.global_pooling ? [...hw] : a.ksize,
    strides: a.strides,
    paddings: plain ? paddings : [0, 0, 0, 0],
    ceilMode: a.ceil_mode,
    exclusive: a.exclusive,
    adaptive: a.adaptive,
    channelLast: channelLast(a.data_format),
  };
}

// Output dims (Paddle's PoolInferMeta); throws naming the shapes when the
// window is larger than the padded input.
function poolRule(x: VarInfo | undefined, a: PoolAttrs): InferredType {
  const shape = x?.shape;
  if (shape === undefined) return { dtype: x?.dtype };
  if (shape.length !== 4) {
    throw new RangeError(`input ${shapeText(shape)} is not of rank 4`);
  }
  const last = channelLast(a.data_format);
  const [c, h, w] = splitLayout(shape, last);
  const o = poolOptions(a, [h, w]);
  const p = o.paddings!;
  const spatial = [h, w].map((size, i) => {
    if (a.adaptive) return o.ksize[i];
    if (size < 0 || p[2 * i] < 0 || o.ksize[i] < 0) return -1;
    const out = poolOutputSize(size, {
      kernel: o.ksize[i],
      stride: a.strides[i],
      before: p[2 * i],
      after: p[2 * i + 1],
    }, a.ceil_mode);
    if (out <= 0) {
      throw new RangeError(
        `the ${o.ksize.join("×")} window is larger than input ${
          shapeText(shape)
        } padded by [${p.join(", ")}]`,
      );
    }
    return out;
  });
  return { dtype: x?.dtype, shape: joinLayout(shape[0], c, spatial, last) };
}

const pool2d = defineOp({
  type: "pool2d",
  kernels: [{ kernel: "pool2d", kinds: ["max", "avg"] }],
  summary: "Out = the max or average of X over windows (global, adaptive)",
  inputs: { X: slot.tensor() },
  outputs: { Out: slot.tensor() },
  attrs: POOL_ATTRS,
  check(a) {
    if (a.pooling_type !== "max" && a.pooling_type !== "avg") {
      throw new AttrError(
        "pooling_type",
        `"${a.pooling_type}" is not "max" or "avg"`,
      );
    }
    checkLayout("data_format", a.data_format);
    checkWindowAttrs(a, { ksize: a.ksize });
  },
  infer: ({ inputs, attrs }) => ({ Out: poolRule(inputs("X")[0], attrs) }),
  prepare(ctx) {
    const x = ctx.input("X");
    const out = ctx.output("Out");
    const a = ctx.attrs;
    const kind = a.pooling_type as PoolKind;
    const last = channelLast(a.data_format);
    return (scope, thread) => {
      const t = x.tensor(scope);
      const [, h, w] = splitLayout(t.shape, last);
      out.write(
        scope,
        thread.run.device.kernels.pool2d(kind, t, poolOptions(a, [h, w])),
      );
    };
  },
});

/**
 * Every pooling op.
 *
 * @example Usage
 * ```ts
 * import { POOL_OPS } from "./pool.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(POOL_OPS[0].attrs.exclusive.default, true);
 * ```
 */
export const POOL_OPS: readonly OpDef[] = [pool2d];
