/**
 * What run traces cost (issue 20: off ≤ 2 % apart from a build without the
 * hooks, on ≤ 1 µs per event). `deno bench -A bench/trace_bench.ts`
 *
 * - ping-pong: two green threads bounce a value over two unbuffered
 *   channels, 20,000 round trips: every op parks or wakes a thread.
 * - parallel_for: 5,000 iterations of a few scalar ops on one worker, each
 *   a green thread that starts, runs and ends.
 *
 * Each runs untraced and traced (`Executor`'s `trace` option, the events
 * discarded). (traced − untraced) / events is the cost of one event; the
 * numbers of events are in the bench names. The untraced rows are the ones
 * to run against a build without the hooks (that build has no `trace`
 * option: `deno bench -A --no-check --filter untraced`).
 *
 * @module
 */
import {
  elementwiseAdd,
  Executor,
  fillConstant,
  parallelFor,
  Program,
  type Variable,
} from "../mod.ts";
import { pingPongProgram } from "./_channel_programs.ts";

const ROUND_TRIPS = 20_000;
const ITERATIONS = 5_000;

function manyIterations(): Program {
  const program = new Program();
  program.guard(() => {
    parallelFor(ITERATIONS, (index: Variable) => {
      const one = fillConstant({ shape: [1], dtype: "int64", value: 1 });
      elementwiseAdd(index, one);
    });
  });
  return program;
}

const programs = {
  pingPong: pingPongProgram(ROUND_TRIPS, true),
  parallelFor: manyIterations(),
};
const untraced = new Executor({ workers: 1 });
let events = 0;
const traced = new Executor({ workers: 1, trace: (e) => events = e.length });

// How many events a traced run of each program records.
await traced.run(programs.pingPong);
const pingPongEvents = events;
await traced.run(programs.parallelFor);
const parallelForEvents = events;

Deno.bench({
  name: `ping-pong, ${ROUND_TRIPS} round trips, untraced`,
  group: "ping-pong",
  baseline: true,
  async fn() {
    await untraced.run(programs.pingPong);
  },
});

Deno.bench({
  name: `ping-pong traced (divide the difference by ${pingPongEvents} events)`,
  group: "ping-pong",
  async fn() {
    await traced.run(programs.pingPong);
  },
});

Deno.bench({
  name: `parallel_for, ${ITERATIONS} iterations, untraced`,
  group: "parallel_for",
  baseline: true,
  async fn() {
    await untraced.run(programs.parallelFor);
  },
});

Deno.bench({
  name:
    `parallel_for traced (divide the difference by ${parallelForEvents} events)`,
  group: "parallel_for",
  async fn() {
    await traced.run(programs.parallelFor);
  },
});
