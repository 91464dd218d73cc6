// Times programs on one worker and on two, for the intra-op benches: each
// executor runs every program once to warm up (its pool starts anew each
// run), then `rounds` rounds, each timing every program on one worker and
// then on two, so that a slow spell of a shared machine falls on both
// counts alike. Both counts must print the same line.

import { Executor, type Program } from "../mod.ts";

/** Wall times of a run, in ms, by workers count. */
export type WorkerTimes = Record<1 | 2, number>;

/**
 * Runs each program on one and on two workers, `rounds` times.
 *
 * @param programs Programs that print one checksum line each.
 * @param rounds Timed rounds.
 * @returns For each round, each program's times, in program order.
 * @throws {Error} If the two counts print different lines.
 */
export async function timeRounds(
  programs: readonly Program[],
  rounds: number,
): Promise<WorkerTimes[][]> {
  const lines: Record<1 | 2, string[]> = { 1: [], 2: [] };
  const executors = {} as Record<1 | 2, Executor>;
  for (const workers of [1, 2] as const) {
    executors[workers] = new Executor({
      workers,
      print: (l) => lines[workers].push(l),
    });
    for (const program of programs) await executors[workers].run(program);
  }
  const times: WorkerTimes[][] = [];
  for (let r = 0; r < rounds; r++) {
    const round = programs.map(() => ({}) as WorkerTimes);
    for (const [i, program] of programs.entries()) {
      for (const workers of [1, 2] as const) {
        const t0 = performance.now();
        await executors[workers].run(program);
        round[i][workers] = performance.now() - t0;
      }
    }
    times.push(round);
  }
  if (lines[1].join("\n") !== lines[2].join("\n")) {
    throw new Error(`outputs differ: ${lines[1]} vs ${lines[2]}`);
  }
  return times;
}

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
  const times = await timeRounds([program], rounds);
  return {
    1: median(times.map((round) => round[0][1])),
    2: median(times.map((round) => round[0][2])),
  };
}

/**
 * The median of some numbers.
 *
 * @param xs The numbers.
 * @returns Their median (the upper one of an even count).
 */
export function median(xs: readonly number[]): number {
  return xs.toSorted((a, b) => a - b)[xs.length >> 1];
}
