/**
 * `deno run -A mod.ts graph PROGRAM [--format svg|dot|mermaid] [--out
 * FILE]`: a picture of a program (`runtime/build/graph.ts`), written to
 * stdout or to FILE. The program is read and validated as a run would,
 * and nothing runs.
 *
 * @module
 */
import {
  GRAPH_FORMATS,
  type GraphFormat,
  graphProgram,
} from "../build/graph.ts";
import { ProgramError } from "../core/errors.ts";
import { fileErrorReason } from "../core/file_error.ts";
import type { CliIO, CliResult, Flags } from "./_command_line.ts";
import { loadCheckedProgram } from "./_checked_program.ts";

/**
 * Draws a program or model directory in the format `--format` names.
 *
 * @param path The program or model directory.
 * @param values The command line's flags (`--format`, `--out`).
 * @param io Where the picture goes without `--out`.
 * @returns Exit 0 once the picture is written.
 * @throws {ProgramError} For a malformed program, a format that is not
 * one of `GRAPH_FORMATS`, or a file that cannot be written.
 *
 * @example Usage
 * ```ts
 * import { graphCommand } from "./graph_command.ts";
 * import { parseCommandLine } from "./_command_line.ts";
 * import { assert } from "@std/assert";
 *
 * const out: string[] = [];
 * const { values } = parseCommandLine(["--format", "dot"]);
 * await graphCommand("examples/goroutine.pb", values, { stdout: (t) => out.push(t), stderr: () => {} });
 * assert(out.join("").includes("subgraph cluster_blk1 {"));
 * ```
 */
export async function graphCommand(
  path: string,
  values: Flags,
  io: CliIO,
): Promise<CliResult> {
  const format = values.format ?? "svg";
  if (!GRAPH_FORMATS.includes(format as GraphFormat)) {
    throw new ProgramError(
      `--format: "${format}" is not one of ${GRAPH_FORMATS.join(", ")}`,
    );
  }
  const desc = await loadCheckedProgram(path);
  const picture = graphProgram(desc, { format: format as GraphFormat });
  const file = values.out;
  if (file === undefined) {
    io.stdout(picture);
    return { code: 0 };
  }
  try {
    await Deno.writeTextFile(file, picture);
  } catch (e) {
    throw new ProgramError(
      `--out: cannot write "${file}": ${fileErrorReason(e)}`,
    );
  }
  return { code: 0 };
}
