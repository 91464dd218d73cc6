/**
 * Builder for the `print` op.
 *
 * @module
 */
import { defaultProgram, type Variable } from "../build/program.ts";

/**
 * `print`: writes `<message> <value>` when the op runs.
 *
 * @param x The variable to show.
 * @param options The message, and `summarize`: the most elements of a
 * tensor to show (its first ones, flat, then `...`; default -1: all).
 *
 * @example Usage
 * ```ts
 * import { fillConstant, print, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => print(fillConstant({ shape: [1] }), { message: "x" }));
 * assertEquals(p.desc.blocks[0].ops[1].type, "print");
 * ```
 */
export function print(
  x: Variable,
  options: { message?: string; summarize?: number } = {},
): void {
  defaultProgram().currentBlock.appendOp({
    type: "print",
    inputs: { In: x },
    attrs: { message: options.message, summarize: options.summarize },
  });
}
