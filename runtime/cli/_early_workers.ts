/**
 * The pool workers of a command-line run, started at the earliest moment
 * the process can: `mod.ts` imports this module first, so it evaluates
 * before every other module of Rill does (a module's imports evaluate in
 * order). By then Deno has loaded the modules but not yet run them; the
 * workers load theirs while the main thread evaluates its own, reads,
 * decodes and validates the program, and plans the run. On the bench
 * machine that brings the second worker's first iteration ~150 ms closer to
 * the first's (bench/README.md, "A pool that is ready when the program is").
 *
 * Only a run of `mod.ts` as the main module, with `--workers N` above 1
 * and one program named, starts them; anything else (a library import, a
 * test, another command, a command line the CLI will refuse) starts none.
 * The flags are read again, and judged, by the CLI proper.
 *
 * The started workers wait in `early` below until `takeEarlyWorkers()`
 * hands them to the run (once); `runProgram` releases those the run does
 * not take, and the process exits when the CLI ends.
 *
 * @module
 */
import { StartedWorkers } from "../pool/worker_start.ts";
import { parseCommandLine, type ParsedCommandLine } from "./_command_line.ts";

// The most workers a command line may ask for (run_plan.ts's MAX_WORKERS,
// which this module cannot import without loading the op table early).
const MOST = 256;

/**
 * How many workers to start for a command line ahead of the CLI: `--workers
 * N` minus the main thread, for a run of one program; 0 otherwise.
 *
 * @param args The arguments after `mod.ts`.
 * @returns The workers to start.
 *
 * @example Usage
 * ```ts
 * import { earlyWorkerCount } from "./_early_workers.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(earlyWorkerCount(["p.pb", "--workers", "2"]), 1);
 * assertEquals(earlyWorkerCount(["p.pb", "--workers=4", "--explain"]), 3);
 * assertEquals(earlyWorkerCount(["p.pb"]), 0); // auto: the plan decides
 * assertEquals(earlyWorkerCount(["vet", "p.pb", "--workers", "2"]), 0);
 * assertEquals(earlyWorkerCount(["p.pb", "--workers", "x"]), 0);
 * assertEquals(earlyWorkerCount(["p.pb", "--nope"]), 0);
 * ```
 */
export function earlyWorkerCount(args: readonly string[]): number {
  let parsed: ParsedCommandLine;
  try {
    parsed = parseCommandLine(args);
  } catch {
    return 0; // the CLI proper says what is wrong
  }
  const { values, positionals } = parsed;
  if (values.help || values.version) return 0;
  if (positionals.length !== 1 || positionals[0] === "help") return 0;
  const workers = values.workers;
  if (workers === undefined || !/^[1-9][0-9]{0,2}$/.test(workers)) return 0;
  const n = Number(workers);
  return n > MOST ? 0 : n - 1;
}

// The workers started for this process's command line, until taken.
let early: StartedWorkers | undefined;

/**
 * The workers started for this process's command line, handed over once.
 *
 * @returns Them, or `undefined` (none started, or already taken).
 *
 * @example Usage
 * ```ts
 * import { takeEarlyWorkers } from "./_early_workers.ts";
 * import { assertEquals } from "@std/assert";
 *
 * // A test is not `mod.ts` run as the main module: none were started.
 * assertEquals(takeEarlyWorkers(), undefined);
 * ```
 */
export function takeEarlyWorkers(): StartedWorkers | undefined {
  const taken = early;
  early = undefined;
  return taken;
}

if (Deno.mainModule === new URL("../../mod.ts", import.meta.url).href) {
  const count = earlyWorkerCount(Deno.args);
  if (count > 0) early = new StartedWorkers(count);
}
