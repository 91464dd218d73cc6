/**
 * The buffered program of `program_channel_bench.ts` (a goroutine sends
 * 100,000 values on a capacity-100 channel, main receives them: 200,000
 * channel ops) and its baseline without the channel ops, with the figures
 * `deno bench` does not print: the median run, and the CPU time per run
 * (every thread of the process, the garbage collector's helpers included),
 * which moves less than wall time when other processes share the cores.
 *
 * `deno run -A bench/program_channel_rounds.ts [runs] [baseline]` (default
 * 30 runs, after 5 warm-up runs; `baseline` runs the loops alone)
 *
 * @module
 */
import process from "node:process";
import { Executor } from "../mod.ts";
import { bufferedProgram } from "./_channel_programs.ts";

const N = 100_000;
const runs = Number(Deno.args[0] ?? 30);
const withChannel = Deno.args[1] !== "baseline";
const executor = new Executor();
const program = bufferedProgram(N, withChannel);
for (let i = 0; i < 5; i++) await executor.run(program);
const times: number[] = [];
const cpu = process.cpuUsage();
for (let i = 0; i < runs; i++) {
  const start = performance.now();
  await executor.run(program);
  times.push(performance.now() - start);
}
const used = process.cpuUsage(cpu);
times.sort((a, b) => a - b);
const perOp = (ms: number) => (ms * 1e6 / (2 * N)).toFixed(0);
const median = times[Math.floor((times.length - 1) / 2)];
const cpuPerRun = (used.user + used.system) / 1000 / runs;
console.log(
  `${withChannel ? "buffered cap 100" : "baseline, no channel op"}: ` +
    `min ${times[0].toFixed(1)} ms (${perOp(times[0])} ns per channel op), ` +
    `median ${median.toFixed(1)} (${perOp(median)}), ` +
    `CPU ${cpuPerRun.toFixed(1)} ms per run (${perOp(cpuPerRun)})`,
);
