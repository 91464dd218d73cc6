/**
 * Serving the worker service (proto/rill/v1/rpc.proto) with Connect-RPC on
 * `node:http2`, which speaks the Connect and gRPC protocols over HTTP/2,
 * with TLS when given a certificate and key.
 *
 * Each call runs on its own: calls arrive on HTTP/2 streams, and a handler
 * that awaits lets the others proceed, so many are served at once.
 *
 * Security: binds 127.0.0.1 unless told otherwise; when a token is set
 * (the `token` option, else `RILL_TOKEN`), a call without
 * `authorization: Bearer <token>` is refused with `unauthenticated` before
 * any of its messages is read, except a call of gRPC's standard health
 * service (health_service.ts), which tells only whether the worker serves; every message is limited to `readMaxBytes`;
 * a malformed tensor stream is refused with `invalid_argument`. A broken
 * connection ends its calls, and the server carries on.
 *
 * Starvation: the limits of worker_limits.ts hold, each where it can be
 * enforced for real. Connections (their number, their preface, their idle
 * time) are held by `_connection_guard.ts` on the listener's sockets and
 * sessions; each request's read and call deadlines by `_request_watch.ts`
 * around Connect's handler; the number of calls in flight (`--max-calls`,
 * refused, not queued) when a call starts, before its first message is
 * read; its tensor bytes (`--max-call-bytes`) and, when the worker knows
 * what its endpoints take (`WorkerInputs`), each tensor's name, dtype and
 * shape, when the tensor's header arrives, before its bytes are buffered.
 * A call that a deadline ends stops waiting for its handler, which may run
 * on (a green thread cannot be stopped), and its slot is freed.
 *
 * Stopping (_server_shutdown.ts): `close()` ends the calls in flight with
 * `unavailable`; `drain()` first turns the health service NOT_SERVING,
 * refuses new calls with `unavailable` and lets those in flight finish
 * within a grace, as a Kubernetes pod does between SIGTERM and SIGKILL.
 *
 * @module
 */

import * as http2 from "node:http2";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import {
  type CallResponse,
  HealthResponseSchema,
  WorkerService,
} from "../../gen/rill/v1/rpc_pb.ts";
import type { Tensor } from "../../kernels/tensor.ts";
import { tokenGate } from "./_bearer_token.ts";
import { resolveToken } from "./token.ts";
import { ConnectionGuard } from "./_connection_guard.ts";
import { HTTP2_SETTINGS, widenWindow } from "./_http2_settings.ts";
import { tooManyCalls } from "./_limit_status.ts";
import { REQUEST_WATCH, RequestWatcher } from "./_request_watch.ts";
import { type CallConfig, serveCall, statusOf } from "./_serve_call.ts";
import { type CallStats, ServerShutdown } from "./_server_shutdown.ts";
import { HEALTH_SERVICE_NAME, routeHealth } from "./health_service.ts";
import { listen } from "./_listen.ts";
import { formatHostPort } from "./host_port.ts";
import { Readiness } from "./readiness.ts";
import type { NamedTensors } from "./tensor_parts.ts";
import type { WorkerInputs } from "./worker_inputs.ts";
import type { DrainReport } from "./worker_lifecycle.ts";
import type { WorkerLimits } from "./worker_limits.ts";
import { workerSettings } from "./worker_settings.ts";

/** What a handler learns about the call besides its tensors. */
export interface WorkerCallContext {
  /** The caller's number for the call. */
  requestId: bigint;
  /**
   * Aborted when the call ends early: its deadline passed, the caller went
   * away, or the server is closing.
   */
  signal: AbortSignal;
}

/**
 * Runs an endpoint: takes the request's tensors, returns the reply's. A
 * `ConnectError` it throws reaches the caller with its code; any other
 * error reaches it as `unknown` with the error's message.
 */
export type WorkerHandler = (
  endpoint: string,
  tensors: Map<string, Tensor>,
  context: WorkerCallContext,
) => NamedTensors | Promise<NamedTensors>;

/** A certificate and its key, PEM-encoded. */
export interface WorkerTlsOptions {
  /** The certificate chain, server certificate first. */
  cert: string;
  /** The private key. */
  key: string;
}

/** Options for {@linkcode serveWorker}. */
export interface ServeWorkerOptions {
  /** Runs each call. */
  handler: WorkerHandler;
  /**
   * The address to bind.
   *
   * @default {"127.0.0.1"}
   */
  host?: string;
  /**
   * The port; 0 picks a free one (see {@linkcode WorkerServer.addr}).
   *
   * @default {0}
   */
  port?: number;
  /**
   * The token every call must carry; "" for none.
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
   * The fingerprint of the transpiled pair this worker serves: calls that
   * name another are refused (`failed_precondition`).
   *
   * @default {undefined} (takes any call)
   */
  program?: string;
  /**
   * Serve over TLS with this certificate and key.
   *
   * @default {workerSettings().tls} (plain HTTP/2 unless the worker command
   * was given --tls-cert and --tls-key)
   */
  tls?: WorkerTlsOptions;
  /**
   * The largest request message accepted, in bytes; clients send messages
   * of at most their `chunkBytes` (1 MiB by default).
   *
   * @default {4194304}
   */
  readMaxBytes?: number;
  /**
   * Limits that differ from the settings in force (worker_limits.ts).
   *
   * @default {workerSettings().limits} (DEFAULT_WORKER_LIMITS unless the
   * `worker` command set its flags)
   */
  limits?: Partial<WorkerLimits>;
  /**
   * What the endpoints take: a call to another endpoint, or with another
   * tensor, is refused before the handler runs.
   *
   * @default {workerSettings().inputs} (any endpoint and tensors, unless
   * the `worker` command set its program's)
   */
  inputs?: WorkerInputs;
  /**
   * The size of the reply's messages.
   *
   * @default {1048576}
   */
  chunkBytes?: number;
}

/** A serving worker. */
export interface WorkerServer {
  /** `host:port` as bound, with the picked port. */
  readonly addr: string;
  /** Whether it serves TLS. */
  readonly tls: boolean;
  /** The limits it holds to. */
  readonly limits: Readonly<WorkerLimits>;
  /** How many calls it is serving now, replies still going out included. */
  readonly callsInFlight: number;
  /**
   * Stops serving: closes the listener and every connection. Calls in
   * flight fail with `unavailable`: their handlers' signals abort, and a
   * connection whose calls have not ended after a second is cut.
   *
   * @returns When everything is closed.
   */
  close(): Promise<void>;
  /**
   * Stops serving after the calls in flight: the health service turns
   * NOT_SERVING and new calls are refused with `unavailable` at once; the
   * calls in flight get `timeoutMs` to finish and send their replies; then
   * it closes as {@linkcode WorkerServer.close} does, cutting what is left.
   *
   * @param options The grace, in milliseconds.
   * @returns How many calls finished within the grace, and how many were
   * cut.
   */
  drain(options: { timeoutMs: number }): Promise<DrainReport>;
  /** Same as {@linkcode WorkerServer.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** The default limit on a request message: 4 MiB. */
export const DEFAULT_READ_MAX_BYTES = 4 << 20;

/**
 * The streams one connection may have open at once (HTTP/2's
 * SETTINGS_MAX_CONCURRENT_STREAMS): each costs the server memory before
 * any limit on calls applies. A client's further requests wait in its own
 * HTTP/2 layer until a stream closes.
 */
const MAX_STREAMS_PER_CONN = 100;

/**
 * Serves a worker until closed.
 *
 * @param options The handler, the address, and the security settings.
 * @returns The server, once it listens.
 * @throws {TypeError} If the token cannot travel in a header.
 * @throws {Error} If the address cannot be bound (in use, not local).
 *
 * @example Usage
 * ```ts
 * import { serveWorker } from "./worker_server.ts";
 * import { connectWorker } from "./worker_client.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * await using server = await serveWorker({
 *   handler: (_endpoint, tensors) => ({ output: tensors.get("input")! }),
 *   token: "",
 * });
 * using client = connectWorker(server.addr, { token: "" });
 * const reply = await client.call("echo", { input: Tensor.scalar(7, "int32") });
 * assertEquals(reply.get("output")?.item(0), 7);
 * ```
 */
export async function serveWorker(
  options: ServeWorkerOptions,
): Promise<WorkerServer> {
  const token = resolveToken(options.token, options.env);
  const host = options.host ?? "127.0.0.1";
  const settings = workerSettings();
  const config: CallConfig = {
    options,
    limits: Object.freeze({ ...settings.limits, ...options.limits }),
    inputs: options.inputs ?? settings.inputs,
  };
  const tls = options.tls ?? settings.tls;
  const stats: CallStats = { inFlight: 0, served: 0 };
  const http2Options = {
    settings: { ...HTTP2_SETTINGS, maxConcurrentStreams: MAX_STREAMS_PER_CONN },
  };
  const server = tls === undefined
    ? http2.createServer(http2Options)
    : http2.createSecureServer({ ...http2Options, ...tls });
  const guard = new ConnectionGuard(server, config.limits);
  const shutdown = new ServerShutdown(
    server,
    guard,
    stats,
    new Readiness(true),
  );
  const watcher = new RequestWatcher(
    config.limits,
    (session) => guard.refusal(session),
  );
  const checkToken = token === undefined ? undefined : tokenGate(token);
  const adapter = connectNodeAdapter({
    routes: (router) => {
      route(router, config, stats, shutdown);
      routeHealth(router, shutdown.readiness);
    },
    readMaxBytes: options.readMaxBytes ?? DEFAULT_READ_MAX_BYTES,
    // No compression either way: tensor bytes hardly compress, and gzip of
    // a 64 MiB reply costs seconds of CPU, while Connect's default would
    // gzip every reply to a client that accepts it.
    acceptCompression: [],
    shutdownSignal: shutdown.signal,
    contextValues: (req) => watcher.contextValues(req),
    // Before any request message is read: a connection over a cap, then
    // the token, which the health service alone does without.
    requestGate: (context) => {
      const refusal = context.values.get(REQUEST_WATCH)?.refusal;
      if (refusal !== undefined) throw refusal;
      if (context.service.typeName === HEALTH_SERVICE_NAME) return;
      checkToken?.(context);
    },
  });
  server.on("request", watcher.listener(adapter));
  server.on("session", (session: http2.ServerHttp2Session) => {
    widenWindow(session);
    // A broken connection ends its calls; it must not end the process.
    session.on("error", () => {});
  });
  const port = await listen(server, host, options.port ?? 0);
  const close = (): Promise<void> => {
    leave();
    return shutdown.close();
  };
  const worker: WorkerServer = {
    addr: formatHostPort(host, port),
    tls: tls !== undefined,
    limits: config.limits,
    get callsInFlight(): number {
      return Math.max(stats.inFlight, shutdown.openResponses);
    },
    close,
    drain: ({ timeoutMs }) => {
      leave();
      return shutdown.drain(timeoutMs);
    },
    [Symbol.asyncDispose]: close,
  };
  // A worker process's servers drain together on SIGTERM.
  const leave = settings.lifecycle?.join(worker) ?? (() => {});
  return worker;
}

/** Binds the service's methods to the handler. */
function route(
  router: ConnectRouter,
  config: CallConfig,
  stats: CallStats,
  shutdown: ServerShutdown,
): void {
  router.service(WorkerService, {
    async *call(requests, context): AsyncGenerator<CallResponse> {
      // Refused before any message is read: nothing of it is buffered.
      if (shutdown.refusing) {
        throw new ConnectError(
          "the worker is draining before it stops: call another",
          Code.Unavailable,
        );
      }
      if (stats.inFlight >= config.limits.maxCalls) {
        throw tooManyCalls(config.limits);
      }
      stats.inFlight++;
      const watch = context.values.get(REQUEST_WATCH);
      const signal = watch === undefined
        ? context.signal
        : AbortSignal.any([context.signal, watch.signal]);
      try {
        yield* serveCall(requests, signal, config);
      } catch (error) {
        // A call cut short by closing ends with the closing status, whatever
        // its handler threw on the way out.
        throw shutdown.signal.aborted
          ? shutdown.signal.reason
          : statusOf(error, config);
      } finally {
        stats.inFlight--;
        stats.served++;
      }
    },
    health() {
      return create(HealthResponseSchema, {
        serving: !shutdown.refusing,
        callsInFlight: stats.inFlight,
        callsServed: BigInt(stats.served),
      });
    },
  });
}
