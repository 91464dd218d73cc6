/**
 * The command line (docs/architecture.md §5): `deno run -A mod.ts <program> [flags]`
 * validates and runs a program; `dump <program> [--all-attrs]` prints its
 * readable form; `graph <program> [--format svg|dot|mermaid]` draws it;
 * `vet <program>` reports its likely mistakes (exit 1 when there are any);
 * `transpile <program> --out-dir DIR` splits a program into a master and a
 * worker; `worker DIR/worker.pb --listen HOST:PORT` serves the worker;
 * `ops <program>` lists the op types it uses and where each runs.
 * Exit codes: 0 success; 1 invalid input or usage (one `error:` line, no
 * stack trace, nothing run); 2 a panic or deadlock while running.
 *
 * @module
 */
import { Deadlock, Panic } from "../../scheduler/panic.ts";
import { dumpProgram } from "../build/dump.ts";
import { printable, ProgramError } from "../core/errors.ts";
import { findModelFiles, isDirectory } from "../format/model_dir.ts";
import { readProgramFile } from "../format/program_file.ts";
import { transpileFiles } from "../transpile/transpile_files.ts";
import {
  type CliIO,
  type CliResult,
  type Flags,
  parseCommandLine,
  positiveInt,
} from "./_command_line.ts";
import { runProgram, SeededCrash } from "./run_command.ts";
import {
  type Command,
  COMMAND_NAMES,
  COMMAND_USAGE,
  commandHelp,
  refuseFlags,
  usage,
} from "./_help.ts";
import { VERSION } from "./version.ts";

export type { CliIO, CliResult };

/**
 * Runs the CLI on `args`; never throws for user errors and never exits the
 * process (the caller does, with the returned code).
 *
 * @param args The arguments after `mod.ts`.
 * @param io Where to write.
 * @returns The exit code.
 *
 * @example Usage
 * ```ts
 * import { runCli } from "./cli.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const err: string[] = [];
 * const { code } = await runCli(["missing.pb"], { stdout: () => {}, stderr: (t) => err.push(t) });
 * assertEquals(code, 1);
 * assertEquals(err, ["error: missing.pb: cannot read program: no such file\n"]);
 * ```
 */
export async function runCli(
  args: readonly string[],
  io: CliIO,
): Promise<CliResult> {
  try {
    return await runCommand(args, io);
  } catch (e) {
    if (e instanceof ProgramError) {
      io.stderr(`error: ${e.message}\n`);
      return { code: 1 };
    }
    // An op that failed for an operational reason (a worker serving
    // another program) threw a ProgramError: one line, exit 1.
    if (e instanceof Panic && e.cause instanceof ProgramError) {
      io.stderr(`error: ${e.cause.message}\n`);
      return { code: 1 };
    }
    if (e instanceof SeededCrash) {
      io.stderr(crashReport(e.crash) + rerunLine(e));
      return { code: 2 };
    }
    if (e instanceof Panic || e instanceof Deadlock) {
      io.stderr(crashReport(e));
      return { code: 2 };
    }
    const message = e instanceof Error ? e.message : String(e);
    io.stderr(`error: ${printable(message)}\n`);
    return { code: 2 };
  }
}

/** The stderr text of a run that ended in a panic or a deadlock (§4–5). */
function crashReport(e: Panic | Deadlock): string {
  if (e instanceof Deadlock) return `${printable(e.message)}\n\n${e.dump}\n`;
  const at = e.where === undefined ? "" : `\n\tat ${printable(e.where)}`;
  const dump = e.dump === "" ? "" : `\n\n${e.dump}`;
  return `panic: ${printable(e.message)}${at}${dump}\n`;
}

// How to repeat a crash that happened while threads ran (it has a dump;
// a fetch of a variable never written has none and no choice led to it).
function rerunLine({ crash, seed }: SeededCrash): string {
  return crash.dump === ""
    ? ""
    : `\nrerun with --seed ${seed} to repeat this run's choices\n`;
}

async function runCommand(
  args: readonly string[],
  io: CliIO,
): Promise<CliResult> {
  const parsed = parseCommandLine(args);
  const { values } = parsed;
  // `run PROGRAM` names the default command; a lone `run` stays a path.
  const positionals = parsed.positionals[0] === "run" &&
      parsed.positionals.length === 2
    ? parsed.positionals.slice(1)
    : parsed.positionals;
  const [first, path] = positionals;
  if (values.version) {
    io.stdout(`rill ${VERSION}\n`);
    return { code: 0 };
  }
  if (first === "help") return help(positionals.slice(1), io);
  const command: Command = NAMED_COMMANDS.has(first) ? first as Command : "run";
  if (values.help) {
    io.stdout(command === "run" ? usage() : commandHelp(command));
    return { code: 0 };
  }
  refuseFlags(command, values);
  if (command === "run") {
    if (positionals.length !== 1) {
      throw new ProgramError(
        positionals.length === 0
          ? "no program given (see --help)"
          : `one program expected, got ${positionals.length}`,
      );
    }
    return await runProgram(first, values, io);
  }
  if (positionals.length !== 2) throw new ProgramError(COMMAND_USAGE[command]);
  // A command's own module loads when that command runs, so that a run of
  // a program does not load (and compile) what only another command uses:
  // the worker's cluster modules, the graph drawing, vet's reporting, and
  // the WebGPU kernel table that `ops` reads to say what runs in WGSL.
  if (command === "dump") return await dumpCommand(path, values, io);
  if (command === "graph") {
    const { graphCommand } = await import("./graph_command.ts");
    return await graphCommand(path, values, io);
  }
  if (command === "vet") {
    const { vetCommand } = await import("./vet_command.ts");
    return await vetCommand(path, values, io);
  }
  if (command === "transpile") return await transpileCommand(path, values);
  if (command === "ops") {
    const { opsCommand } = await import("./ops_command.ts");
    return await opsCommand(path, io);
  }
  if (values.listen === undefined) throw new ProgramError(COMMAND_USAGE.worker);
  const { serveWorkerProgram } = await import("./worker_command.ts");
  return await serveWorkerProgram(path, values, io);
}

// The commands named by the first word; any other word is a program to run.
const NAMED_COMMANDS: ReadonlySet<string> = new Set(
  COMMAND_NAMES.filter((c) => c !== "run"),
);

// `help` alone prints every command's usage; `help CMD` one command's.
function help(words: readonly string[], io: CliIO): CliResult {
  if (words.length === 0) {
    io.stdout(usage());
    return { code: 0 };
  }
  const command = words[0] as Command;
  if (words.length > 1 || !COMMAND_NAMES.includes(command)) {
    throw new ProgramError(
      `help: "${words.join(" ")}" is not one of ${COMMAND_NAMES.join(", ")}`,
    );
  }
  io.stdout(commandHelp(command));
  return { code: 0 };
}

async function dumpCommand(
  path: string,
  values: Flags,
  io: CliIO,
): Promise<CliResult> {
  const program = await isDirectory(path)
    ? (await findModelFiles(path)).program
    : path;
  const desc = await readProgramFile(program);
  io.stdout(dumpProgram(desc, { allAttrs: values["all-attrs"] }));
  return { code: 0 };
}

async function transpileCommand(
  path: string,
  values: Flags,
): Promise<CliResult> {
  if (values["out-dir"] === undefined) {
    throw new ProgramError(COMMAND_USAGE.transpile);
  }
  const port = values.port === undefined
    ? undefined
    : positiveInt("--port", values.port, 0);
  if (port !== undefined && port > 65535) {
    throw new ProgramError(`--port: "${values.port}" is more than 65535`);
  }
  await transpileFiles(path, values["out-dir"], {
    labelSelector: values["label-selector"],
    port,
  });
  return { code: 0 };
}
