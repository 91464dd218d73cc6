/**
 * The design doc's first program: `X = assign(...)`, `W = tensor`,
 * `Y = mult(X, W)`, `print(Y)`.
 *
 * Output: `Y [[5, 11], [11, 25]]`
 *
 * @module
 */
import { assignValue, mul, print, Program } from "../mod.ts";

/**
 * Builds the program.
 *
 * @returns The program.
 */
export function build(): Program {
  const program = new Program();
  program.guard(() => {
    const x = assignValue([1, 2, 3, 4], { shape: [2, 2] });
    const w = assignValue([1, 3, 2, 4], { shape: [2, 2] });
    print(mul(x, w), { message: "Y" });
  });
  return program;
}
