// The run command's --trace FILE: the format its extension names (.json or
// .html), checked to be writable before anything runs, and written when
// the run ends, however it ends (a trace of a panic is the useful one).

import type { TraceEvent } from "../core/trace_event.ts";
import { ProgramError } from "../core/errors.ts";
import { fileErrorReason } from "../core/file_error.ts";
import { checkWritable } from "./_writable_file.ts";
import { traceHtml, traceJson } from "../run/trace_file.ts";

/** Where a run's trace goes, and how to write it. */
export interface TraceTarget {
  /** Keeps the run's events (the Executor's `trace` option). */
  readonly collect: (events: TraceEvent[]) => void;
  /** Writes the events kept, if the run got far enough to have any. */
  write(): Promise<void>;
}

/**
 * Reads `--trace FILE`: a `.json` or `.html` file that can be written
 * (opened for writing now, and removed again if it did not exist), else a
 * ProgramError (`error: --trace: …`, exit 1, nothing run).
 *
 * @param file The flag's value, if given.
 * @param program The program's path, the page's title.
 * @returns The target, or undefined without the flag.
 * @throws {ProgramError} A file of another extension, or not writable.
 *
 * @example Usage
 * ```ts
 * import { traceTarget } from "./trace_flag.ts";
 * import { assertRejects } from "@std/assert";
 *
 * await assertRejects(() => traceTarget("t.txt", "p.pb"), Error, "--trace");
 * ```
 */
export async function traceTarget(
  file: string | undefined,
  program: string,
): Promise<TraceTarget | undefined> {
  if (file === undefined) return undefined;
  const html = file.endsWith(".html");
  if (!html && !file.endsWith(".json")) {
    throw new ProgramError(
      `--trace: "${file}" should end in .json or .html`,
    );
  }
  await checkWritable("--trace", file);
  let events: TraceEvent[] | undefined;
  return {
    collect: (e) => events = e,
    async write() {
      if (events === undefined) return;
      // @std/path is an npm package: loaded only here, for an HTML trace's
      // title, so that a run without one does not load it at start-up.
      const text = html
        ? traceHtml(events, (await import("@std/path")).basename(program))
        : traceJson(events);
      try {
        await Deno.writeTextFile(file, text);
      } catch (e) {
        throw new ProgramError(
          `--trace: cannot write "${file}": ${fileErrorReason(e)}`,
        );
      }
    },
  };
}
