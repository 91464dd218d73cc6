/**
 * `select` with send, receive and default cases (csp.md). The first select
 * finds nothing to receive and takes the default; once a value is buffered
 * the second takes the receive; the third finds room to send.
 *
 * Output: `default -1`, `received 42`, `sent 7`.
 *
 * @module
 */
import {
  fillConstant,
  makeChannel,
  print,
  Program,
  select,
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
    const ch = makeChannel({ capacity: 1, dtype: "int32" });
    const none = fillConstant({ shape: [1], dtype: "int32", value: -1 });
    const answer = fillConstant({ shape: [1], dtype: "int32", value: 42 });
    const seven = fillConstant({ shape: [1], dtype: "int32", value: 7 });
    select((s) => {
      s.recv(ch, (v) => print(v, { message: "received" }));
      s.default(() => print(none, { message: "default" }));
    });
    send(ch, answer);
    select((s) => {
      s.recv(ch, (v) => print(v, { message: "received" }));
      s.default(() => print(none, { message: "default" }));
    });
    select((s) => {
      s.send(ch, seven, () => print(seven, { message: "sent" }));
      s.default(() => print(none, { message: "default" }));
    });
  });
  return program;
}
