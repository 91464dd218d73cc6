// The run command's --record FILE and --replay FILE: the record file is
// checked before anything runs (a file to record into must be writable, a
// file to replay must be a record), and a recording is written when the
// run ends, however it ends (the record of a panic is the useful one).

import { ProgramError } from "../core/errors.ts";
import { fileErrorReason } from "../core/file_error.ts";
import { checkWritable } from "./_writable_file.ts";
import { decodeSchedule } from "../core/schedule_file.ts";
import type { ExecutorOptions } from "../run/executor.ts";
import type { Flags } from "./_command_line.ts";

/** What the flags ask of the run, and how to finish it. */
export interface ScheduleFlags {
  /** The Executor's `schedule` option. */
  readonly option: NonNullable<ExecutorOptions["schedule"]>;
  /** Writes a recording, if the run got far enough to make one. */
  write(): Promise<void>;
}

/**
 * Reads `--record FILE` and `--replay FILE` (not both; `--replay` takes
 * the record's seed, so not with `--seed` either).
 *
 * @param values The command line's flags.
 * @returns The schedule, or undefined without either flag.
 * @throws {ProgramError} A file not writable, not a record, or unreadable.
 *
 * @example Usage
 * ```ts
 * import { scheduleFlags } from "./schedule_flags.ts";
 * import { assertEquals, assertRejects } from "@std/assert";
 *
 * assertEquals(await scheduleFlags({}), undefined);
 * await assertRejects(() => scheduleFlags({ replay: "deno.json" }), Error, "not a Rill record");
 * ```
 */
export async function scheduleFlags(
  values: Flags,
): Promise<ScheduleFlags | undefined> {
  const { record, replay } = values;
  if (record !== undefined && replay !== undefined) {
    throw new ProgramError("--record and --replay: give one of them");
  }
  if (replay !== undefined) {
    if (values.seed !== undefined) {
      throw new ProgramError(
        "--seed and --replay: a replay takes the record's seed",
      );
    }
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(replay);
    } catch (e) {
      throw new ProgramError(
        `--replay: cannot read "${replay}": ${fileErrorReason(e)}`,
      );
    }
    const decoded = decodeSchedule(bytes, replay);
    return {
      option: { replay: decoded, file: replay },
      write: () => Promise.resolve(),
    };
  }
  if (record === undefined) return undefined;
  await checkWritable("--record", record);
  let made: Uint8Array | undefined;
  return {
    option: { record: (bytes) => made = bytes },
    async write() {
      if (made === undefined) return;
      try {
        await Deno.writeFile(record, made);
      } catch (e) {
        throw new ProgramError(
          `--record: cannot write "${record}": ${fileErrorReason(e)}`,
        );
      }
    },
  };
}
