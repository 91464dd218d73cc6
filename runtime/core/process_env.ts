/**
 * The process's environment as a read-only record that reads each variable
 * when asked, so that Rill runs under a scoped `--allow-env=A,B` (as the
 * pods of deploy/k8s/ do): `Deno.env.toObject()` needs every variable and
 * fails under a list, while a variable outside the list reads here as
 * unset, which is what it is to the program.
 *
 * @module
 */

/** An environment: variables by name, undefined when unset. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * The process's environment, read lazily: each property read is one
 * `Deno.env.get`, and a variable Deno may not read is undefined.
 *
 * @returns The environment.
 *
 * @example Usage
 * ```ts
 * import { processEnv } from "./process_env.ts";
 * import { assertEquals } from "@std/assert";
 *
 * Deno.env.set("RILL_EXAMPLE", "1");
 * assertEquals(processEnv().RILL_EXAMPLE, "1");
 * assertEquals(processEnv().RILL_SURELY_UNSET_VARIABLE, undefined);
 * ```
 */
export function processEnv(): Env {
  return ENV;
}

// One proxy serves every caller: it holds nothing but the traps.
const ENV: Env = new Proxy({}, {
  get: (_target, name) => typeof name === "string" ? read(name) : undefined,
  has: (_target, name) => typeof name === "string" && read(name) !== undefined,
});

function read(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch (e) {
    // Outside --allow-env's list (NotCapable), or no permission at all.
    if (
      e instanceof Deno.errors.NotCapable ||
      e instanceof Deno.errors.PermissionDenied
    ) {
      return undefined;
    }
    throw e;
  }
}
