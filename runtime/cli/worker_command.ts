/**
 * The `worker` command: serves a worker program with the limit flags, and
 * checks that no other command is given them. On SIGTERM it drains
 * (`--drain-timeout`); with `--health-listen` it answers gRPC health
 * checks on a port of their own from the start.
 *
 * @module
 */
import type { ProgramDesc } from "../../gen/rill/v1/framework_pb.ts";
import {
  declarationIn,
  type DeclaredInput,
  WorkerInputs,
} from "../cluster/worker_inputs.ts";
import { parseHostPort } from "../cluster/host_port.ts";
import { WorkerLifecycle } from "../cluster/worker_lifecycle.ts";
import {
  parseDuration,
  parseWorkerLimits,
  WORKER_LIMIT_FLAGS,
} from "../cluster/worker_limits.ts";
import {
  useWorkerSettings,
  type WorkerSettings,
} from "../cluster/worker_settings.ts";
import { resolveToken, TOKEN_ENV } from "../cluster/token.ts";
import { readAttrs } from "../core/attr_read.ts";
import { ProgramError } from "../core/errors.ts";
import { fileErrorReason } from "../core/file_error.ts";
import { loadModel } from "../format/model_dir.ts";
import { OPS } from "../ops/mod.ts";
import { RPC_ENDPOINT, RPC_INPUT_TENSOR } from "../ops/rpc.ts";
import { Executor } from "../run/executor.ts";
import { checkParamsDigest } from "../transpile/fingerprint.ts";
import { WORKER_PARAMS_FILE } from "../transpile/transpile_files.ts";
import type { CliIO, CliResult, Flags } from "./_command_line.ts";
import { drainOnSigterm } from "./_drain_on_sigterm.ts";

/**
 * How long a SIGTERM'd worker lets its calls in flight finish, by
 * default: under Kubernetes' default terminationGracePeriodSeconds (30),
 * with time to spare for the exit itself.
 */
export const DEFAULT_DRAIN_TIMEOUT_MS = 20_000;

// Computed, not a string literal: the health server imports
// @connectrpc/*, which must stay out of mod.ts's module graph
// (runtime/ops/_rpc_modules.ts says why).
const HEALTH_SERVER_URL = new URL(
  "../cluster/health_server.ts",
  import.meta.url,
);

/**
 * The worker command: runs a worker program, its parameters read from
 * worker.pdiparams beside it when that exists, with --listen as the
 * address its listen_and_do serves at (and self_addr returns). The server
 * that listen_and_do starts takes the limit flags and refuses any tensor
 * the program's listen_and_do ops do not declare (worker_settings.ts says
 * why these travel process-wide). The flags are checked first: a bad one
 * is an error before anything is read. A SIGTERM drains the servers and
 * ends the command with exit 0 and one line on stderr.
 *
 * @param path The worker program.
 * @param values The command line's flags (`--listen` given).
 * @param io Where the program prints.
 * @returns Exit 0 once the program ends, or once a SIGTERM's drain is
 * over.
 *
 * @example Usage
 * ```ts
 * import { serveWorkerProgram } from "./worker_command.ts";
 * import { parseCommandLine } from "./_command_line.ts";
 * import { assertRejects } from "@std/assert";
 *
 * const { values } = parseCommandLine(["--listen", "127.0.0.1:0", "--max-calls", "0"]);
 * const io = { stdout: () => {}, stderr: () => {} };
 * await assertRejects(() => serveWorkerProgram("missing.pb", values, io));
 * ```
 */
export async function serveWorkerProgram(
  path: string,
  values: Flags,
  io: CliIO,
): Promise<CliResult> {
  const listen = values.listen!;
  const limits = parseWorkerLimits(limitFlags(values));
  const tls = await tlsFiles(values);
  const drainMs = values["drain-timeout"] === undefined
    ? DEFAULT_DRAIN_TIMEOUT_MS
    : parseDuration("drain-timeout", values["drain-timeout"]);
  const healthAt = values["health-listen"] === undefined
    ? undefined
    : listenAddress("--health-listen", values["health-listen"]);
  requireToken(values, io);
  const lifecycle = new WorkerLifecycle();
  using drain = drainOnSigterm(lifecycle, drainMs, io);
  await using _health = await serveHealthAt(healthAt, lifecycle, io);
  const serving = serve(path, listen, io, {
    limits,
    tls,
    lifecycle,
  });
  return await Promise.race([serving, drain.stopped]);
}

// Loads the worker program and runs it with the settings; its
// listen_and_do servers join `settings.lifecycle`.
async function serve(
  path: string,
  listen: string,
  io: CliIO,
  settings: Omit<WorkerSettings, "inputs">,
): Promise<CliResult> {
  const slash = path.lastIndexOf("/");
  const params = `${path.slice(0, slash + 1)}${WORKER_PARAMS_FILE}`;
  const hasParams = await Deno.stat(params).then((s) => s.isFile, () => false);
  const model = await loadModel(path, {
    params: hasParams ? params : undefined,
  });
  requireListenAndDo(model.desc, model.file);
  await checkParamsDigest(
    model.desc,
    hasParams
      ? { path: params, bytes: await Deno.readFile(params) }
      : undefined,
  );
  const executor = new Executor({
    device: "cpu",
    cluster: { selfAddr: listen },
    print: (l) => io.stdout(l + "\n"),
  });
  using _settings = useWorkerSettings({
    ...settings,
    inputs: listenAndDoInputs(model.desc),
  });
  await executor.run(model, { file: model.file });
  return { code: 0 };
}

// A worker serves only callers that hold its token (RILL_TOKEN), unless
// --insecure says to serve anyone; then it says so, once. A token that a
// header cannot carry is refused here, before anything is read.
function requireToken(values: Flags, io: CliIO): void {
  let token: string | undefined;
  try {
    token = resolveToken(undefined, undefined);
  } catch (e) {
    throw new ProgramError((e as Error).message);
  }
  if (token !== undefined) return;
  if (!values.insecure) {
    throw new ProgramError(
      `worker: no token in ${TOKEN_ENV}: a worker without one serves anyone ` +
        "who reaches it (set RILL_TOKEN on the worker and its master, or " +
        "give --insecure)",
    );
  }
  io.stderr(
    `warning: --insecure: no ${TOKEN_ENV}; this worker serves anyone who ` +
      "reaches it\n",
  );
}

// The health listener of --health-listen, serving from now on; a no-op
// without the flag. It says where it listens on stderr (stdout's first
// line is the worker's own address).
async function serveHealthAt(
  at: { host: string; port: number } | undefined,
  lifecycle: WorkerLifecycle,
  io: CliIO,
): Promise<AsyncDisposable> {
  if (at === undefined) return { [Symbol.asyncDispose]: async () => {} };
  const { serveHealth } = await import(HEALTH_SERVER_URL.href);
  let server: { addr: string; close(): Promise<void> };
  try {
    server = await serveHealth({ ...at, readiness: lifecycle.readiness });
  } catch (e) {
    throw new ProgramError(
      `--health-listen: cannot listen on ${at.host}:${at.port}: ${
        (e as Error).message
      }`,
    );
  }
  io.stderr(`health on ${server.addr}\n`);
  return { [Symbol.asyncDispose]: () => server.close() };
}

// A listening address whose port may be 0 (pick one).
function listenAddress(
  flag: string,
  text: string,
): { host: string; port: number } {
  const any = /:0$/.test(text.trim());
  const parsed = parseHostPort(any ? `${text.trim().slice(0, -1)}1` : text, {
    source: flag,
  });
  return { host: parsed.host, port: any ? 0 : parsed.port };
}

// The certificate and key of --tls-cert and --tls-key, read: both or
// neither.
async function tlsFiles(
  values: Flags,
): Promise<{ cert: string; key: string } | undefined> {
  const certFile = values["tls-cert"];
  const keyFile = values["tls-key"];
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined) {
    const [given, missing] = certFile === undefined
      ? ["--tls-key", "--tls-cert"]
      : ["--tls-cert", "--tls-key"];
    throw new ProgramError(`${given}: needs ${missing} too`);
  }
  const read = async (flag: string, file: string) => {
    try {
      return await Deno.readTextFile(file);
    } catch (e) {
      throw new ProgramError(
        `${flag}: cannot read "${file}": ${fileErrorReason(e)}`,
      );
    }
  };
  return {
    cert: await read("--tls-cert", certFile),
    key: await read("--tls-key", keyFile),
  };
}

// What the program's listen_and_do ops take: on their endpoint, the tensor
// "input" fitting each op's input_var, declared in its sub_block or an
// ancestor (the program is validated, so it is declared). Read with the
// op's own schema: the op table is the one list of its attributes.
// A worker program serves: it has a listen_and_do op. Any other program
// would run to its end and exit 0 without serving anyone.
function requireListenAndDo(desc: ProgramDesc, file: string): void {
  const serves = desc.blocks.some((b) =>
    b.ops.some((op) => op.type === "listen_and_do")
  );
  if (!serves) {
    throw new ProgramError(
      `${file}: not a worker program: it has no listen_and_do op ` +
        "(transpile makes one)",
    );
  }
}

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

// The limit flags' values, by flag name; undefined for one not given.
function limitFlags(values: Flags): Record<string, string | undefined> {
  const given = values as Record<string, unknown>;
  return Object.fromEntries(
    WORKER_LIMIT_FLAGS.map(({ flag }) => [flag, given[flag] as string]),
  );
}
