/**
 * The CLI run in this process, with what it wrote gathered: for tests of
 * exit codes and exact output that need no process of their own.
 *
 * @module
 */
import { runCli } from "../../runtime/cli/cli.ts";

/** What a run of the CLI returned and wrote. */
export interface CliOutput {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the CLI on `args` in this process.
 *
 * @param args The arguments after `mod.ts`.
 * @returns Its exit code and everything it wrote to each stream.
 */
export async function cli(args: readonly string[]): Promise<CliOutput> {
  const out: string[] = [];
  const err: string[] = [];
  const { code } = await runCli(args, {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
  });
  return { code, stdout: out.join(""), stderr: err.join("") };
}
