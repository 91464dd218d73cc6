/**
 * A buffered channel filled in a `while` loop and then drained (csp.md):
 * ten values go into a channel of capacity 10 without any receiver, then
 * the channel is closed and read until its status turns false.
 *
 * Output: `sent 0` … `sent 9`, then `got 0` … `got 9`, then `closed false`.
 *
 * @module
 */
import {
  closeChannel,
  fillConstant,
  forRange,
  makeChannel,
  print,
  Program,
  recv,
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
    const ch = makeChannel({ capacity: 10, dtype: "int64" });
    forRange(10, (i) => {
      send(ch, i);
      print(i, { message: "sent" });
    });
    closeChannel(ch);
    const more = fillConstant({ shape: [1], dtype: "bool", value: true });
    const value = recv(ch, { status: more });
    whileLoop(more, () => {
      print(value, { message: "got" });
      recv(ch, { out: value, status: more });
    });
    print(more, { message: "closed" });
  });
  return program;
}
