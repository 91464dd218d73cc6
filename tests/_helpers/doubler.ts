/**
 * A small program to feed, fetch from and save: it doubles `x` into `y`.
 *
 * @module
 */
import { defaultProgram, print, type Program, scale } from "../../mod.ts";
import { buildProgram } from "./run_program.ts";

/**
 * A program that doubles the fed `x` into `y` and prints it with the
 * message "y". Neither variable declares a shape.
 *
 * @returns The program.
 */
export function doubler(): Program {
  return buildProgram(() => {
    const b = defaultProgram().globalBlock;
    const x = b.createVar({ name: "x" });
    const y = b.createVar({ name: "y" });
    scale(x, { scale: 2, out: y });
    print(y, { message: "y" });
  })[0];
}
