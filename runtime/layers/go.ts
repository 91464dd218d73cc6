/**
 * Builder for the `go` op: `go(() => ...)` builds its body into a new child
 * block, run on a new green thread.
 *
 * @module
 */
import { outerVariables } from "../free_variables.ts";
import { defaultProgram, type Variable } from "../program.ts";
import { uniqueByName } from "./append_layer.ts";

/** Options of `go`. */
export interface GoOptions {
  /** Variables bound by value when the `go` op runs (a Go call's arguments). */
  args?: readonly Variable[];
}

/**
 * `go`: runs `body` on a new green thread. Variables the body uses resolve
 * by reference, like a Go closure, except `args`, copied when the op runs.
 *
 * @param body Builds the goroutine's block.
 * @param options Arguments bound by value.
 *
 * @example Usage
 * ```ts
 * import { Executor, fillConstant, go, makeChannel, print, Program, recv, send } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const ch = makeChannel();
 *   go(() => send(ch, fillConstant({ shape: [1], dtype: "int32", value: 99 })));
 *   print(recv(ch));
 * });
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["99"]);
 * ```
 */
export function go(body: () => void, options: GoOptions = {}): void {
  const program = defaultProgram();
  const outer = program.currentBlock;
  const block = program.subBlock(body);
  const { reads, writes } = outerVariables(block);
  outer.appendOp({
    type: "go",
    inputs: {
      X: uniqueByName([...reads, ...writes]),
      Args: options.args ?? [],
    },
    attrs: { sub_block: block },
  });
}
