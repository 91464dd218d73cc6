/**
 * The command line (docs/architecture.md §5): `deno run -A mod.ts <program> [flags]`
 * validates and runs a program; `dump <program> [--all-attrs]` prints its
 * readable form; `transpile <program> --out-dir DIR` splits a program into
 * a master and a worker; `worker DIR/worker.pb --listen HOST:PORT` serves
 * the worker.
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
import { runProgram } from "./run_command.ts";
import {
  refuseWorkerFlags,
  serveWorkerProgram,
  workerLimitUsage,
} from "./worker_command.ts";

const USAGE =
  `Rill runs Fluid-style concurrent programs (ProgramDesc protobufs).

Usage:
  deno run -A mod.ts <program.pb|program.txtpb|MODEL_DIR> [flags]
  deno run -A mod.ts dump <program.pb|program.txtpb|MODEL_DIR> [--all-attrs]
  deno run -A mod.ts transpile <program|MODEL_DIR> --out-dir DIR
                     [--label-selector S] [--port N]
  deno run -A mod.ts worker DIR/worker.pb --listen HOST:PORT [--max-calls N]
                     [--max-call-bytes SIZE] [--max-conns N]
                     [--max-conns-per-client N] [--read-timeout D]
                     [--idle-timeout D] [--call-timeout D]

A MODEL_DIR is a directory PaddlePaddle saved: __model__ or one *.pdmodel,
and the parameters, one file per variable or combined (__params__,
*.pdiparams).

Flags:
  --workers N        threads for green threads, 1 to 256 (default: the
                     machine's cores, or 1 with --device webgpu, as a run
                     with workers keeps its tensors on the CPU; 1 keeps
                     everything on the main thread)
  --device D         auto | webgpu | cpu (default auto: the GPU on a hardware
                     adapter for a program with large float32 tensors, else
                     the CPU)
  --explain          prints the device chosen, and why, to stderr
  --seed N           seeds select's choices and random ops (default 1)
  --feed name=f.npy  binds a block-0 variable to a .npy tensor; a variable a
                     feed op writes is fed through that op (repeatable)
  --fetch name[=f.npy]
                     after the run, writes the variable to f.npy, or prints
                     "name <value>" when no file is given (repeatable;
                     default: the variables the program's fetch ops read)
  --params FILE      reads the parameters from this combined file
  --worker-addrs a,b,c
                     the workers kube_get_workers_addrs returns (host:port
                     each; default RILL_WORKERS, else Kubernetes in a pod)
  --out-dir DIR      transpile: writes DIR/master.pb and DIR/worker.pb (and
                     DIR/worker.pdiparams, the parameters of a model's
                     worker); run the master with --worker-addrs, or in
                     Kubernetes
  --label-selector S transpile: the master's kube_get_workers_addrs picks
                     the worker pods with this selector
  --port N           transpile: the port workers listen on and the master
                     dials (default: any, and in a pod its port named rill)
  --listen HOST:PORT worker: where to serve (port 0 picks one); prints
                     "listening on HOST:PORT", then serves until killed;
                     refuses a tensor its program does not declare
${workerLimitUsage()}  --all-attrs        dump: also shows the bookkeeping Paddle saves (op_role,
                     op_callstack, ..., stop_gradient, ...), hidden by default
  --help             shows this text

Exit codes: 0 success, 1 invalid input or usage, 2 panic or deadlock.
`;

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

async function runCommand(
  args: readonly string[],
  io: CliIO,
): Promise<CliResult> {
  const { values, positionals } = parseCommandLine(args);
  if (values.help) {
    io.stdout(USAGE);
    return { code: 0 };
  }
  const [command, path] = positionals;
  if (command === "dump" || command === "transpile" || command === "worker") {
    if (positionals.length !== 2) throw new ProgramError(COMMANDS[command]);
    if (command !== "worker") refuseWorkerFlags(values);
    if (command === "dump") return await dumpCommand(path, values, io);
    if (command === "transpile") return await transpileCommand(path, values);
    if (values.listen === undefined) throw new ProgramError(COMMANDS.worker);
    return await serveWorkerProgram(path, values, io);
  }
  refuseWorkerFlags(values);
  if (values["all-attrs"]) {
    throw new ProgramError("--all-attrs: only the dump command takes it");
  }
  if (positionals.length !== 1) {
    throw new ProgramError(
      positionals.length === 0
        ? "no program given (see --help)"
        : `one program expected, got ${positionals.length}`,
    );
  }
  return await runProgram(command, values, io);
}

// Each command's usage line, for the usage error of a wrong call.
const COMMANDS = {
  dump: "usage: dump <program.pb|MODEL_DIR> [--all-attrs]",
  transpile:
    "usage: transpile <program.pb|MODEL_DIR> --out-dir DIR [--label-selector S] [--port N]",
  worker:
    "usage: worker <worker.pb> --listen HOST:PORT [limit flags] (see --help)",
} as const;

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
    throw new ProgramError(COMMANDS.transpile);
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
