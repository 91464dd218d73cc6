/**
 * What `--record` and `--replay` cost (issue 20: recording ≤ 1.5 ×, replay
 * ≤ 3 × a plain run). `deno run -A bench/record_replay.ts [rounds] [pooled rounds]`
 * (0 pooled rounds: one worker only; with `--v8-flags=--single-threaded`
 * the GC runs on the run's thread, and CPU time is the run's alone)
 *
 * The program: a ping-pong of 10,000 round trips over two unbuffered
 * channels, then a select-heavy fan-in (two producers, 2,000 values each,
 * received through a 2-case select): every op is a channel attempt that
 * the gate records or orders. Each runs plain, recorded (the record
 * encoded, then dropped) and replayed (from a record made once, before
 * the rounds), on one worker and on two (the producers may move). The
 * three alternate within each round; it prints the medians of wall and
 * CPU time, and each one's ratio to the plain run.
 *
 * @module
 */
import { cpuUsage } from "node:process";
import { Executor, type ExecutorOptions } from "../mod.ts";
import { recordedProgram } from "./_channel_programs.ts";
import { decodeSchedule } from "../runtime/core/schedule_file.ts";

const program = recordedProgram(10_000, 2_000);
const quiet = () => {};

async function recorded(workers: number) {
  let bytes = new Uint8Array() as Uint8Array;
  await new Executor({
    workers,
    seed: 1,
    print: quiet,
    schedule: { record: (b) => bytes = b },
  }).run(program.desc);
  return decodeSchedule(bytes, "bench");
}

// One run's wall and CPU time (ms); CPU time counts every thread of the
// process, which a loaded machine disturbs less than wall time.
async function timed(options: ExecutorOptions): Promise<[number, number]> {
  const cpu = cpuUsage();
  const start = performance.now();
  await new Executor({ print: quiet, ...options }).run(program.desc);
  const used = cpuUsage(cpu);
  return [performance.now() - start, (used.user + used.system) / 1000];
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

// Rounds on one worker and on two (a pooled ping-pong is far slower).
const ROUNDS = [Number(Deno.args[0] ?? 15), Number(Deno.args[1] ?? 3)];
for (const workers of [1, 2]) {
  if (ROUNDS[workers - 1] === 0) continue; // `15 0`: one worker only
  const record = await recorded(workers);
  const modes: Record<string, ExecutorOptions> = {
    plain: { workers, seed: 1 },
    record: { workers, seed: 1, schedule: { record: quiet } },
    replay: { workers, schedule: { replay: record, file: "bench" } },
  };
  const times: Record<string, [number[], number[]]> = {};
  // Modes alternate within each round, so load changes hit all alike.
  for (let r = 0; r < ROUNDS[workers - 1]; r++) {
    for (const [mode, options] of Object.entries(modes)) {
      const [wall, cpu] = await timed(options);
      (times[mode] ??= [[], []])[0].push(wall);
      times[mode][1].push(cpu);
    }
  }
  const [plainWall, plainCpu] = times.plain.map(median);
  for (const [mode, [wall, cpu]] of Object.entries(times)) {
    const w = median(wall);
    const c = median(cpu);
    console.log(
      `${workers} worker(s), ${mode}: median wall ${w.toFixed(1)} ms ` +
        `(${(w / plainWall).toFixed(2)} ×), cpu ${c.toFixed(1)} ms ` +
        `(${(c / plainCpu).toFixed(2)} ×)`,
    );
  }
}
