/**
 * `deno run -A mod.ts vet PROGRAM [--fetch name]...`: the mistakes
 * `vetProgram` finds (`runtime/check/vet.ts`), one line each on stdout,
 * and exit 1 when there is any; exit 0 and no output when there is none.
 * The program is read and validated as a run would, and nothing runs; an
 * invalid program is one `error:` line on stderr, also exit 1.
 *
 * @module
 */
import { vetProgram } from "../check/vet.ts";
import {
  type CliIO,
  type CliResult,
  type Flags,
  splitPair,
} from "./_command_line.ts";
import { loadCheckedProgram } from "./_checked_program.ts";

/**
 * Vets a program or model directory and prints what it finds.
 *
 * @param path The program or model directory.
 * @param values The command line's flags: `--fetch` names block-0
 * variables the run fetches, which count as read.
 * @param io Where the findings go.
 * @returns Exit 1 when something was found, else 0.
 * @throws {ProgramError} For a malformed program.
 *
 * @example Usage
 * ```ts
 * import { vetCommand } from "./vet_command.ts";
 * import { parseCommandLine } from "./_command_line.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const out: string[] = [];
 * const { values } = parseCommandLine([]);
 * const io = { stdout: (t: string) => out.push(t), stderr: () => {} };
 * assertEquals(await vetCommand("examples/prime_sieve.pb", values, io), { code: 0 });
 * assertEquals(out, []);
 * ```
 */
export async function vetCommand(
  path: string,
  values: Flags,
  io: CliIO,
): Promise<CliResult> {
  const fetch = (values.fetch ?? []).map((f) => splitPair("--fetch", f)[0]);
  const desc = await loadCheckedProgram(path);
  const findings = vetProgram(desc, { fetch });
  for (const f of findings) io.stdout(f.message + "\n");
  return { code: findings.length === 0 ? 0 : 1 };
}
