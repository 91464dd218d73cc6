// Times a program on one worker and on two, for the intra-op benches: each
// executor runs it once to warm up (and start its pool), then `rounds`
// timed runs; the two must print the same line.

import { Executor, type Program } from "../mod.ts";

/** Median wall time of a run, in ms, by workers count. */
export type WorkerTimes = Record<1 | 2, number>;

/**
 * Runs `program` on one and on two workers.
 *
 * @param program A program that prints one checksum line.
 * @param rounds Timed runs per workers count.
 * @returns The median run time for each count.
 * @throws {Error} If the two print different lines.
 */
export async function timeOneAndTwoWorkers(
  program: Program,
  rounds: number,
): Promise<WorkerTimes> {
  const lines: string[] = [];
  const times = {} as WorkerTimes;
  for (const workers of [1, 2] as const) {
    let line = "";
    const executor = new Executor({ workers, print: (l) => line = l });
    await executor.run(program);
    const runs: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const t0 = performance.now();
      await executor.run(program);
      runs.push(performance.now() - t0);
    }
    runs.sort((a, b) => a - b);
    times[workers] = runs[Math.floor(rounds / 2)];
    lines.push(line);
  }
  if (lines[0] !== lines[1]) {
    throw new Error(`outputs differ: ${lines[0]} vs ${lines[1]}`);
  }
  return times;
}
