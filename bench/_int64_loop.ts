/**
 * The counted loop the program benches build: `while (i < n) { body(i);
 * i++ }` with an int64 counter, two scalar ops a pass besides the body.
 *
 * @module
 */
import {
  fillConstant,
  increment,
  lessThan,
  type Variable,
  whileLoop,
} from "../mod.ts";

/**
 * Builds the loop into the current block.
 *
 * @param n How many passes.
 * @param body Builds one pass's ops; gets the counter.
 */
export function loop(n: number, body: (i: Variable) => void): void {
  const i = fillConstant({ shape: [1], dtype: "int64", value: 0 });
  const limit = fillConstant({ shape: [1], dtype: "int64", value: n });
  const more = lessThan(i, limit);
  whileLoop(more, () => {
    body(i);
    increment(i);
    lessThan(i, limit, { out: more });
  });
}
