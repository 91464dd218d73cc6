/**
 * Rill's version, as `--version` prints it: deno.json's `version`, which a
 * test keeps equal to this.
 *
 * @module
 */

/**
 * The version of this Rill.
 *
 * @example Usage
 * ```ts
 * import { VERSION } from "./version.ts";
 * import { assertMatch } from "@std/assert";
 *
 * assertMatch(VERSION, /^\d+\.\d+\.\d+/);
 * ```
 */
export const VERSION = "0.1.0";
