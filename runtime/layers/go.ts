/**
 * Builders for the ops that start green threads: `go(() => ...)` builds its
 * body into a new child block, run on a new green thread;
 * `parallelFor(n, (index) => ...)` builds one run on n threads.
 *
 * @module
 */
import { outerVariables } from "../build/outer_variables.ts";
import { defaultProgram, type Variable } from "../build/program.ts";
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

/**
 * `parallel_for`: runs `body` on `n` green threads at once, each in its own
 * scope with `index` = 0 … n-1 (int64 [1]), and waits until all have
 * finished. Iterations share the enclosing variables: write results into a
 * tensor array by index (`arrayWrite(y, index, x)`), each into its own slot.
 *
 * @param n The number of iterations: a number, or an integer tensor of one
 * element read when the op runs.
 * @param body Builds the iteration's block; gets its index variable.
 *
 * @example Usage
 * ```ts
 * import { arrayToTensor, arrayWrite, cast, createArray, Executor, parallelFor, print, Program, scale } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const squares = createArray({ dtype: "float32" });
 *   parallelFor(4, (index) => {
 *     const x = cast(index, "float32");
 *     arrayWrite(scale(x, { scale: 10 }), index, squares);
 *   });
 *   print(arrayToTensor(squares));
 * });
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["[0, 10, 20, 30]"]);
 * ```
 */
export function parallelFor(
  n: number | Variable,
  body: (index: Variable) => void,
): void {
  const program = defaultProgram();
  const outer = program.currentBlock;
  let index: Variable | undefined;
  const block = program.subBlock(() => {
    index = program.currentBlock.createVar({
      name: program.uniqueName("parallel_for.index"),
      dtype: "int64",
      shape: [1],
    });
    body(index);
  });
  const { reads, writes } = outerVariables(block);
  const counted = typeof n === "number";
  outer.appendOp({
    type: "parallel_for",
    inputs: { X: reads, Num: counted ? undefined : n },
    outputs: { Out: writes },
    attrs: {
      sub_block: block,
      num: counted ? n : undefined,
      index_var: index!.name,
    },
  });
}
