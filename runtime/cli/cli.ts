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
import { parseArgs } from "node:util";
import type { ProgramDesc } from "../../gen/rill/v1/framework_pb.ts";
import { parseWorkerAddrs } from "../cluster/worker_addrs.ts";
import {
  declarationIn,
  type DeclaredInput,
  WorkerInputs,
} from "../cluster/worker_inputs.ts";
import {
  DEFAULT_WORKER_LIMITS,
  formatLimit,
  parseWorkerLimits,
  WORKER_LIMIT_FLAGS,
} from "../cluster/worker_limits.ts";
import { useWorkerSettings } from "../cluster/worker_settings.ts";
import type { DeviceName } from "../run/device_choice.ts";
import { decodeNpy, encodeNpy } from "../../kernels/npy.ts";
import type { Tensor } from "../../kernels/tensor.ts";
import { Deadlock, Panic } from "../../scheduler/panic.ts";
import { dumpProgram } from "../build/dump.ts";
import { fileErrorReason } from "../core/file_error.ts";
import { printable, ProgramError } from "../core/errors.ts";
import { Executor } from "../run/executor.ts";
import { explainPlan, MAX_WORKERS } from "../run/run_plan.ts";
import { formatValue } from "../ops/print.ts";
import { OPS } from "../ops/mod.ts";
import { RPC_ENDPOINT } from "../ops/rpc.ts";
import { readAttrs } from "../core/attr_read.ts";
import { fetchTargets } from "../run/feed_binding.ts";
import { findModelFiles, isDirectory, loadModel } from "../format/model_dir.ts";
import { readProgramFile } from "../format/program_file.ts";
import type { Value } from "../core/value.ts";
import { varKindOf } from "../core/var_info.ts";
import { typeName } from "../core/dtype_codes.ts";
import {
  transpileFiles,
  WORKER_PARAMS_FILE,
} from "../transpile/transpile_files.ts";

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

/** What a CLI run ends with. */
export interface CliResult {
  /** The process exit code. */
  code: 0 | 1 | 2;
}

/** Where the CLI writes; tests capture both. */
export interface CliIO {
  /** Program output and fetched values. */
  stdout(line: string): void;
  /** `error:`, `panic:` and deadlock reports. */
  stderr(text: string): void;
}

function positiveInt(
  flag: string,
  text: string | undefined,
  fallback: number,
): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < (flag === "--seed" ? 0 : 1)) {
    throw new ProgramError(`${flag}: "${text}" is not a valid number`);
  }
  return n;
}

function splitPair(flag: string, text: string): [string, string | undefined] {
  const eq = text.indexOf("=");
  if (eq === 0) throw new ProgramError(`${flag}: "${text}" names no variable`);
  return eq < 0 ? [text, undefined] : [text.slice(0, eq), text.slice(eq + 1)];
}

// The --feed flags, each name given once: a repeated name would have one
// flag silently override the other.
function feedFlags(flags: string[] | undefined): string[] {
  const seen = new Set<string>();
  for (const flag of flags ?? []) {
    const [name] = splitPair("--feed", flag);
    if (seen.has(name)) {
      throw new ProgramError(`--feed ${name}: given more than once`);
    }
    seen.add(name);
  }
  return flags ?? [];
}

async function readFeed(text: string): Promise<[string, Tensor]> {
  const [name, file] = splitPair("--feed", text);
  if (file === undefined || file === "") {
    throw new ProgramError(`--feed: "${text}" should be name=file.npy`);
  }
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(file);
  } catch (e) {
    const why = fileErrorReason(e);
    throw new ProgramError(`--feed ${name}: cannot read "${file}": ${why}`);
  }
  try {
    return [name, decodeNpy(bytes)];
  } catch (e) {
    throw new ProgramError(
      `--feed ${name}: "${file}": ${(e as Error).message}`,
    );
  }
}

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

/** node:util's parseArgs message, in Rill's words where it has some. */
function usageProblem(message: string): string {
  const flag = /^Unknown option '([^']*)'/.exec(message)?.[1];
  if (flag !== undefined) return `unknown flag "${flag}"`;
  const missing = /^Option '(?:-\w, )?(--[\w-]+)[^']*' argument missing/.exec(
    message,
  )?.[1];
  if (missing !== undefined) return `flag "${missing}" needs a value`;
  return message.split("\n")[0].replace(/\.$/, "");
}

/** The stderr text of a run that ended in a panic or a deadlock (§4–5). */
function crashReport(e: Panic | Deadlock): string {
  if (e instanceof Deadlock) return `${printable(e.message)}\n\n${e.dump}\n`;
  const at = e.where === undefined ? "" : `\n\tat ${printable(e.where)}`;
  const dump = e.dump === "" ? "" : `\n\n${e.dump}`;
  return `panic: ${printable(e.message)}${at}${dump}\n`;
}

// The command line's flags and positionals, or a usage error.
function parseCommandLine(args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        workers: { type: "string" },
        device: { type: "string" },
        explain: { type: "boolean" },
        seed: { type: "string" },
        feed: { type: "string", multiple: true },
        fetch: { type: "string", multiple: true },
        params: { type: "string" },
        "worker-addrs": { type: "string" },
        "all-attrs": { type: "boolean" },
        "out-dir": { type: "string" },
        "label-selector": { type: "string" },
        port: { type: "string" },
        listen: { type: "string" },
        ...WORKER_LIMIT_OPTIONS,
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (e) {
    throw new ProgramError(
      `${usageProblem((e as Error).message)} (see --help)`,
    );
  }
}

type Flags = ReturnType<typeof parseCommandLine>["values"];

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

// Runs a program or model directory with the run's flags: everything the
// flags name is checked before anything runs.
async function runProgram(
  path: string,
  values: Flags,
  io: CliIO,
): Promise<CliResult> {
  const { device, workers, seed } = runSettings(values);
  const feeds = Object.fromEntries(
    await Promise.all(feedFlags(values.feed).map(readFeed)),
  );
  const model = await loadModel(path, { params: values.params });
  const fetches = fetchList(model.desc, values.fetch);
  await checkWritable(fetches);
  const workerAddrs = values["worker-addrs"];
  if (workerAddrs !== undefined) {
    parseWorkerAddrs(workerAddrs, { source: "--worker-addrs" });
  }
  const executor = new Executor({
    device,
    cluster: { workerAddrs },
    seed,
    print: (l) => io.stdout(l + "\n"),
    workers,
  });
  const { fetched, plan } = await executor.run(model, {
    file: model.file,
    feeds,
    fetch: fetches.map(([name]) => name),
  });
  if (values.explain) io.stderr(explainPlan(plan));
  await writeFetches(fetches, fetched, io);
  return { code: 0 };
}

// The device, worker count and seed the flags ask for.
function runSettings(
  values: Flags,
): { device: DeviceName; workers: number | "auto"; seed: number } {
  const device = values.device ?? "auto";
  if (device !== "auto" && device !== "webgpu" && device !== "cpu") {
    throw new ProgramError(
      `--device: "${device}" is not one of auto, webgpu, cpu`,
    );
  }
  // Without --workers the run plan decides (planRun: every core, or one
  // for --device webgpu).
  const workers = values.workers === undefined
    ? "auto"
    : positiveInt("--workers", values.workers, 1);
  if (workers !== "auto" && workers > MAX_WORKERS) {
    throw new ProgramError(
      `--workers: "${values.workers}" is more than ${MAX_WORKERS}`,
    );
  }
  return { device, workers, seed: positiveInt("--seed", values.seed, 1) };
}

// What to fetch, each with the file to write it to (or none: print it):
// the --fetch flags, else the variables the program's fetch ops read. A
// fetch into a file needs a tensor; say so before anything runs.
function fetchList(
  program: ProgramDesc,
  flags: string[] | undefined,
): [string, string | undefined][] {
  const fetches = flags === undefined
    ? fetchTargets(program).map((name): [string, undefined] => [
      name,
      undefined,
    ])
    : flags.map((f) => splitPair("--fetch", f));
  const main = program.blocks[0];
  for (const [name, path] of fetches) {
    const desc = main?.vars.find((v) => v.name === name);
    if (
      path !== undefined && desc !== undefined && varKindOf(desc) !== "tensor"
    ) {
      // "other" says nothing: name the declared type (FEED_MINIBATCH, …).
      const kind = varKindOf(desc);
      const declared = kind === "other" ? typeName(desc.type!.type) : kind;
      throw new ProgramError(
        `--fetch ${name}: declared ${declared}, not a tensor to write to "${path}"`,
      );
    }
  }
  return fetches;
}

// Every file a fetch writes can be written, checked before anything runs
// (exit 1 means nothing ran): the file is opened for writing, and removed
// again when it did not exist before.
async function checkWritable(
  fetches: [string, string | undefined][],
): Promise<void> {
  for (const [name, path] of fetches) {
    if (path === undefined) continue;
    const existed = await Deno.lstat(path).then(() => true, () => false);
    try {
      (await Deno.open(path, { write: true, create: true })).close();
      if (!existed) await Deno.remove(path);
    } catch (e) {
      throw new ProgramError(
        `--fetch ${name}: cannot write "${path}": ${fileErrorReason(e)}`,
      );
    }
  }
}

// Prints each fetched value, or writes it to its .npy file. The run checked
// each was written, and a file fetch is of a tensor variable.
async function writeFetches(
  fetches: [string, string | undefined][],
  fetched: Record<string, Value>,
  io: CliIO,
): Promise<void> {
  for (const [name, path] of fetches) {
    const value = fetched[name];
    if (path === undefined) {
      io.stdout(`${name} ${formatValue(value)}\n`);
      continue;
    }
    try {
      await Deno.writeFile(path, encodeNpy(value as Tensor));
    } catch (e) {
      throw new ProgramError(
        `--fetch ${name}: cannot write "${path}": ${fileErrorReason(e)}`,
      );
    }
  }
}

// The worker command: runs a worker program, its parameters read from
// worker.pdiparams beside it when that exists, with --listen as the
// address its listen_and_do serves at (and self_addr returns). The server
// that listen_and_do starts takes the limit flags and refuses any tensor
// the program's listen_and_do ops do not declare (worker_settings.ts says
// why these travel process-wide). The flags are checked first: a bad one
// is an error before anything is read.
async function serveWorkerProgram(
  path: string,
  values: Flags,
  io: CliIO,
): Promise<CliResult> {
  const listen = values.listen!;
  const limits = parseWorkerLimits(limitFlags(values));
  const slash = path.lastIndexOf("/");
  const params = `${path.slice(0, slash + 1)}${WORKER_PARAMS_FILE}`;
  const hasParams = await Deno.stat(params).then((s) => s.isFile, () => false);
  const model = await loadModel(path, {
    params: hasParams ? params : undefined,
  });
  const executor = new Executor({
    device: "cpu",
    cluster: { selfAddr: listen },
    print: (l) => io.stdout(l + "\n"),
  });
  using _settings = useWorkerSettings({
    limits,
    inputs: listenAndDoInputs(model.desc),
  });
  await executor.run(model, { file: model.file });
  return { code: 0 };
}

// The tensor a `send` carries: runtime/ops/rpc.ts's INPUT_TENSOR, which
// that module does not export. tests/runtime/cli/cli_worker_test.ts and
// tests/runtime/transpile/transpile_cli_test.ts check that a worker
// refuses nothing a master sends.
const RPC_INPUT_TENSOR = "input";

// What the program's listen_and_do ops take: on their endpoint, the tensor
// "input" fitting each op's input_var, declared in its sub_block or an
// ancestor (the program is validated, so it is declared). Read with the
// op's own schema: the op table is the one list of its attributes.
function listenAndDoInputs(desc: ProgramDesc): WorkerInputs {
  const schema = OPS.get("listen_and_do")!.attrs;
  const inputs: DeclaredInput[] = [];
  for (const block of desc.blocks) {
    for (const op of block.ops) {
      if (op.type !== "listen_and_do") continue;
      const attrs = readAttrs(schema, op.attrs);
      const sub = attrs.sub_block as number;
      const variable = declarationIn(desc, sub, attrs.input_var as string);
      if (variable !== undefined) {
        inputs.push({ tensor: RPC_INPUT_TENSOR, variable });
      }
    }
  }
  return new WorkerInputs(inputs.length === 0 ? [] : [[RPC_ENDPOINT, inputs]]);
}

// The limit flags of the worker command, for parseArgs.
const WORKER_LIMIT_OPTIONS = Object.fromEntries(
  WORKER_LIMIT_FLAGS.map(({ flag }) => [flag, { type: "string" as const }]),
);

// The limit flags' values, by flag name; undefined for one not given.
function limitFlags(values: Flags): Record<string, string | undefined> {
  const given = values as Record<string, unknown>;
  return Object.fromEntries(
    WORKER_LIMIT_FLAGS.map(({ flag }) => [flag, given[flag] as string]),
  );
}

// A limit flag given to a command other than worker.
function refuseWorkerFlags(values: Flags): void {
  const flags = limitFlags(values);
  const given = WORKER_LIMIT_FLAGS.find(({ flag }) =>
    flags[flag] !== undefined
  );
  if (given !== undefined) {
    throw new ProgramError(`--${given.flag}: only the worker command takes it`);
  }
}

// The usage lines of the limit flags, each with its default, read from
// the table of limits; the text wraps at 78 columns, indented as above.
function workerLimitUsage(): string {
  const metavar = { count: "N", bytes: "SIZE", duration: "D" } as const;
  const indent = " ".repeat(21);
  const lines = WORKER_LIMIT_FLAGS.map(({ flag, field, unit, summary }) => {
    const name = `  --${flag} ${metavar[unit]}`;
    const value = formatLimit(unit, DEFAULT_WORKER_LIMITS[field]);
    const text = wrap(`worker: ${summary} (default ${value})`, 78 - 21);
    const first = name.length < 20 ? name.padEnd(21) : `${name}\n${indent}`;
    return first + text.join(`\n${indent}`);
  });
  lines.push(`${indent}(D: 500ms, 30s, 1.5m, 2h; SIZE: 4096, 512KiB, 1GiB)`);
  return lines.join("\n") + "\n";
}

// Words into lines of at most `width` characters.
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const word of text.split(" ")) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + 1 + word.length <= width) {
      lines[last] += ` ${word}`;
    } else {
      lines.push(word);
    }
  }
  return lines;
}
