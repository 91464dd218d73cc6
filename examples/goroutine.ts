/**
 * An unbuffered channel between the main green thread and a goroutine
 * (csp.md): the goroutine computes and sends, the main thread receives.
 * `Args` binds `x` by value: the later write to `x` does not reach it.
 *
 * Output: `received 99`, then `x is now 0`.
 *
 * @module
 */
import {
  elementwiseAdd,
  fillConstant,
  go,
  makeChannel,
  print,
  Program,
  recv,
  send,
} from "../mod.ts";

/**
 * Builds the program.
 *
 * @returns The program.
 */
export function build(): Program {
  const program = new Program();
  program.guard(() => {
    const ch = makeChannel({ dtype: "int32" });
    const x = fillConstant({ shape: [1], dtype: "int32", value: 90 });
    go(() => {
      const nine = fillConstant({ shape: [1], dtype: "int32", value: 9 });
      send(ch, elementwiseAdd(x, nine));
    }, { args: [x] });
    fillConstant({ shape: [1], dtype: "int32", value: 0, out: x });
    print(recv(ch), { message: "received" });
    print(x, { message: "x is now" });
  });
  return program;
}
