/**
 * `print`: one line of output per run, `<message> <value>` (docs/architecture.md §5).
 *
 * @module
 */
import { formatStrings, formatTensor } from "../../kernels/tensor_format.ts";
import { Tensor } from "../../kernels/tensor.ts";
import { AttrError } from "../core/attr_read.ts";
import { attr, defineOp, type OpDef, slot } from "../core/op_def.ts";
import { TensorArray, type Value } from "../core/value.ts";

/**
 * A value as `print` shows it: tensors per docs/architecture.md §5, RAW lists as
 * `["a", "b"]`, tensor arrays as a list of their tensors, channels as
 * `chan` (or `nil chan`). With `summarize` N ≥ 0, a tensor of more than N
 * elements shows its first N, flat, then `...` (Paddle's print op).
 *
 * @param v The value.
 * @param summarize The most elements of a tensor to show; -1: all.
 * @returns Its text.
 *
 * @example Usage
 * ```ts
 * import { formatValue } from "./print.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(formatValue(["a", "b"]), '["a", "b"]');
 * ```
 */
export function formatValue(v: Value, summarize = -1): string {
  const options = { summarize };
  if (v instanceof Tensor) return formatTensor(v, options);
  if (v instanceof TensorArray) {
    const items = v.snapshot().map((t) =>
      t ? formatTensor(t, options) : "<empty>"
    );
    return `[${items.join(", ")}]`;
  }
  if (Array.isArray(v)) return formatStrings(v);
  return v === null ? "nil chan" : "chan";
}

const print = defineOp({
  type: "print",
  impure: () => "prints",
  summary: "writes `<message> <value>` as one line to stdout",
  // The value is formatted during the call; Out, if given, is the value.
  inputs: { In: slot.any({ transient: true }) },
  outputs: { Out: slot.any({ optional: true, aliasOf: "In" }) },
  attrs: {
    message: attr.string(""),
    // Fluid's print carries these; Rill accepts them and prints as §5
    // says, showing at most `summarize` elements of a tensor (-1: all).
    first_n: attr.int(-1),
    summarize: attr.int(-1),
    print_tensor_name: attr.bool(true),
    print_tensor_type: attr.bool(true),
    print_tensor_shape: attr.bool(true),
    print_tensor_lod: attr.bool(true),
    print_phase: attr.string("BOTH"),
  },
  check(a) {
    if (a.summarize < -1) {
      throw new AttrError("summarize", `${a.summarize} is below -1 (all)`);
    }
  },
  prepare(ctx) {
    const input = ctx.input("In");
    const out = ctx.optionalOutput("Out");
    const prefix = ctx.attrs.message === "" ? "" : ctx.attrs.message + " ";
    const summarize = ctx.attrs.summarize;
    return (scope, thread) => {
      const v = input.read(scope);
      if (v === undefined) input.tensor(scope); // panics: read before written
      thread.run.print(prefix + formatValue(v, summarize));
      out?.write(scope, v);
    };
  },
});

/**
 * The output ops.
 *
 * @example Usage
 * ```ts
 * import { PRINT_OPS } from "./print.ts";
 * import { assert } from "@std/assert";
 *
 * assert(PRINT_OPS.some((def) => def.type === "print"));
 * ```
 */
export const PRINT_OPS: readonly OpDef[] = [print];
