/**
 * Tensor array ops. A tensor array is a shared object: every variable bound
 * to it sees the same items, so `parallel_for` iterations writing `Y[index]`
 * all land in one array (docs/architecture.md §2).
 *
 * @module
 */
import { Tensor } from "../../kernels/tensor.ts";
import { attr, defineOp, type OpDef, slot } from "../core/op_def.ts";
import type { Scope } from "../core/scope.ts";
import { TensorArray } from "../core/value.ts";
import type { VarRef } from "../core/var_ref.ts";
import { poolOf } from "../core/_pool_services.ts";

function indexOf(ref: VarRef, scope: Scope): number {
  const t = ref.tensor(scope);
  if (t.size !== 1) {
    throw new RangeError(
      `index "${ref.name}" must hold one element, has ${t.size}`,
    );
  }
  return Number(t.item(0));
}

const createArray = defineOp({
  type: "create_array",
  summary: "Out = a new empty tensor array (Size slots, if given)",
  inputs: { Size: slot.tensor({ optional: true }) },
  outputs: { Out: slot.array() },
  attrs: { dtype: attr.int() },
  prepare(ctx) {
    const size = ctx.optionalInput("Size");
    const out = ctx.output("Out");
    return (scope, thread) => {
      const array = poolOf(thread.run)?.newArray() ?? new TensorArray();
      if (size !== undefined) array.resize(indexOf(size, scope));
      out.write(scope, array);
    };
  },
});

const writeToArray = defineOp({
  type: "write_to_array",
  summary: "Out[I] = X, in place in the array Out names",
  inputs: { X: slot.tensor(), I: slot.tensor() },
  outputs: { Out: slot.array({ inPlace: true }) },
  attrs: {},
  prepare(ctx) {
    const x = ctx.input("X");
    const i = ctx.input("I");
    const out = ctx.output("Out");
    return (scope) =>
      out.array(scope).write(indexOf(i, scope), x.tensor(scope));
  },
});

const readFromArray = defineOp({
  type: "read_from_array",
  summary: "Out = X[I]",
  inputs: { X: slot.array(), I: slot.tensor() },
  outputs: { Out: slot.tensor() },
  attrs: {},
  prepare(ctx) {
    const x = ctx.input("X");
    const i = ctx.input("I");
    const out = ctx.output("Out");
    return (scope) => out.write(scope, x.array(scope).read(indexOf(i, scope)));
  },
});

// X may also be a RAW list, so that a master can count its workers
// (kube_get_workers_addrs's Out) without a length op of its own.
const arrayLength = defineOp({
  type: "array_length",
  summary:
    "Out = the number of slots of X (int64); for a RAW list, its number of strings",
  inputs: { X: slot.any() },
  outputs: { Out: slot.tensor() },
  attrs: {},
  infer: () => ({ Out: { dtype: "int64", shape: [1] } }),
  prepare(ctx) {
    const x = ctx.input("X");
    const out = ctx.output("Out");
    return (scope) => {
      const v = x.read(scope);
      const length = Array.isArray(v) ? v.length : x.array(scope).length;
      out.write(scope, Tensor.fromArray([BigInt(length)], "int64", [1]));
    };
  },
});

const splitToArray = defineOp({
  type: "split_to_array",
  kernels: ["splitNearEqual"],
  summary: "Out = X cut along axis into Num near-equal chunks",
  inputs: { X: slot.tensor(), Num: slot.tensor() },
  outputs: { Out: slot.array() },
  attrs: { axis: attr.int(0) },
  prepare(ctx) {
    const x = ctx.input("X");
    const num = ctx.input("Num");
    const out = ctx.output("Out");
    const axis = ctx.attrs.axis;
    return (scope, thread) => {
      const parts = thread.run.device.kernels.splitNearEqual(
        x.tensor(scope),
        indexOf(num, scope),
        axis,
      );
      const array = poolOf(thread.run)?.newArray() ?? new TensorArray();
      parts.forEach((p, i) => array.write(i, p));
      out.write(scope, array);
    };
  },
});

const arrayToTensor = defineOp({
  type: "array_to_tensor",
  kernels: ["stack", "concat"],
  summary: "Out = X's tensors concatenated (or stacked) along axis",
  inputs: { X: slot.array() },
  outputs: { Out: slot.tensor(), OutIndex: slot.tensor({ optional: true }) },
  attrs: { axis: attr.int(0), use_stack: attr.bool(false) },
  prepare(ctx) {
    const x = ctx.input("X");
    const out = ctx.output("Out");
    const outIndex = ctx.optionalOutput("OutIndex");
    const { axis, use_stack } = ctx.attrs;
    return (scope, thread) => {
      const array = x.array(scope);
      // Every slot, holes too: reading a hole panics, naming its index.
      const items = Array.from(
        { length: array.length },
        (_, i) => array.read(i),
      );
      const k = thread.run.device.kernels;
      out.write(
        scope,
        use_stack ? k.stack(items, axis) : k.concat(items, axis),
      );
      if (outIndex !== undefined) {
        const sizes = items.map((t) => (use_stack ? 1 : t.shape[axis] ?? 1));
        outIndex.write(scope, Tensor.fromArray(sizes, "int32", [sizes.length]));
      }
    };
  },
});

/**
 * Every tensor array op.
 *
 * @example Usage
 * ```ts
 * import { ARRAY_OPS } from "./array.ts";
 * import { assert } from "@std/assert";
 *
 * assert(ARRAY_OPS.some((def) => def.type === "write_to_array"));
 * ```
 */
export const ARRAY_OPS: readonly OpDef[] = [
  createArray,
  writeToArray,
  readFromArray,
  arrayLength,
  splitToArray,
  arrayToTensor,
];
