// Whether the trace hooks cost an untraced run anything: copy this file into
// an export of a commit without them (`git archive C | tar -x -C /tmp/base`)
// and run it there and here in turn, several rounds:
//
//   deno run -A --no-check bench/trace_off_compare.ts
//
// Three loops that stress the hooks: a program ping-pong (every op parks
// or wakes a thread), a parallel_for of tiny iterations on one worker
// (every iteration a thread that starts and ends), the TS API's ping-pong
// (the scheduler's park and wake alone). Each prints the best and the
// median of its runs, in wall time and in the process's CPU time, which a
// loaded machine disturbs less. It uses only what both builds have.

import { cpuUsage } from "node:process";
import {
  elementwiseAdd,
  Executor,
  fillConstant,
  parallelFor,
  Program,
  type Variable,
} from "../mod.ts";
import { pingPongProgram } from "./_channel_programs.ts";
import { makeChannel as makeTsChannel, Scheduler } from "../scheduler/mod.ts";

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

async function tsPingPong(n: number): Promise<void> {
  const s = new Scheduler({ seed: 1 });
  await s.run(async () => {
    const a = makeTsChannel<number>();
    const b = makeTsChannel<number>();
    s.go(async () => {
      for (let i = 0; i < n; i++) {
        const v = b.recv();
        if (v instanceof Promise) await v;
        const w = a.send(1);
        if (w) await w;
      }
    });
    for (let i = 0; i < n; i++) {
      const w = b.send(1);
      if (w) await w;
      const v = a.recv();
      if (v instanceof Promise) await v;
    }
  });
}

async function time(
  label: string,
  reps: number,
  fn: () => Promise<unknown>,
): Promise<void> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < reps; i++) {
    const start = performance.now();
    const used = cpuUsage();
    await fn();
    const d = cpuUsage(used);
    wall.push(performance.now() - start);
    cpu.push((d.user + d.system) / 1000);
  }
  const sorted = (xs: number[]) => xs.sort((a, b) => a - b);
  const [w, c] = [sorted(wall), sorted(cpu)];
  const mid = reps >> 1;
  console.log(
    `${label} (ms): wall best ${w[0].toFixed(2)} median ${
      w[mid].toFixed(2)
    } | cpu best ${c[0].toFixed(2)} median ${c[mid].toFixed(2)}`,
  );
}

const executor = new Executor({ workers: 1 });
const pp = pingPongProgram(20_000, true);
const pf = tinyIterations(50_000);
for (let i = 0; i < 3; i++) { // warm-up
  await executor.run(pp);
  await executor.run(pf);
  await tsPingPong(100_000);
}
await time("program ping-pong, 20,000 round trips", 30, () => executor.run(pp));
await time("parallel_for, 50,000 iterations", 20, () => executor.run(pf));
await time("TS ping-pong, 100,000 round trips", 30, () => tsPingPong(100_000));
