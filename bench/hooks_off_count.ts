/**
 * What the record/replay and trace hooks cost a run that uses neither, as
 * instructions rather than time, so that a loaded machine cannot blur it:
 * run this file under cachegrind, in this tree and in an export of a
 * commit without the hooks (`git archive 40cc38b | tar -x -C /tmp/base`,
 * this file copied in), with V8's predictable mode (one thread, no
 * concurrent JIT or GC), for two sizes of the program ping-pong:
 *
 *   valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
 *     deno run -A --no-check --v8-flags=--predictable bench/hooks_off_count.ts N
 *
 * The difference of the instruction counts (`I refs`) at N = 20,000 and at
 * N = 0 is the round trips' own, without start-up and compilation; its
 * ratio between the trees is the hooks' cost. `parallel_for` with P tiny
 * iterations (second argument, default 0) adds the other loop
 * bench/trace_off_compare.ts times. Uses only what both trees have.
 *
 * @module
 */
import {
  elementwiseAdd,
  Executor,
  fillConstant,
  go,
  increment,
  lessThan,
  makeChannel,
  parallelFor,
  Program,
  recv,
  send,
  type Variable,
  whileLoop,
} from "../mod.ts";

// `while (i < n) { body(); i++ }` with an int64 counter.
function loop(n: number, body: () => void): void {
  const i = fillConstant({ shape: [1], dtype: "int64", value: 0 });
  const limit = fillConstant({ shape: [1], dtype: "int64", value: n });
  const more = lessThan(i, limit);
  whileLoop(more, () => {
    body();
    increment(i);
    lessThan(i, limit, { out: more });
  });
}

function pingPong(n: number): Program {
  const p = new Program();
  p.guard(() => {
    const ping = makeChannel({ dtype: "int64" });
    const pong = makeChannel({ dtype: "int64" });
    go(() => loop(n, () => send(pong, recv(ping))));
    const ball = fillConstant({ shape: [1], dtype: "int64", value: 7 });
    loop(n, () => {
      send(ping, ball);
      recv(pong, { out: ball });
    });
  });
  return p;
}

function tinyIterations(n: number): Program {
  const p = new Program();
  p.guard(() => {
    parallelFor(n, (index: Variable) => {
      elementwiseAdd(
        index,
        fillConstant({ shape: [1], dtype: "int64", value: 1 }),
      );
    });
  });
  return p;
}

const roundTrips = Number(Deno.args[0] ?? 20_000);
const iterations = Number(Deno.args[1] ?? 0);
const executor = new Executor({ workers: 1 });
await executor.run(pingPong(roundTrips));
if (iterations > 0) await executor.run(tinyIterations(iterations));
