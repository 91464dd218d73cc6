/**
 * Why a file could not be read or written, in a few words for one-line
 * error messages (`no such file`, `is a directory`, else the system's text).
 *
 * @module
 */

/**
 * A short reason for a failed file operation.
 *
 * @param error What `Deno.readFile` or `Deno.writeFile` threw.
 * @returns The reason.
 *
 * @example Usage
 * ```ts
 * import { fileErrorReason } from "./file_error.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const error = await Deno.readFile("no/such/file").catch((e) => e);
 * assertEquals(fileErrorReason(error), "no such file");
 * ```
 */
export function fileErrorReason(error: unknown): string {
  if (error instanceof Deno.errors.NotFound) return "no such file";
  if (error instanceof Deno.errors.IsADirectory) return "is a directory";
  if (error instanceof Deno.errors.PermissionDenied) return "permission denied";
  if (error instanceof Deno.errors.AlreadyExists) return "already exists";
  return error instanceof Error ? error.message : String(error);
}
