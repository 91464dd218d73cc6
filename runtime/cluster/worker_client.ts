/**
 * Calling a worker (see `worker_server.ts`) with Connect-RPC over one
 * HTTP/2 connection, opened on the first call and shared by every call.
 *
 * A call has no deadline unless one is given: a call may legitimately run
 * for an hour. A dead or stopped worker is noticed by HTTP/2 keepalive
 * instead: while calls are in flight, a connection that has received
 * nothing for half the keepalive time sends a PING, and one that is not
 * answered within the other half closes the connection, failing its calls
 * with `unavailable`. So a silent worker is given up within the keepalive
 * time (default {@linkcode DEFAULT_KEEPALIVE_MS}). The worker must answer
 * PINGs while it computes: it yields to its event loop after each matrix
 * product and every few milliseconds in loops, but one op that computes
 * for longer than half the keepalive time (a single product of minutes)
 * needs a longer one.
 *
 * Over the Connect protocol (the default), a call's request messages are
 * framed by `_call_transport.ts`, which writes tensor bytes to the stream
 * without copying them; the gRPC protocol is Connect's transport whole.
 *
 * Health checks keep a deadline ({@linkcode DEFAULT_HEALTH_TIMEOUT_MS}).
 * Every failure, whatever its cause (the worker refused, failed, took too
 * long, died, or the connection broke), is a {@linkcode WorkerCallError}
 * with a one-line message.
 *
 * @module
 */

import { create } from "@bufbuild/protobuf";
import {
  type Client,
  Code,
  ConnectError,
  createClient,
  type Interceptor,
} from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import {
  CallHeaderSchema,
  type CallRequest,
  CallRequestSchema,
  type CallResponse,
  WorkerService,
} from "../../gen/rill/v1/rpc_pb.ts";
import { readBack } from "../../kernels/device_tensor.ts";
import type { Tensor } from "../../kernels/tensor.ts";
import { bearerInterceptor } from "./_bearer_token.ts";
import { callTransport } from "./_call_transport.ts";
import { resolveToken } from "./token.ts";
import { HTTP2_SETTINGS, WideWindowSessionManager } from "./_http2_settings.ts";
import { formatHostPort, parseHostPort } from "./host_port.ts";
import {
  DEFAULT_MAX_STREAM_BYTES,
  encodeTensorParts,
  namedTensorEntries,
  type NamedTensors,
  TensorAssembler,
} from "./tensor_parts.ts";
import { WorkerCallError } from "./worker_call_error.ts";
import { DEFAULT_READ_MAX_BYTES } from "./worker_server.ts";

/** Options for {@linkcode connectWorker}. */
export interface ConnectWorkerOptions {
  /**
   * The token to send with every call; "" for none.
   *
   * @default {the `RILL_TOKEN` environment variable, if set and non-empty}
   */
  token?: string;
  /**
   * The environment to read `RILL_TOKEN` from.
   *
   * @default {processEnv()}
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Connect over TLS and trust this CA (PEM) for the worker's certificate.
   *
   * @default {undefined} (plain HTTP/2)
   */
  ca?: string;
  /**
   * The deadline of each call and health check, in milliseconds.
   *
   * @default {undefined} (none for a call; {@linkcode DEFAULT_HEALTH_TIMEOUT_MS} for a health check)
   */
  timeoutMs?: number;
  /**
   * The keepalive time in milliseconds: a connection with calls in flight
   * that receives nothing for this long (PINGs unanswered) is closed and
   * its calls fail with `unavailable`.
   *
   * @default {10000}
   */
  keepaliveMs?: number;
  /**
   * The size of request messages; the worker's `readMaxBytes` must admit
   * it.
   *
   * @default {1048576}
   */
  chunkBytes?: number;
  /**
   * The largest reply message accepted, in bytes.
   *
   * @default {4194304}
   */
  readMaxBytes?: number;
  /**
   * The most bytes of tensors one reply may hold.
   *
   * @default {1073741824}
   */
  maxReplyBytes?: number;
  /**
   * The wire protocol: Connect's or gRPC's (both over HTTP/2).
   *
   * @default {"connect"}
   */
  protocol?: "connect" | "grpc";
}

/** Options for one call. */
export interface WorkerCallOptions {
  /**
   * The fingerprint of the transpiled pair this call belongs to; a worker
   * serving another pair refuses it (`failed_precondition`).
   *
   * @default {""} (names none)
   */
  program?: string;
  /**
   * The deadline in milliseconds.
   *
   * @default {the client's `timeoutMs`}
   */
  timeoutMs?: number;
  /**
   * Cancels the call.
   *
   * @default {undefined}
   */
  signal?: AbortSignal;
}

/** A worker's answer to a health check. */
export interface WorkerHealth {
  /** Whether it takes calls. */
  serving: boolean;
  /** Calls it is serving now. */
  callsInFlight: number;
  /** Calls it has finished since it started. */
  callsServed: bigint;
}

/** A connection to a worker. */
export interface WorkerClient {
  /** The worker's `host:port`. */
  readonly addr: string;
  /**
   * Runs an endpoint on the worker.
   *
   * @param endpoint The endpoint's name.
   * @param tensors The request's tensors.
   * @param options The deadline and a cancel signal.
   * @returns The reply's tensors, in the order the worker sent them.
   * @throws {WorkerCallError} If the call fails in any way.
   * @throws {TypeError} If a tensor name is empty or a value not a tensor.
   */
  call(
    endpoint: string,
    tensors: NamedTensors,
    options?: WorkerCallOptions,
  ): Promise<Map<string, Tensor>>;
  /**
   * Asks whether the worker is serving.
   *
   * @param options The deadline and a cancel signal.
   * @returns Its state.
   * @throws {WorkerCallError} If it does not answer in time.
   */
  health(options?: WorkerCallOptions): Promise<WorkerHealth>;
  /** Closes the connection; calls in flight fail with `canceled`. */
  close(): void;
  /** Same as {@linkcode WorkerClient.close}, for `using`. */
  [Symbol.dispose](): void;
}

/**
 * The default keepalive time: 10 s, so a stopped worker is given up
 * within 10 s (the bar is 15 s), while a worker whose event loop
 * is busy for a few seconds between its yields is not.
 */
export const DEFAULT_KEEPALIVE_MS = 10_000;

/** The default deadline of a health check: 10 s. */
export const DEFAULT_HEALTH_TIMEOUT_MS = 10_000;

/**
 * Makes a client for the worker at `addr`. Nothing is dialled until the
 * first call.
 *
 * @param addr The worker's `host:port`.
 * @param options The token, the CA, the deadline and the limits.
 * @returns The client.
 * @throws {HostPortError} If `addr` is not a valid `host:port`.
 * @throws {TypeError} If the token cannot travel in a header.
 * @throws {RangeError} If `timeoutMs` or `keepaliveMs` is not a positive
 * finite number.
 *
 * @example Usage
 * ```ts
 * import { connectWorker } from "./worker_client.ts";
 * import { WorkerCallError } from "./worker_call_error.ts";
 * import { Code } from "@connectrpc/connect";
 * import { assertEquals, assertRejects } from "@std/assert";
 *
 * // A port that nothing listens on: the call fails at once.
 * const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
 * const { port } = listener.addr;
 * listener.close();
 * using client = connectWorker(`127.0.0.1:${port}`, { token: "", timeoutMs: 2000 });
 * const e = await assertRejects(() => client.health(), WorkerCallError);
 * assertEquals(e.code, Code.Unavailable);
 * ```
 */
export function connectWorker(
  addr: string,
  options: ConnectWorkerOptions = {},
): WorkerClient {
  const { host, port } = parseHostPort(addr, { source: "worker address" });
  const target = formatHostPort(host, port);
  const token = resolveToken(options.token, options.env);
  const timeoutMs = options.timeoutMs === undefined
    ? undefined
    : checkTimeout(options.timeoutMs);
  const keepaliveMs = checkTimeout(options.keepaliveMs ?? DEFAULT_KEEPALIVE_MS);
  const baseUrl = `${options.ca === undefined ? "http" : "https"}://${target}`;
  const sessionManager = http2Session(baseUrl, options.ca, keepaliveMs);
  const client = serviceClient(baseUrl, sessionManager, token, options);
  let nextId = 1n;
  let closed = false;
  function close(): void {
    if (closed) return;
    closed = true;
    sessionManager.abort();
  }
  return {
    addr: target,
    async call(endpoint, tensors, callOptions = {}) {
      const entries = namedTensorEntries(tensors);
      const given = callOptions.timeoutMs ?? timeoutMs;
      const deadline = given === undefined ? undefined : checkTimeout(given);
      const requestId = nextId++;
      try {
        return await callEndpoint(client, requestId, endpoint, entries, {
          deadline,
          callOptions,
          options,
        });
      } catch (error) {
        throw WorkerCallError.from(error, {
          addr: target,
          endpoint,
          timeoutMs: deadline,
          canceledByCaller: closed || callOptions.signal?.aborted,
        });
      }
    },
    async health(callOptions = {}) {
      const deadline = checkTimeout(
        callOptions.timeoutMs ?? timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS,
      );
      try {
        return await askHealth(client, deadline, callOptions);
      } catch (error) {
        throw WorkerCallError.from(error, {
          addr: target,
          timeoutMs: deadline,
          canceledByCaller: closed || callOptions.signal?.aborted,
        });
      }
    },
    close,
    [Symbol.dispose]: close,
  };
}

/**
 * The client's one HTTP/2 session, over TLS when a CA is given; it dials on
 * the first call and closes on `abort()`. Its PINGs (see the module's
 * documentation) go out after half the keepalive time without data, and
 * wait the other half for their answer.
 */
function http2Session(
  baseUrl: string,
  ca: string | undefined,
  keepaliveMs: number,
): WideWindowSessionManager {
  const half = Math.max(1, Math.floor(keepaliveMs / 2));
  return new WideWindowSessionManager(baseUrl, {
    pingIntervalMs: half,
    pingTimeoutMs: Math.max(1, keepaliveMs - half),
  }, {
    settings: HTTP2_SETTINGS,
    ...(ca === undefined ? {} : { ca }),
  });
}

/**
 * The worker service's client over `sessionManager`, in the chosen
 * protocol, sending the token (if any) with every call.
 */
function serviceClient(
  baseUrl: string,
  sessionManager: WideWindowSessionManager,
  token: string | undefined,
  options: ConnectWorkerOptions,
): Client<typeof WorkerService> {
  const interceptors: Interceptor[] = token === undefined
    ? []
    : [bearerInterceptor(token)];
  const readMaxBytes = options.readMaxBytes ?? DEFAULT_READ_MAX_BYTES;
  if (options.protocol !== "grpc") {
    // Connect's, but a call's tensor bytes go out uncopied.
    return createClient(
      WorkerService,
      callTransport({ baseUrl, sessionManager, interceptors, readMaxBytes }),
    );
  }
  return createClient(
    WorkerService,
    createGrpcTransport({
      baseUrl,
      sessionManager,
      interceptors,
      readMaxBytes,
      // Tensors travel uncompressed (see worker_server.ts): by not offering
      // gzip, the client keeps any Connect server from compressing replies.
      acceptCompression: [],
    }),
  );
}

/**
 * One call's deadline and limits: the resolved deadline, the caller's
 * options (for the signal) and the client's options (for the sizes).
 */
interface CallLimits {
  readonly deadline: number | undefined;
  readonly callOptions: WorkerCallOptions;
  readonly options: ConnectWorkerOptions;
}

/**
 * Runs one call and returns the reply's tensors; the caller turns any
 * failure into a WorkerCallError.
 */
async function callEndpoint(
  client: Client<typeof WorkerService>,
  requestId: bigint,
  endpoint: string,
  entries: readonly (readonly [string, Tensor])[],
  { deadline, callOptions, options }: CallLimits,
): Promise<Map<string, Tensor>> {
  // Tensors on a device come to the host first: their bytes are what travels.
  await readBack(entries.map(([, tensor]) => tensor));
  const requests = requestMessages(
    { requestId, endpoint, program: callOptions.program ?? "" },
    entries,
    options,
  );
  const assembler = new TensorAssembler({
    maxBytes: options.maxReplyBytes ?? DEFAULT_MAX_STREAM_BYTES,
  });
  const replies = client.call(requests, {
    timeoutMs: deadline,
    signal: callOptions.signal,
  });
  return await assembleReply(replies, requestId, assembler);
}

/**
 * The reply stream's tensors. Its first message must acknowledge the call
 * and carry no parts; the parts of the rest go to `assembler`.
 */
async function assembleReply(
  replies: AsyncIterable<CallResponse>,
  requestId: bigint,
  assembler: TensorAssembler,
): Promise<Map<string, Tensor>> {
  let acknowledged = false;
  for await (const reply of replies) {
    if (!acknowledged) {
      if (reply.requestId !== requestId || reply.parts.length > 0) {
        throw new ConnectError(
          `the reply does not acknowledge call ${requestId}`,
          Code.Internal,
        );
      }
      acknowledged = true;
      continue;
    }
    for (const part of reply.parts) assembler.push(part);
  }
  if (!acknowledged) {
    throw new ConnectError("the reply stream is empty", Code.Internal);
  }
  return assembler.finish();
}

/**
 * Asks the worker's health and copies it out of the reply message; the
 * caller turns any failure into a WorkerCallError.
 */
async function askHealth(
  client: Client<typeof WorkerService>,
  deadline: number,
  callOptions: WorkerCallOptions,
): Promise<WorkerHealth> {
  const reply = await client.health({}, {
    timeoutMs: deadline,
    signal: callOptions.signal,
  });
  return {
    serving: reply.serving,
    callsInFlight: reply.callsInFlight,
    callsServed: reply.callsServed,
  };
}

/** A call's request stream: the header, then the tensors' parts. */
async function* requestMessages(
  call: { requestId: bigint; endpoint: string; program: string },
  entries: readonly (readonly [string, Tensor])[],
  options: ConnectWorkerOptions,
): AsyncGenerator<CallRequest> {
  const header = create(CallHeaderSchema, call);
  let first = true;
  for (const parts of encodeTensorParts(entries, options)) {
    yield create(CallRequestSchema, {
      header: first ? header : undefined,
      parts,
    });
    first = false;
  }
  if (first) yield create(CallRequestSchema, { header });
}

function checkTimeout(ms: number): number {
  if (!(ms > 0 && Number.isFinite(ms))) {
    throw new RangeError(
      `worker call: timeoutMs ${ms} is not a positive number`,
    );
  }
  return ms;
}
