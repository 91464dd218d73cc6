/**
 * The channel programs the benches run (`program_channel_bench.ts`,
 * `program_channel_rounds.ts`, and the ping-pong of `trace_bench.ts` and
 * `trace_off_compare.ts`): a buffered producer and consumer, and an
 * unbuffered ping-pong, each with a baseline that keeps the loops and drops
 * the channel ops; and the ping-pong with a select-heavy fan-in that
 * `record_replay.ts` and `record_count.ts` record and replay.
 *
 * @module
 */
import {
  fillConstant,
  go,
  makeChannel,
  Program,
  recv,
  select,
  send,
} from "../mod.ts";
import { loop } from "./_int64_loop.ts";

/**
 * A goroutine sends `n` values on a capacity-100 channel in a `while`
 * loop and main receives them in another: 2n channel ops.
 *
 * @param n How many values.
 * @param withChannel False for the baseline: the same loops, no channel op.
 */
export function bufferedProgram(n: number, withChannel: boolean): Program {
  const program = new Program();
  program.guard(() => {
    const ch = makeChannel({ capacity: 100, dtype: "int64" });
    const done = makeChannel({ dtype: "int64" });
    go(() => {
      loop(n, (i) => withChannel && send(ch, i));
      send(done, fillConstant({ shape: [1], dtype: "int64", value: 0 }));
    });
    loop(n, () => withChannel && recv(ch));
    recv(done);
  });
  return program;
}

/**
 * Two green threads bounce a value over two unbuffered channels `trips`
 * times: 4 channel ops per round trip.
 *
 * @param trips How many round trips.
 * @param withChannel False for the baseline: the same loops, no channel op.
 */
export function pingPongProgram(trips: number, withChannel: boolean): Program {
  const program = new Program();
  program.guard(() => {
    const ping = makeChannel({ dtype: "int64" });
    const pong = makeChannel({ dtype: "int64" });
    const done = makeChannel({ dtype: "int64" });
    go(() => {
      loop(trips, () => withChannel && send(pong, recv(ping)));
      send(done, fillConstant({ shape: [1], dtype: "int64", value: 0 }));
    });
    const ball = fillConstant({ shape: [1], dtype: "int64", value: 7 });
    loop(trips, () => {
      if (!withChannel) return;
      send(ping, ball);
      recv(pong, { out: ball });
    });
    recv(done);
  });
  return program;
}

/**
 * A ping-pong of `trips` round trips over two unbuffered channels, then a
 * select-heavy fan-in (two producers, `fanIn` values each, received
 * through a 2-case select): every op is a channel attempt that a
 * recording notes or a replay orders.
 *
 * @param trips How many round trips.
 * @param fanIn How many values each producer sends.
 */
export function recordedProgram(trips: number, fanIn: number): Program {
  const program = new Program();
  program.guard(() => {
    const ping = makeChannel({ dtype: "int64" });
    const pong = makeChannel({ dtype: "int64" });
    go(() => loop(trips, () => send(pong, recv(ping))));
    const ball = fillConstant({ shape: [1], dtype: "int64", value: 7 });
    loop(trips, () => {
      send(ping, ball);
      recv(pong, { out: ball });
    });
    const a = makeChannel({ dtype: "int64", capacity: 4 });
    const b = makeChannel({ dtype: "int64", capacity: 4 });
    for (const ch of [a, b]) {
      go(() => {
        const v = fillConstant({ shape: [1], dtype: "int64", value: 1 });
        loop(fanIn, () => send(ch, v));
      });
    }
    loop(2 * fanIn, () => {
      select((s) => {
        s.recv(a, () => {});
        s.recv(b, () => {});
      });
    });
  });
  return program;
}
