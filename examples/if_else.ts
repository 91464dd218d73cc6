/**
 * If-else inside a loop: for i in 0..5, prints whether i is even or odd.
 *
 * Output: `0 is even`, `1 is odd`, ... `5 is odd` (as `even 0`, `odd 1`, ...).
 *
 * @module
 */
import {
  elementwiseMod,
  equal,
  fillConstant,
  forRange,
  ifElse,
  print,
  Program,
} from "../mod.ts";

/**
 * Builds the program.
 *
 * @returns The program.
 */
export function build(): Program {
  const program = new Program();
  program.guard(() => {
    const two = fillConstant({ shape: [1], dtype: "int64", value: 2 });
    const zero = fillConstant({ shape: [1], dtype: "int64", value: 0 });
    forRange(6, (i) => {
      const isEven = equal(elementwiseMod(i, two), zero);
      ifElse(
        isEven,
        () => print(i, { message: "even" }),
        () => print(i, { message: "odd" }),
      );
    });
  });
  return program;
}
