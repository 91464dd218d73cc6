/**
 * Whether a tensor fits a variable's declaration, checked before anything
 * runs: a parameter loaded from a model directory must fit in kind, dtype
 * and shape (`fitsDeclaration`); a feed (`--feed`, `run({ feeds })`) is
 * checked as Paddle checks one (`fitsFeed`): kind and dtype always, the
 * shape only when its `VarDesc` says `need_check_feed`.
 *
 * @module
 */
import type { VarDesc } from "../../gen/rill/v1/framework_pb.ts";
import type { Tensor } from "../../kernels/tensor.ts";
import { varInfoOf } from "./var_info.ts";

/**
 * A declaration as messages show it: `float32 [-1, 784]`, `int64`, `a
 * channel`.
 *
 * @param desc The declaration.
 * @returns Its text.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { VarDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { describeDeclaration } from "./declared_fit.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = create(VarDescSchema, {
 *   name: "x",
 *   type: { type: 7, lodTensor: { tensor: { dataType: 5, dims: [-1n, 784n] } } },
 * });
 * assertEquals(describeDeclaration(x), "float32 [-1, 784]");
 * ```
 */
export function describeDeclaration(desc: VarDesc): string {
  const info = varInfoOf(desc);
  if (info.kind !== "tensor") {
    return info.kind === "other" ? "not a tensor" : `a ${info.kind}`;
  }
  const parts = [info.dtype ?? "a tensor"];
  if (info.shape !== undefined) parts.push(`[${info.shape.join(", ")}]`);
  return parts.join(" ");
}

/**
 * A tensor as messages show it: `float32 [2, 3]`.
 *
 * @param t The tensor.
 * @returns Its dtype and shape.
 *
 * @example Usage
 * ```ts
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { describeTensor } from "./declared_fit.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(describeTensor(Tensor.fromArray([1n], "int64")), "int64 [1]");
 * ```
 */
export function describeTensor(t: Tensor): string {
  return `${t.dtype} [${t.shape.join(", ")}]`;
}

/**
 * Whether `t` may be bound to the variable `desc` declares: the variable
 * holds tensors, of `t`'s dtype when it declares one, and of `t`'s rank and
 * dims when it declares a shape (a -1 dim matches any size).
 *
 * @param desc The declaration.
 * @param t The tensor.
 * @returns `true` when it fits.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { VarDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { fitsDeclaration } from "./declared_fit.ts";
 * import { assert } from "@std/assert";
 *
 * const x = create(VarDescSchema, {
 *   name: "x",
 *   type: { type: 7, lodTensor: { tensor: { dataType: 5, dims: [-1n, 2n] } } },
 * });
 * assert(fitsDeclaration(x, Tensor.zeros([5, 2], "float32")));
 * assert(!fitsDeclaration(x, Tensor.zeros([2], "float32")));
 * assert(!fitsDeclaration(x, Tensor.zeros([5, 2], "float64")));
 * ```
 */
export function fitsDeclaration(desc: VarDesc, t: Tensor): boolean {
  const info = varInfoOf(desc);
  if (info.kind !== "tensor") return false;
  if (info.dtype !== undefined && info.dtype !== t.dtype) return false;
  const shape = info.shape;
  if (shape === undefined) return true;
  return shape.length === t.shape.length &&
    shape.every((d, i) => d < 0 || d === t.shape[i]);
}

/**
 * Whether `t` may be fed to the variable `desc` declares, as Paddle's
 * executor decides: the variable holds tensors, of `t`'s dtype when it
 * declares one; its declared shape binds the feed only when the `VarDesc`
 * says `need_check_feed`. Paddle 2.x's `paddle.static.data` sets that flag;
 * Fluid 1.x's `layers.data`, converters and many saved models do not, and
 * their declared dims are compile-time shapes that any batch may take (a
 * model declared `[16, 784]` runs a batch of 1). Rill's builder never sets
 * it. The check is `fitsDeclaration`'s where the flag is set.
 *
 * @param desc The declaration.
 * @param t The tensor fed.
 * @returns `true` when it may be fed.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { VarDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { fitsFeed } from "./declared_fit.ts";
 * import { assert } from "@std/assert";
 *
 * const type = { type: 7, lodTensor: { tensor: { dataType: 5, dims: [16n, 784n] } } };
 * const loose = create(VarDescSchema, { name: "x", type });
 * const checked = create(VarDescSchema, { name: "x", type, needCheckFeed: true });
 * const one = Tensor.zeros([1, 784], "float32");
 * assert(fitsFeed(loose, one));
 * assert(!fitsFeed(checked, one));
 * assert(!fitsFeed(loose, Tensor.zeros([1, 784], "float64")));
 * ```
 */
export function fitsFeed(desc: VarDesc, t: Tensor): boolean {
  if (desc.needCheckFeed) return fitsDeclaration(desc, t);
  const info = varInfoOf(desc);
  return info.kind === "tensor" &&
    (info.dtype === undefined || info.dtype === t.dtype);
}
