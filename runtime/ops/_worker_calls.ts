/**
 * A `send`'s call to a worker, and its retries.
 *
 * A call whose worker is lost (the call fails `unavailable`: the
 * connection was refused, reset or closed under it, or the keepalive
 * pings went unanswered) is sent again, after a backoff, to another
 * worker of the run, but only when the `send` says its pieces are pure
 * (attribute `retry`, which the transpiler sets: see
 * runtime/transpile/pure_piece.ts). Nothing else is retried: the
 * program's own failure (a panic on the worker), a refusal (wrong token,
 * wrong program, a limit of the worker's) or a deadline would fail again.
 *
 * Each retry prints one line on stderr, `warning: worker ADDR lost
 * (WHY); retrying piece P on ADDR2`, P being the piece's index in the
 * `send`'s endpoint list. A lost worker of a fixed list is re-dialled in
 * the background (_worker_roster.ts): once it answers again as a new
 * process (restarted at its address), pieces go to it again, and a piece
 * with no worker left waits for the re-dials.
 *
 * Invariants:
 *   A call is made at most MAX_ATTEMPTS times, each to a worker the run
 *   has not lost; every failure before the last marks its worker lost
 *   (_worker_roster.ts), so retries return to it only once a rediscovery
 *   or a re-dial has found it serving again.
 *   A run's connection to a worker lives while calls to it are in flight
 *   and closes when the last one ends, so a run leaves no socket open.
 *
 * @module
 */
import { itemSize } from "../../kernels/dtype.ts";
import type { Tensor } from "../../kernels/tensor.ts";
import { ProgramError } from "../core/errors.ts";
import type { RunTracer } from "../core/run_tracer.ts";
import type { RunServices } from "../core/thread_context.ts";
import { RPC_TRACK } from "../core/trace_event.ts";
import { loadRpcClient, type RpcClient } from "./_rpc_modules.ts";
import { rosterOf } from "./_worker_roster.ts";

/** The endpoint `send` calls and `listen_and_do` serves. */
export const RPC_ENDPOINT = "listen_and_do";

/**
 * The name of the tensor a call carries.
 *
 * @example Usage
 * ```ts
 * import { RPC_INPUT_TENSOR } from "./_worker_calls.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(RPC_INPUT_TENSOR, "input");
 * ```
 */
export const RPC_INPUT_TENSOR = "input";

/**
 * How many times one piece is sent at most. Each failure loses a worker,
 * so a run of N workers retries a piece at most N - 1 times anyway; the
 * cap bounds a run whose discovery keeps finding workers that fail.
 */
const MAX_ATTEMPTS = 6;
/**
 * The wait before the first retry, doubled for each next one up to
 * BACKOFF_MAX_MS: short, because the worker that takes the piece is
 * another, healthy one; long enough that a burst of failures from one
 * broken connection lands before the next attempt picks a worker.
 */
const BACKOFF_BASE_MS = 100;
const BACKOFF_MAX_MS = 2_000;

// Connect's Unavailable: the one code that says the worker, not the call,
// failed (worker_call_error.ts maps a lost connection to it). This module
// loads no RPC library before a call (see _rpc_modules.ts).
const UNAVAILABLE = 14;
// Connect's codes FailedPrecondition, Unavailable and Unauthenticated: a
// deployment's mistake, not the program's (see operationalError).
const OPERATIONAL_CODES: ReadonlySet<number> = new Set([9, UNAVAILABLE, 16]);

/** One piece to send. */
export interface PieceCall {
  /** The `send`'s endpoint list. */
  readonly endpoints: readonly string[];
  /** The endpoint it names. */
  readonly index: number;
  /** The transpiled pair's fingerprint ("" for none). */
  readonly program: string;
  /** Whether the piece is pure, so that it may go to another worker. */
  readonly retry: boolean;
}

/**
 * Sends `x` to the worker `call` names and returns its reply, retrying on
 * another worker as the module says.
 *
 * @param run The run (its connections, its roster, its cluster settings).
 * @param call Where to send it, and whether it may be retried.
 * @param x The tensor.
 * @returns The reply's tensor (the call's only one).
 * @throws {ProgramError} For an operational failure (a worker unreachable,
 * refusing the token, serving another pair), as one line.
 * @throws {Error} The worker's failure otherwise (a panic in its program).
 *
 * @example Usage
 * ```ts
 * import { callPiece } from "./_worker_calls.ts";
 * import type { RunServices } from "../core/thread_context.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { ProgramError } from "../core/errors.ts";
 * import { assertRejects } from "@std/assert";
 *
 * // Nothing listens on the port and no other worker is left to retry on:
 * // the call fails with one line (at once: this run re-dials no lost
 * // worker). With a second endpoint, a "warning:" line would name the
 * // retry.
 * const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
 * l.close();
 * const run = { cluster: { workerRedialMs: 0 } } as RunServices;
 * const call = {
 *   endpoints: [`127.0.0.1:${l.addr.port}`],
 *   index: 0,
 *   program: "",
 *   retry: true,
 * };
 * await assertRejects(
 *   () => callPiece(run, call, Tensor.fromArray([1], "float32")),
 *   ProgramError,
 * );
 * ```
 */
export async function callPiece(
  run: RunServices,
  call: PieceCall,
  x: Tensor,
): Promise<Tensor> {
  const roster = rosterOf(run);
  // Read while the calling thread runs, before the first await.
  const thread = run.tracer?.current?.id;
  let addr = call.endpoints[call.index];
  if (call.retry && roster.isLost(addr)) {
    addr = (await nextWorker(run, call, 0)) ?? addr;
  }
  for (let attempt = 1;; attempt++) {
    try {
      const traced = run.tracer && traceCall(run.tracer, addr, thread, x);
      const y = await callWorker(run, addr, x, call.program);
      traced?.(y);
      return y;
    } catch (error) {
      if (!call.retry || codeOf(error) !== UNAVAILABLE) {
        return operationalError(error);
      }
      roster.lose(addr, (lost) => redial(run, lost));
      if (attempt === MAX_ATTEMPTS) {
        return operationalError(error, `; gave up after ${attempt} attempts`);
      }
      await delay(Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt / 2));
      const next = await nextWorker(run, call, attempt);
      if (next === undefined) {
        return operationalError(error, "; no other worker is left to retry on");
      }
      warnLost(addr, error, call.index, next);
      addr = next;
    }
  }
}

// The worker for attempt `attempt` + 1: the candidates taken in turn from
// the piece's own index, so the pieces of a lost worker spread over the
// others. With none left, waits for a rediscovery or the re-dials in
// flight.
async function nextWorker(
  run: RunServices,
  call: PieceCall,
  attempt: number,
): Promise<string | undefined> {
  const roster = rosterOf(run);
  let candidates = roster.candidates(call.endpoints);
  if (candidates.length === 0) {
    await roster.settled();
    candidates = roster.candidates(call.endpoints);
  }
  if (candidates.length === 0) return undefined;
  return candidates[(call.index + attempt) % candidates.length];
}

// The one line an operator sees when a run survives losing a worker: on
// stderr, beside errors, so that stdout stays the program's (as discovery's
// progress lines do). `error` is the call's WorkerCallError; its detail is
// why the worker was given up (connection refused, reset, keepalive).
function warnLost(
  addr: string,
  error: unknown,
  piece: number,
  next: string,
): void {
  const detail = (error as { detail?: unknown }).detail;
  const why = typeof detail === "string" ? detail : String(error);
  console.error(
    `warning: worker ${addr} lost (${why}); retrying piece ${piece} on ${next}`,
  );
}

/** How long a re-dial waits for a lost worker's health answer. */
const REDIAL_HEALTH_TIMEOUT_MS = 2_000;

// Whether the lost worker at `addr` serves again (see _worker_roster.ts):
// its Health answers, on a connection of its own, closed at once, as a new
// process, one that has served no call. A worker that answers having served
// calls is the process that was lost: stopped and continued, or too busy to
// answer PINGs. It may still be computing what it was sent (a piece cannot
// be stopped), so it stays lost: sending it more would only lose it again.
async function redial(run: RunServices, addr: string): Promise<boolean> {
  const { connectWorker } = await loadRpcClient();
  const client = connectWorker(addr, {
    ca: run.cluster?.tlsCa,
    timeoutMs: REDIAL_HEALTH_TIMEOUT_MS,
  });
  try {
    const health = await client.health();
    return health.serving && health.callsServed === 0n;
  } catch {
    return false;
  } finally {
    client.close();
  }
}

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown })?.code;
}

// A worker that cannot be reached, refuses the token or serves another
// transpiled pair is a deployment mistake, not the program's: a
// ProgramError, which the CLI reports as one `error:` line (exit 1) rather
// than a panic with a goroutine dump. Anything else stays the op's panic.
function operationalError(error: unknown, more = ""): never {
  const code = codeOf(error);
  if (typeof code === "number" && OPERATIONAL_CODES.has(code)) {
    throw new ProgramError(`${(error as Error).message}${more}`);
  }
  throw error;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// A run's open connections by address (see the invariants).
interface OpenClient {
  readonly client: RpcClient;
  inFlight: number;
}
const openClients = new WeakMap<RunServices, Map<string, OpenClient>>();

// A traced run's RPC call: a span on the worker's RPC track from the call
// to its reply, with the calling thread and the bytes each way.
function traceCall(
  tracer: RunTracer,
  addr: string,
  thread: number | undefined,
  x: Tensor,
): (y: Tensor) => void {
  const start = tracer.now();
  return (y) =>
    tracer.span(RPC_TRACK, `call ${addr}`, "rpc", start, {
      addr,
      thread,
      sentBytes: x.size * itemSize(x.dtype),
      receivedBytes: y.size * itemSize(y.dtype),
    });
}

// One call on the run's connection to `addr`.
async function callWorker(
  run: RunServices,
  addr: string,
  x: Tensor,
  program: string,
): Promise<Tensor> {
  const { connectWorker } = await loadRpcClient();
  let clients = openClients.get(run);
  if (clients === undefined) openClients.set(run, clients = new Map());
  let open = clients.get(addr);
  if (open === undefined) {
    const cluster = run.cluster;
    const client = connectWorker(addr, {
      ca: cluster?.tlsCa,
      keepaliveMs: cluster?.rpcKeepaliveMs,
      timeoutMs: cluster?.rpcTimeoutMs,
    });
    open = { client, inFlight: 0 };
    clients.set(addr, open);
  }
  open.inFlight++;
  try {
    await checkWorker(run, addr, open.client);
    const reply = await open.client.call(RPC_ENDPOINT, {
      [RPC_INPUT_TENSOR]: x,
    }, { program });
    return onlyTensor(reply, `the reply of worker ${addr}`);
  } finally {
    if (--open.inFlight === 0) {
      clients.delete(addr);
      open.client.close();
    }
  }
}

// What a server that answers HTTP/2 but is no Rill worker makes Connect's
// client say: a reply of another content type, or an HTTP status.
const OTHER_SERVER = /unsupported content type|HTTP status|\bHTTP \d{3}\b/i;
// Connect's Unimplemented: a gRPC or Connect server without the method.
const UNIMPLEMENTED = 12;

// The addresses a run has asked whether they are Rill workers, with the
// answer (see checkWorker).
const checkedWorkers = new WeakMap<RunServices, Map<string, Promise<void>>>();

// Before the first piece goes to `addr` in a run, the worker's Health call:
// a server that is no Rill worker (an HTTP server, another gRPC service) is
// then one error line before any work is sent, where the call itself would
// fail at the reply with a panic; a wrong token shows here too. A worker
// that cannot be reached fails `unavailable`, as its call would, and is
// asked again if a later piece comes back to it.
function checkWorker(
  run: RunServices,
  addr: string,
  client: RpcClient,
): Promise<void> {
  let checked = checkedWorkers.get(run);
  if (checked === undefined) checkedWorkers.set(run, checked = new Map());
  let answer = checked.get(addr);
  if (answer === undefined) {
    answer = askHealth(addr, client);
    checked.set(addr, answer);
    answer.catch(() => checked.delete(addr));
  }
  return answer;
}

async function askHealth(addr: string, client: RpcClient): Promise<void> {
  try {
    await client.health();
  } catch (error) {
    const code = codeOf(error);
    if (typeof code === "number" && OPERATIONAL_CODES.has(code)) throw error;
    const detail = (error as { detail?: string }).detail ??
      (error as Error).message;
    throw new ProgramError(
      OTHER_SERVER.test(detail) || code === UNIMPLEMENTED
        ? `worker ${addr} is not a Rill worker: its health call failed: ${detail}`
        : `worker ${addr}: ${detail}`,
    );
  }
}

/**
 * The one tensor of a request or reply.
 *
 * @param tensors The request's or reply's tensors.
 * @param what What they are, for the error.
 * @returns The tensor.
 * @throws {RangeError} If there is not exactly one.
 *
 * @example Usage
 * ```ts
 * import { onlyTensor } from "./_worker_calls.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const t = Tensor.fromArray([1], "float32");
 * assertEquals(onlyTensor(new Map([["input", t]]), "the call"), t);
 * ```
 */
export function onlyTensor(tensors: Map<string, Tensor>, what: string): Tensor {
  if (tensors.size !== 1) {
    throw new RangeError(
      `${what} carries ${tensors.size} tensors, not 1 (${
        [...tensors.keys()].map((n) => `"${n}"`).join(", ")
      })`,
    );
  }
  return tensors.values().next().value!;
}
