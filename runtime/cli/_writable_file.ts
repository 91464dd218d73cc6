/**
 * The check every flag that names an output file makes before a run starts
 * (`--fetch`, `--trace`, `--record`): exit 1 must mean nothing ran, so a
 * file the run could not write is found first. The file is opened for
 * writing, and removed again when it did not exist before.
 *
 * @module
 */
import { ProgramError } from "../core/errors.ts";
import { fileErrorReason } from "../core/file_error.ts";

/**
 * Throws when `file` cannot be written, naming the flag that gave it.
 *
 * @param flag The flag as the user wrote it, e.g. `--trace` or `--fetch y`.
 * @param file The file the run would write.
 * @throws {ProgramError} `FLAG: cannot write "FILE": WHY`.
 *
 * @example Usage
 * ```ts
 * import { checkWritable } from "./_writable_file.ts";
 * import { assertRejects } from "@std/assert";
 *
 * await assertRejects(
 *   () => checkWritable("--trace", "/no/such/dir/run.json"),
 *   Error,
 *   'cannot write "/no/such/dir/run.json"',
 * );
 * ```
 */
export async function checkWritable(flag: string, file: string): Promise<void> {
  const existed = await Deno.lstat(file).then(() => true, () => false);
  try {
    (await Deno.open(file, { write: true, create: true })).close();
    if (!existed) await Deno.remove(file);
  } catch (e) {
    throw new ProgramError(
      `${flag}: cannot write "${file}": ${fileErrorReason(e)}`,
    );
  }
}
