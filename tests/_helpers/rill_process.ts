/**
 * Runs the Rill CLI as a real subprocess:
 * `deno run -A mod.ts <args>` from the repository root.
 *
 * @module
 */
import { fromFileUrl } from "@std/path";

/** The repository root, with a trailing slash. */
export const ROOT: string = fromFileUrl(new URL("../../", import.meta.url));

/** What a CLI process ended with. */
export interface ProcessResult {
  /** The exit code. */
  code: number;
  /** Everything written to stdout. */
  stdout: string;
  /** Everything written to stderr. */
  stderr: string;
}

const decoder = new TextDecoder();

/**
 * Runs `deno run -A mod.ts ...args` in the repository root.
 *
 * @param args The arguments after `mod.ts`.
 * @returns The exit code and output.
 */
export async function runRill(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<ProcessResult> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", `${ROOT}mod.ts`, ...args],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...env },
  }).output();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/**
 * Maps `run` over `items` with at most `limit` running at once, keeping
 * the order of the results.
 *
 * @param items The inputs.
 * @param limit How many may run at once.
 * @param run The work.
 * @returns The results, in order.
 */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  run: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await run(items[i]);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, worker),
  );
  return results;
}
