/**
 * The concurrent prime sieve (Go's classic, in csp.md's style): a generator
 * goroutine sends 2, 3, 4, …; each prime found starts a filter goroutine
 * that drops its multiples. The filter's channels and prime are its `Args`,
 * bound by value, so each goroutine keeps its own even as the main loop
 * moves on.
 *
 * Output: the first ten primes, `prime 2` … `prime 29`.
 *
 * @module
 */
import {
  assign,
  elementwiseMod,
  fillConstant,
  forRange,
  go,
  ifElse,
  increment,
  makeChannel,
  notEqual,
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
    const forever = fillConstant({ shape: [1], dtype: "bool", value: true });
    const zero = fillConstant({ shape: [1], dtype: "int64", value: 0 });
    const ch = makeChannel({ dtype: "int64" });
    go(() => {
      const n = fillConstant({ shape: [1], dtype: "int64", value: 2 });
      whileLoop(forever, () => {
        send(ch, n);
        increment(n);
      });
    }, { args: [ch] }); // by value: the main loop rebinds `ch` below
    forRange(10, () => {
      const prime = recv(ch);
      print(prime, { message: "prime" });
      const next = makeChannel({ dtype: "int64" });
      const input = assign(ch);
      go(() => {
        whileLoop(forever, () => {
          const candidate = recv(input);
          ifElse(
            notEqual(elementwiseMod(candidate, prime), zero),
            () => send(next, candidate),
          );
        });
      }, { args: [input, next, prime] });
      assign(next, { out: ch });
    });
  });
  return program;
}
