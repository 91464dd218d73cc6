/**
 * `deno info --json` of a module of this repository: its module graph as
 * Deno resolves it, type-only and dynamic imports included.
 *
 * @module
 */
import { assert } from "@std/assert";
import { ROOT } from "./rill_process.ts";

const decoder = new TextDecoder();

/**
 * Runs `deno info --json root` in the repository root and parses it.
 *
 * @param root The module, as a path from the repository root.
 * @returns The parsed output, typed by the caller.
 */
export async function denoInfo<T>(root: string): Promise<T> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", root],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  assert(output.success, `deno info ${root}: ${decoder.decode(output.stderr)}`);
  return JSON.parse(decoder.decode(output.stdout)) as T;
}
