/**
 * What recording costs a one-worker run, as instructions rather than time
 * (issue 20: recording ≤ 1.5 × a plain run), so that a loaded machine
 * cannot blur it: runs `record_replay.ts`'s program (10,000 round trips
 * and a 4,000-value select fan-in) `runs` times in one process, plain or
 * recorded (the record encoded, then dropped), and nothing else. Run it
 * under cachegrind with V8's predictable mode (one thread, no concurrent
 * JIT or GC):
 *
 *   valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
 *     deno run -A --no-check --v8-flags=--predictable bench/record_count.ts MODE RUNS
 *
 * MODE is `plain` or `record`. The difference of the instruction counts
 * (`I refs`) at RUNS = 3 and RUNS = 1 is two warm runs' own, without
 * start-up and the first run's compilation; RUNS = 0 builds the program
 * only, so RUNS = 1 minus RUNS = 0 is a cold run's.
 *
 * @module
 */
import { Executor } from "../mod.ts";
import { recordedProgram } from "./_channel_programs.ts";

const mode = Deno.args[0] ?? "record";
const runs = Number(Deno.args[1] ?? 1);
if (mode !== "plain" && mode !== "record") {
  throw new TypeError(`record_count: mode "${mode}" is not plain or record`);
}
const program = recordedProgram(10_000, 2_000);
const quiet = () => {};
for (let r = 0; r < runs; r++) {
  await new Executor({
    workers: 1,
    seed: 1,
    print: quiet,
    schedule: mode === "record" ? { record: quiet } : undefined,
  }).run(program.desc);
}
