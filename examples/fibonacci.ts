/**
 * Fibonacci over `select` with a quit channel (csp.md, after Go's tour): a
 * goroutine receives ten numbers and then signals quit; the main thread
 * loops on a select that either sends the next number or sees quit.
 *
 * Output: `0`, `1`, `1`, `2`, `3`, `5`, `8`, `13`, `21`, `34`, then `quit 0`.
 *
 * @module
 */
import {
  assign,
  elementwiseAdd,
  fillConstant,
  forRange,
  go,
  makeChannel,
  print,
  Program,
  recv,
  select,
  send,
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
    const c = makeChannel({ dtype: "int64" });
    const quit = makeChannel({ dtype: "int64" });
    go(() => {
      forRange(10, () => print(recv(c)));
      send(quit, fillConstant({ shape: [1], dtype: "int64", value: 0 }));
    });
    const x = fillConstant({ shape: [1], dtype: "int64", value: 0 });
    const y = fillConstant({ shape: [1], dtype: "int64", value: 1 });
    const running = fillConstant({ shape: [1], dtype: "bool", value: true });
    whileLoop(running, () => {
      select((s) => {
        s.send(c, x, () => {
          const next = elementwiseAdd(x, y);
          assign(y, { out: x });
          assign(next, { out: y });
        });
        s.recv(quit, (v) => {
          print(v, { message: "quit" });
          fillConstant({
            shape: [1],
            dtype: "bool",
            value: false,
            out: running,
          });
        });
      });
    });
  });
  return program;
}
