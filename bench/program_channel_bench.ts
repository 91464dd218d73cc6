/**
 * A channel op inside an interpreted program (bench/README.md, "Targets": bar ≤ 1 µs,
 * goal ≤ 0.3 µs per channel op). `deno bench -A bench/program_channel_bench.ts`
 *
 * - buffered: a goroutine sends N values on a capacity-100 channel in a
 *   `while` loop and main receives them in another: 2N channel ops.
 * - ping-pong: two green threads bounce a value over two unbuffered
 *   channels: 4 channel ops per round trip.
 *
 * Each group has a baseline with the same `while` loops and no channel op,
 * so (time − baseline) / channel ops is the cost of one channel op; the
 * numbers to divide by are in the bench names.
 *
 * @module
 */
import { Executor } from "../mod.ts";
import { bufferedProgram, pingPongProgram } from "./_channel_programs.ts";

const N = 100_000;
const ROUND_TRIPS = 50_000;

const executor = new Executor();
const programs = {
  buffered: bufferedProgram(N, true),
  bufferedBaseline: bufferedProgram(N, false),
  pingPong: pingPongProgram(ROUND_TRIPS, true),
  pingPongBaseline: pingPongProgram(ROUND_TRIPS, false),
};

Deno.bench({
  name: `buffered cap 100, ${N} values (divide by ${2 * N} channel ops)`,
  group: "buffered",
  async fn() {
    await executor.run(programs.buffered);
  },
});

Deno.bench({
  name: `buffered baseline: the same loops, no channel op`,
  group: "buffered",
  baseline: true,
  async fn() {
    await executor.run(programs.bufferedBaseline);
  },
});

Deno.bench({
  name: `unbuffered ping-pong, ${ROUND_TRIPS} round trips (divide by ${
    4 * ROUND_TRIPS
  } channel ops)`,
  group: "ping-pong",
  async fn() {
    await executor.run(programs.pingPong);
  },
});

Deno.bench({
  name: `ping-pong baseline: the same loops, no channel op`,
  group: "ping-pong",
  baseline: true,
  async fn() {
    await executor.run(programs.pingPongBaseline);
  },
});
