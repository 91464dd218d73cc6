/**
 * A `while` loop: sums 1..10 with an int64 counter, printing each partial
 * sum, then the total.
 *
 * Output: `sum 1`, `sum 3`, ..., `sum 55`, then `total 55`.
 *
 * @module
 */
import {
  elementwiseAdd,
  fillConstant,
  increment,
  lessEqual,
  print,
  Program,
  whileLoop,
} from "../mod.ts";

/**
 * Builds the program.
 *
 * @returns The program.
 */
export function build(): Program {
  const program = new Program();
  program.guard(() => {
    const i = fillConstant({ shape: [1], dtype: "int64", value: 1 });
    const n = fillConstant({ shape: [1], dtype: "int64", value: 10 });
    const total = fillConstant({ shape: [1], dtype: "int64", value: 0 });
    const cond = lessEqual(i, n);
    whileLoop(cond, () => {
      elementwiseAdd(total, i, { out: total });
      print(total, { message: "sum" });
      increment(i);
      lessEqual(i, n, { out: cond });
    });
    print(total, { message: "total" });
  });
  return program;
}
