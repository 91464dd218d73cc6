/**
 * The two programs the decode benches read: a straight line of float32 adds
 * (one operand list per op, no attributes), and ops with three attributes
 * each, so that attribute decoding shows.
 *
 * @module
 */
import { elementwiseAdd, fillConstant, Program } from "../mod.ts";

/**
 * A straight-line program of `n` float32 adds, as bytes.
 *
 * @param n How many ops.
 */
export function longProgram(n: number): Uint8Array {
  const program = new Program();
  program.guard(() => {
    let x = fillConstant({ shape: [1], value: 1 });
    for (let i = 1; i < n; i++) x = elementwiseAdd(x, x);
  });
  return program.toBinary();
}

/**
 * `n` `fill_constant` ops, each with three attributes (shape, dtype,
 * value), as bytes.
 *
 * @param n How many ops.
 */
export function attributeProgram(n: number): Uint8Array {
  const program = new Program();
  program.guard(() => {
    for (let i = 0; i < n; i++) fillConstant({ shape: [2, 3], value: i });
  });
  return program.toBinary();
}
