/**
 * Templates for ops that are one tensor kernel: read tensor inputs, call
 * the device's kernel, bind `Out`. Most of the catalog is made by these two
 * functions, so an op file lists only what differs: type, attributes, the
 * kernel call and the static shape rule.
 *
 * @module
 */
import type { Device } from "../../kernels/device.ts";
import type { BinaryKind } from "../../kernels/kernel_kinds.ts";
import type { Tensor } from "../../kernels/tensor.ts";
import { InPlaceScalar } from "./in_place_scalar.ts";
import type { ScalarPath } from "./scalar_path.ts";
import {
  type AttrSchema,
  type AttrValues,
  defineOp,
  type InferContext,
  type InferredType,
  type OpDef,
  type OpKernels,
  type RowRule,
  slot,
} from "../core/op_def.ts";

/** The definition of a one-input kernel op `X → Out`. */
export interface UnaryKernelOpSpec<A extends AttrSchema> {
  /** The op type. */
  type: string;
  /** One line on what it does. */
  summary: string;
  /** The attribute schema. */
  attrs: A;
  /** The kernel call. */
  compute: (device: Device, x: Tensor, attrs: AttrValues<A>) => Tensor;
  /** The kernels `compute` may call; see `OpDef.kernels`. */
  kernels: OpKernels;
  /** The static type of `Out`; absent: unknown. */
  infer?: (x: InferredType, attrs: AttrValues<A>) => InferredType;
  /** How it treats the data input's rows; absent: it mixes them. */
  rows?: RowRule<A>;
  /** Extra static checks of attribute values; see `OpDef.check`. */
  check?: (attrs: AttrValues<A>) => void;
}

/**
 * Defines an op `X → Out` that is one kernel call.
 *
 * @param spec The op.
 * @returns Its definition.
 *
 * @example Usage
 * ```ts
 * import { unaryKernelOp } from "./kernel_op.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const relu = unaryKernelOp({
 *   type: "relu",
 *   summary: "max(x, 0)",
 *   attrs: {},
 *   compute: (device, x) => device.kernels.unary("relu", x),
 *   kernels: [{ kernel: "unary", kinds: ["relu"] }],
 * });
 * assertEquals(Object.keys(relu.inputs), ["X"]);
 * ```
 */
export function unaryKernelOp<const A extends AttrSchema>(
  spec: UnaryKernelOpSpec<A>,
): OpDef<A> {
  const { compute, infer } = spec;
  return defineOp({
    type: spec.type,
    summary: spec.summary,
    inputs: { X: slot.tensor() },
    outputs: { Out: slot.tensor() },
    attrs: spec.attrs,
    rows: spec.rows,
    kernels: spec.kernels,
    check: spec.check,
    infer: infer && ((ctx: InferContext<A>) => ({
      Out: infer(ctx.inputs("X")[0], ctx.attrs),
    })),
    prepare(ctx) {
      const x = ctx.input("X");
      const out = ctx.output("Out");
      const attrs = ctx.attrs;
      return (scope, thread) => {
        out.write(scope, compute(thread.run.device, x.tensor(scope), attrs));
      };
    },
  });
}

/** The definition of a two-input kernel op `X, Y → Out`. */
export interface BinaryKernelOpSpec<A extends AttrSchema> {
  /** The op type. */
  type: string;
  /** One line on what it does. */
  summary: string;
  /** The attribute schema. */
  attrs: A;
  /** The kernel call. */
  compute: (
    device: Device,
    x: Tensor,
    y: Tensor,
    attrs: AttrValues<A>,
  ) => Tensor;
  /** The kernels `compute` may call; see `OpDef.kernels`. */
  kernels: OpKernels;
  /** The static type of `Out`; throws on a mismatch known statically. */
  infer?: (
    x: InferredType,
    y: InferredType,
    attrs: AttrValues<A>,
  ) => InferredType;
  /** How it treats the data input's rows; absent: it mixes them. */
  rows?: RowRule<A>;
  /** Whether a large one is worth a pool; see `OpDef.poolWorthy`. */
  poolWorthy?: "product";
  /**
   * The same call on one-element operands without the kernel, where it
   * applies (`scalar_path.ts`); tried before `compute`.
   */
  scalar?: ScalarPath;
  /**
   * The arithmetic whose one-element results go into the storage of a
   * private Out's tensor (`in_place_scalar.ts`); absent: new tensors.
   */
  inPlace?: BinaryKind;
}

/**
 * Defines an op `X, Y → Out` that is one kernel call.
 *
 * @param spec The op.
 * @returns Its definition.
 *
 * @example Usage
 * ```ts
 * import { binaryKernelOp } from "./kernel_op.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const add = binaryKernelOp({
 *   type: "my_add",
 *   summary: "x + y",
 *   attrs: {},
 *   compute: (device, x, y) => device.kernels.binary("add", x, y, -1),
 *   kernels: [{ kernel: "binary", kinds: ["add"] }],
 * });
 * assertEquals(Object.keys(add.inputs), ["X", "Y"]);
 * ```
 */
export function binaryKernelOp<const A extends AttrSchema>(
  spec: BinaryKernelOpSpec<A>,
): OpDef<A> {
  const { compute, infer } = spec;
  return defineOp({
    type: spec.type,
    summary: spec.summary,
    // A scalar path's op keeps nothing of its operands (nor does its
    // kernel: a result is new storage).
    inputs: spec.scalar === undefined
      ? { X: slot.tensor(), Y: slot.tensor() }
      : {
        X: slot.tensor({ transient: true }),
        Y: slot.tensor({ transient: true }),
      },
    outputs: { Out: slot.tensor() },
    attrs: spec.attrs,
    rows: spec.rows,
    kernels: spec.kernels,
    poolWorthy: spec.poolWorthy,
    infer: infer && ((ctx: InferContext<A>) => ({
      Out: infer(ctx.inputs("X")[0], ctx.inputs("Y")[0], ctx.attrs),
    })),
    prepare(ctx) {
      const x = ctx.input("X");
      const y = ctx.input("Y");
      const out = ctx.output("Out");
      const attrs = ctx.attrs;
      const scalar = spec.scalar;
      if (scalar === undefined) {
        return (scope, thread) => {
          const device = thread.run.device;
          out.write(
            scope,
            compute(device, x.tensor(scope), y.tensor(scope), attrs),
          );
        };
      }
      const site = spec.inPlace !== undefined && ctx.privateOutput("Out")
        ? InPlaceScalar.of(spec.inPlace)
        : undefined;
      if (site === undefined) {
        return (scope, thread) => {
          const device = thread.run.device;
          const a = x.tensor(scope), b = y.tensor(scope);
          out.write(
            scope,
            scalar(device, a, b) ?? compute(device, a, b, attrs),
          );
        };
      }
      // Out is private: the site writes into the tensor it made for Out
      // while Out still holds it.
      return (scope, thread) => {
        const device = thread.run.device;
        const a = x.tensor(scope), b = y.tensor(scope);
        const home = out.home(scope);
        const held = home.values[out.slot];
        const made = site.apply(device, a, b, held);
        if (made === undefined) {
          home.values[out.slot] = compute(device, a, b, attrs);
        } else if (made !== held) {
          home.values[out.slot] = made;
        }
      };
    },
  });
}
