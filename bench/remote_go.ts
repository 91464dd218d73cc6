// The cost of a `go` onto another worker, inside a program: main spawns
// `count` movable goroutines, each sending one value back; placement puts
// every other one on the second worker. Reported per goroutine, for
// --workers 1 and 2, each run in this process (start-up excluded: one
// warm-up run first).
//
//   deno run -A bench/remote_go.ts [count]

import {
  Executor,
  fillConstant,
  forRange,
  go,
  makeChannel,
  Program,
  recv,
  send,
} from "../mod.ts";

const count = Number(Deno.args[0] ?? 10_000);

function build(): Program {
  const program = new Program();
  program.guard(() => {
    const done = makeChannel({ capacity: 1024, dtype: "int64" });
    const one = fillConstant({ shape: [1], dtype: "int64", value: 1 });
    forRange(count, () => go(() => send(done, one)));
    forRange(count, () => {
      recv(done);
    });
  });
  return program;
}

const program = build();
for (const workers of [1, 2]) {
  const executor = new Executor({ workers, print: () => {} });
  await executor.run(program); // warm-up (and the pool's start-up)
  const times: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    await executor.run(program);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(
    `--workers ${workers}: ${count} goroutines in ${
      times[2].toFixed(0)
    } ms median (${(times[2] * 1000 / count).toFixed(1)} µs each, ` +
      `pool start-up included)`,
  );
}
