/**
 * Running a program from the command line: the run's flags (device,
 * workers, seed, feeds, fetches, worker addresses) read and checked, the
 * program run, its fetches printed or written.
 *
 * @module
 */
import type { ProgramDesc } from "../../gen/rill/v1/framework_pb.ts";
import { decodeNpy, encodeNpy } from "../../kernels/npy.ts";
import type { Tensor } from "../../kernels/tensor.ts";
import { parseWorkerAddrs } from "../cluster/worker_addrs.ts";
import { parseDuration } from "../cluster/worker_limits.ts";
import { typeName } from "../core/dtype_codes.ts";
import { Deadlock, Panic } from "../../scheduler/panic.ts";
import { ProgramError } from "../core/errors.ts";
import { fileErrorReason } from "../core/file_error.ts";
import { processEnv } from "../core/process_env.ts";
import type { Value } from "../core/value.ts";
import { varKindOf } from "../core/var_info.ts";
import { loadModel } from "../format/model_dir.ts";
import { formatValue } from "../ops/print.ts";
import type { DeviceName } from "../run/device_choice.ts";
import { Executor } from "../run/executor.ts";
import { fetchTargets } from "../run/feed_binding.ts";
import { explainPlan, MAX_WORKERS } from "../run/run_plan.ts";
import {
  type CliIO,
  type CliResult,
  type Flags,
  positiveInt,
  splitPair,
} from "./_command_line.ts";
import { traceTarget } from "./trace_flag.ts";
import { scheduleFlags } from "./schedule_flags.ts";
import { checkWritable } from "./_writable_file.ts";
import { discoveryOverrides } from "./_discovery_flags.ts";
import { takeEarlyWorkers } from "./_early_workers.ts";
import { StartedWorkers } from "../pool/worker_start.ts";

// The CA of --tls-ca, else of the file RILL_TLS_CA names; undefined for
// plain HTTP/2.
async function readTlsCa(
  flag: string | undefined,
): Promise<string | undefined> {
  const env = processEnv().RILL_TLS_CA;
  const [source, file] = flag !== undefined
    ? ["--tls-ca", flag]
    : ["RILL_TLS_CA", env === "" ? undefined : env];
  if (file === undefined) return undefined;
  try {
    return await Deno.readTextFile(file);
  } catch (e) {
    throw new ProgramError(
      `${source}: cannot read "${file}": ${fileErrorReason(e)}`,
    );
  }
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
 * Runs a program or model directory with the run's flags: everything the
 * flags name (feeds, fetch files, worker addresses) is checked before
 * anything runs.
 *
 * @param path The program or model directory.
 * @param values The command line's flags.
 * @param io Where the program and the fetches print.
 * @returns Exit 0 once the run ends and its fetches are written.
 *
 * @example Usage
 * ```ts
 * import { runProgram } from "./run_command.ts";
 * import { parseCommandLine } from "./_command_line.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const out: string[] = [];
 * const { values } = parseCommandLine(["--workers", "1"]);
 * const io = { stdout: (t: string) => out.push(t), stderr: () => {} };
 * await runProgram("examples/mult.pb", values, io);
 * assertEquals(out, ["Y [[5, 11], [11, 25]]\n"]);
 * ```
 */
export async function runProgram(
  path: string,
  values: Flags,
  io: CliIO,
): Promise<CliResult> {
  const { device, workers, seed } = runSettings(values);
  // The pool's workers load while the program is read, decoded, validated
  // and planned: started by mod.ts's first import, or else now.
  const started = takeEarlyWorkers() ??
    (workers === "auto" || workers < 2
      ? undefined
      : new StartedWorkers(workers - 1));
  try {
    return await runWith(path, values, io, { device, workers, seed, started });
  } finally {
    started?.release();
  }
}

// The run of `runProgram`, its settings read.
async function runWith(
  path: string,
  values: Flags,
  io: CliIO,
  { device, workers, seed, started }: ReturnType<typeof runSettings> & {
    started: StartedWorkers | undefined;
  },
): Promise<CliResult> {
  const schedule = await scheduleFlags(values);
  const rpc = rpcSettings(values);
  const feeds = Object.fromEntries(
    await Promise.all(feedFlags(values.feed).map(readFeed)),
  );
  const model = await loadModel(path, { params: values.params });
  const fetches = fetchList(model.desc, values.fetch);
  await checkFetchesWritable(fetches);
  const workerAddrs = values["worker-addrs"];
  if (workerAddrs !== undefined) {
    parseWorkerAddrs(workerAddrs, { source: "--worker-addrs" });
  }
  const tlsCa = await readTlsCa(values["tls-ca"]);
  const trace = await traceTarget(values.trace, path);
  const discovery = discoveryOverrides(values, processEnv());
  const executor = new Executor({
    device,
    cluster: { workerAddrs, tlsCa, discovery, ...rpc },
    seed,
    print: (l) => io.stdout(l + "\n"),
    workers,
    trace: trace?.collect,
    schedule: schedule?.option,
  });
  const { fetched, plan } = await executor.run(model, {
    file: model.file,
    feeds,
    fetch: fetches.map(([name]) => name),
    startedWorkers: started,
  }).catch((e) => {
    const drew = values.seed === undefined && values.replay === undefined;
    throw drew ? withSeed(e, seed) : e;
  }).finally(() => Promise.all([trace?.write(), schedule?.write()]));
  if (values.explain) io.stderr(explainPlan(plan));
  await writeFetches(fetches, fetched, io);
  return { code: 0 };
}

// The keepalive, the call deadline and the re-dial window of
// --rpc-keepalive, --rpc-timeout and --rpc-redial, those given.
function rpcSettings(
  values: Flags,
): { rpcKeepaliveMs?: number; rpcTimeoutMs?: number; workerRedialMs?: number } {
  const keepalive = values["rpc-keepalive"];
  const timeout = values["rpc-timeout"];
  const redial = values["rpc-redial"];
  return {
    ...(keepalive === undefined
      ? {}
      : { rpcKeepaliveMs: parseDuration("rpc-keepalive", keepalive) }),
    ...(timeout === undefined
      ? {}
      : { rpcTimeoutMs: parseDuration("rpc-timeout", timeout) }),
    ...(redial === undefined
      ? {}
      : { workerRedialMs: parseDuration("rpc-redial", redial) }),
  };
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
  const seed = values.seed === undefined
    ? randomSeed()
    : positiveInt("--seed", values.seed, 1);
  return { device, workers, seed };
}

// A run without --seed takes a fresh seed, as Go's select is random on
// every run: runs differ, so a failure that depends on the choices shows
// up, and its report names the seed that repeats them.
function randomSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0] >>> 1;
}

/**
 * A panic or deadlock of a run given no `--seed`, with the seed it drew:
 * the CLI adds `rerun with --seed N` to its report.
 *
 * @example Usage
 * ```ts
 * import { SeededCrash } from "./run_command.ts";
 * import { Panic } from "../../scheduler/panic.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const crash = new SeededCrash(new Panic("boom"), 42);
 * assertEquals([crash.seed, crash.crash.message], [42, "boom"]);
 * ```
 */
export class SeededCrash extends Error {
  /**
   * @param crash The run's panic or deadlock.
   * @param seed The seed the run drew.
   */
  constructor(readonly crash: Panic | Deadlock, readonly seed: number) {
    super(crash.message, { cause: crash });
    this.name = "SeededCrash";
  }
}

// A failure of the program's own (not an operational one, which is a
// ProgramError however it travels) gets the seed.
function withSeed(e: unknown, seed: number): unknown {
  const own = e instanceof Deadlock ||
    (e instanceof Panic && !(e.cause instanceof ProgramError));
  return own ? new SeededCrash(e, seed) : e;
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

// Every file a fetch writes can be written, checked before anything runs.
async function checkFetchesWritable(
  fetches: [string, string | undefined][],
): Promise<void> {
  for (const [name, path] of fetches) {
    if (path !== undefined) await checkWritable(`--fetch ${name}`, path);
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
