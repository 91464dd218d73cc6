/**
 * An arithmetic op's scalar path into a private output (runtime/exec/
 * private_variables.ts): the op keeps the tensor its path made and bound
 * to the output, and while the output still holds it, the next result is
 * written into its one element. A loop's `total += i` then costs a load,
 * an add and a store.
 *
 * Invariants:
 *   `mine` is a tensor the scalar path made at this site (never a shared
 *   constant, never an operand); the output's variable is private, so
 *   while it holds `mine`, nothing else refers to it.
 *   Whether the path applies, the result's dtype and shape, and whether it
 *   fits `mine` depend only on the operands' dtypes and shapes and the
 *   device, which never change for a given tensor and device: a call with
 *   the operands and device of the call that last made or filled `mine`,
 *   while the output holds `mine`, writes into `mine` with the same
 *   element function, checking nothing again.
 *
 * @module
 */
import type { Device } from "../../kernels/device.ts";
import type { BinaryKind } from "../../kernels/kernel_kinds.ts";
import type { TypedArray } from "../../kernels/dtype.ts";
import type { Tensor } from "../../kernels/tensor.ts";
import { scalarArithmetic, type ScalarPath } from "./scalar_path.ts";

/** Writes `a[0] op b[0]` into `out[0]`, for one dtype's storage. */
type ElementWrite = (out: TypedArray, a: TypedArray, b: TypedArray) => void;

// One function literal per kind and storage type, so that each call site
// that sees one of them can inline it.
const WRITES: Readonly<Record<string, ElementWrite>> = {
  "add int64": (o, a, b) => o[0] = (a[0] as bigint) + (b[0] as bigint),
  "sub int64": (o, a, b) => o[0] = (a[0] as bigint) - (b[0] as bigint),
  "mul int64": (o, a, b) => o[0] = (a[0] as bigint) * (b[0] as bigint),
  "add int32": (o, a, b) => o[0] = (a[0] as number) + (b[0] as number),
  "sub int32": (o, a, b) => o[0] = (a[0] as number) - (b[0] as number),
  "mul int32": (o, a, b) => o[0] = Math.imul(a[0] as number, b[0] as number),
  "add float": (o, a, b) => o[0] = (a[0] as number) + (b[0] as number),
  "sub float": (o, a, b) => o[0] = (a[0] as number) - (b[0] as number),
  "mul float": (o, a, b) => o[0] = (a[0] as number) * (b[0] as number),
};

function writeOf(kind: BinaryKind, t: Tensor): ElementWrite | undefined {
  const storage = t.dtype === "float32" || t.dtype === "float64"
    ? "float"
    : t.dtype;
  return WRITES[`${kind} ${storage}`];
}

/**
 * One op's in-place scalar arithmetic.
 *
 * @example Usage
 * ```ts
 * import { InPlaceScalar } from "./in_place_scalar.ts";
 * import { cpuDevice } from "../../kernels/cpu/device.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const add = InPlaceScalar.of("add")!;
 * const one = Tensor.scalar(1n, "int64");
 * let total = add.apply(cpuDevice, one, one, undefined)!; // made: 2
 * const made = total;
 * total = add.apply(cpuDevice, total, one, total)!; // written into: 3
 * total = add.apply(cpuDevice, total, one, total)!; // the same: 4
 * assertEquals([total === made, total.item(0)], [true, 4n]);
 * ```
 */
export class InPlaceScalar {
  readonly #kind: BinaryKind;
  readonly #path: ScalarPath;
  #mine: Tensor | undefined;
  // The operands and device of the call that last made or filled #mine.
  #a: Tensor | undefined;
  #b: Tensor | undefined;
  #device: Device | undefined;
  #write: ElementWrite | undefined;

  private constructor(kind: BinaryKind, path: ScalarPath) {
    this.#kind = kind;
    this.#path = path;
  }

  /**
   * The in-place arithmetic of `kind`, where it has a scalar path.
   *
   * @param kind The arithmetic.
   * @returns A new site, or `undefined`.
   */
  static of(kind: BinaryKind): InPlaceScalar | undefined {
    const path = scalarArithmetic(kind);
    return path === undefined ? undefined : new InPlaceScalar(kind, path);
  }

  /**
   * `a op b` as the scalar path computes it, written into the tensor this
   * site made where `held`, what the private output holds now, is that
   * tensor; `undefined` where the scalar path does not apply.
   *
   * @param device The run's device.
   * @param a The left operand.
   * @param b The right operand.
   * @param held The output variable's value now.
   * @returns The result to bind (`held` itself when written into).
   */
  apply(
    device: Device,
    a: Tensor,
    b: Tensor,
    held: unknown,
  ): Tensor | undefined {
    const mine = this.#mine;
    if (
      held === mine && a === this.#a && b === this.#b &&
      device === this.#device && mine !== undefined
    ) {
      this.#write!(mine.data, a.data, b.data);
      return mine;
    }
    const made = this.#path(device, a, b, held === mine ? mine : undefined);
    if (made === undefined) return undefined;
    this.#mine = made;
    this.#a = a;
    this.#b = b;
    this.#device = device;
    this.#write = writeOf(this.#kind, made);
    return made;
  }
}
