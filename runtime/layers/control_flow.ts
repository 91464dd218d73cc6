/**
 * Control flow builders that take callbacks: `whileLoop`, `ifElse`,
 * `forRange`. Each builds its body into a new child block and appends the
 * op that runs it, listing the body's free variables as Fluid does.
 *
 * @module
 */
import { outerVariables } from "../build/outer_variables.ts";
import { defaultProgram, type Variable } from "../build/program.ts";
import { lessThan, logicalNot } from "./elementwise.ts";
import { fillConstant, increment } from "./values.ts";

/**
 * `while`: runs `body` while `cond` is true. The body must update `cond`
 * (e.g. `lessThan(i, n, { out: cond })`); it is re-read after each pass.
 *
 * @param cond A bool variable of one element.
 * @param body Builds the loop body.
 *
 * @example Usage
 * ```ts
 * import { Executor, fillConstant, increment, lessThan, print, Program, whileLoop } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const i = fillConstant({ shape: [1], dtype: "int64", value: 0 });
 *   const n = fillConstant({ shape: [1], dtype: "int64", value: 3 });
 *   const cond = lessThan(i, n);
 *   whileLoop(cond, () => {
 *     increment(i);
 *     lessThan(i, n, { out: cond });
 *   });
 *   print(i);
 * });
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["3"]);
 * ```
 */
export function whileLoop(cond: Variable, body: () => void): void {
  const program = defaultProgram();
  const outer = program.currentBlock;
  const block = program.subBlock(body);
  const { reads, writes } = outerVariables(block);
  const stepScopes = outer.createVar({
    name: program.uniqueName("while.step_scopes"),
    kind: "step_scopes",
  });
  outer.appendOp({
    type: "while",
    inputs: { X: reads, Condition: cond },
    outputs: { Out: writes, StepScopes: stepScopes },
    attrs: { sub_block: block },
  });
}

function conditional(cond: Variable, body: () => void): void {
  const program = defaultProgram();
  const outer = program.currentBlock;
  const block = program.subBlock(body);
  const { reads, writes } = outerVariables(block);
  outer.appendOp({
    type: "conditional_block",
    inputs: { Cond: cond, Input: reads },
    outputs: { Out: writes },
    attrs: { sub_block: block, is_scalar_condition: true },
  });
}

/**
 * `if`/`else`: runs `then` when `cond` is true, else `otherwise`. Built as
 * two `conditional_block` ops, the second on `logical_not(cond)`, which is
 * computed before `then` runs so `then` may change `cond` safely.
 *
 * @param cond A bool variable of one element.
 * @param then Builds the true branch.
 * @param otherwise Builds the false branch.
 *
 * @example Usage
 * ```ts
 * import { Executor, fillConstant, greaterThan, ifElse, print, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const x = fillConstant({ shape: [1], value: 5 });
 *   const y = fillConstant({ shape: [1], value: 2 });
 *   ifElse(greaterThan(x, y), () => print(x), () => print(y));
 * });
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["5"]);
 * ```
 */
export function ifElse(
  cond: Variable,
  then: () => void,
  otherwise?: () => void,
): void {
  const negated = otherwise && logicalNot(cond);
  conditional(cond, then);
  if (otherwise && negated) conditional(negated, otherwise);
}

/**
 * A counted loop: runs `body(i)` for i = 0, 1, ... n-1 (an int64 counter),
 * built as a `while`.
 *
 * @param n The count, a number or an int64 variable.
 * @param body Builds the body; gets the counter.
 *
 * @example Usage
 * ```ts
 * import { Executor, forRange, print, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => forRange(3, (i) => print(i)));
 * const lines: string[] = [];
 * await new Executor({ print: (l) => lines.push(l) }).run(p);
 * assertEquals(lines, ["0", "1", "2"]);
 * ```
 */
export function forRange(
  n: number | Variable,
  body: (i: Variable) => void,
): void {
  const limit = typeof n === "number"
    ? fillConstant({ shape: [1], dtype: "int64", value: n })
    : n;
  const i = fillConstant({ shape: [1], dtype: "int64", value: 0 });
  const cond = lessThan(i, limit);
  whileLoop(cond, () => {
    body(i);
    increment(i);
    lessThan(i, limit, { out: cond });
  });
}
