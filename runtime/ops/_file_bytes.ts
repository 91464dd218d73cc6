/**
 * Whole-file reads and writes for the data ops, failing with one short
 * `RangeError` that names the path (`cannot read "x.npy": no such file`).
 *
 * @module
 */
import { fileErrorReason } from "../core/file_error.ts";

/**
 * The bytes of a file.
 *
 * @param path The file.
 * @returns Its bytes.
 * @throws {RangeError} If the file cannot be read; the message names it.
 *
 * @example Usage
 * ```ts
 * import { readFileBytes } from "./_file_bytes.ts";
 * import { assertRejects } from "@std/assert";
 *
 * await assertRejects(() => readFileBytes("no/such/file"), RangeError, "no such file");
 * ```
 */
export async function readFileBytes(path: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(path);
  } catch (e) {
    throw new RangeError(`cannot read "${path}": ${fileErrorReason(e)}`);
  }
}

/** Options of `writeFileBytes`. */
export interface WriteFileBytesOptions {
  /** Replace an existing file; `false`: an existing file is an error. @default {true} */
  overwrite?: boolean;
}

/**
 * Writes bytes to a file.
 *
 * @param path The file.
 * @param bytes What to write.
 * @param options Whether to replace an existing file.
 * @returns A promise that fulfils once the file is written.
 * @throws {RangeError} If the file cannot be written; the message names it.
 *
 * @example Usage
 * ```ts
 * import { writeFileBytes } from "./_file_bytes.ts";
 * import { assertEquals, assertRejects } from "@std/assert";
 *
 * const path = await Deno.makeTempFile();
 * await writeFileBytes(path, new Uint8Array([1, 2]));
 * assertEquals(await Deno.readFile(path), new Uint8Array([1, 2]));
 * await assertRejects(() => writeFileBytes(path, new Uint8Array(), { overwrite: false }), RangeError);
 * await Deno.remove(path);
 * ```
 */
export async function writeFileBytes(
  path: string,
  bytes: Uint8Array,
  options: WriteFileBytesOptions = {},
): Promise<void> {
  try {
    await Deno.writeFile(path, bytes, {
      createNew: !(options.overwrite ?? true),
    });
  } catch (e) {
    throw new RangeError(`cannot write "${path}": ${fileErrorReason(e)}`);
  }
}
