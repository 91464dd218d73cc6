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
 * any of its messages is read; every message is limited to `readMaxBytes`
 * and every call's tensors to `maxCallBytes` (`resource_exhausted`); a
 * malformed tensor stream is refused with `invalid_argument`. A broken
 * connection ends its calls, and the server carries on.
 *
 * @module
 */

import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import {
  type CallRequest,
  type CallResponse,
  CallResponseSchema,
  HealthResponseSchema,
  WorkerService,
} from "../../gen/rill/v1/rpc_pb.ts";
import { readBack } from "../../kernels/device_tensor.ts";
import type { Tensor } from "../../kernels/tensor.ts";
import { printable } from "../core/errors.ts";
import { resolveToken, tokenGate } from "./_bearer_token.ts";
import { HTTP2_SETTINGS, widenWindow } from "./_http2_settings.ts";
import { formatHostPort } from "./host_port.ts";
import {
  encodeTensorParts,
  namedTensorEntries,
  type NamedTensors,
  TensorAssembler,
  TensorStreamError,
} from "./tensor_parts.ts";

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
   * @default {Deno.env.toObject()}
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Serve over TLS with this certificate and key.
   *
   * @default {undefined} (plain HTTP/2)
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
   * The most bytes of tensors one call may send (each tensor also costs 64
   * bytes of bookkeeping).
   *
   * @default {1073741824}
   */
  maxCallBytes?: number;
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
  /**
   * Stops serving: closes the listener and every connection. Calls in
   * flight fail with `unavailable`: their handlers' signals abort, and a
   * connection whose calls have not ended after a second is cut.
   *
   * @returns When everything is closed.
   */
  close(): Promise<void>;
  /** Same as {@linkcode WorkerServer.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * How long `close()` lets calls send their final status before it cuts
 * their connections.
 */
const CLOSE_GRACE_MS = 1000;

/** The default limit on a request message: 4 MiB. */
export const DEFAULT_READ_MAX_BYTES = 4 << 20;

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
  const shutdown = new AbortController();
  const stats = { inFlight: 0, served: 0 };
  const adapter = connectNodeAdapter({
    routes: (router) => route(router, options, stats, shutdown.signal),
    readMaxBytes: options.readMaxBytes ?? DEFAULT_READ_MAX_BYTES,
    // No compression either way: tensor bytes hardly compress, and gzip of
    // a 64 MiB reply costs seconds of CPU, while Connect's default would
    // gzip every reply to a client that accepts it.
    acceptCompression: [],
    shutdownSignal: shutdown.signal,
    requestGate: token === undefined ? undefined : tokenGate(token),
  });
  const server = options.tls === undefined
    ? http2.createServer({ settings: HTTP2_SETTINGS }, adapter)
    : http2.createSecureServer({
      settings: HTTP2_SETTINGS,
      cert: options.tls.cert,
      key: options.tls.key,
    }, adapter);
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    widenWindow(session);
    session.on("close", () => sessions.delete(session));
    // A broken connection ends its calls; it must not end the process.
    session.on("error", () => {});
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", () => {});
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  function close(): Promise<void> {
    closing ??= new Promise<void>((resolve) => {
      // 1. Handlers' signals abort: each call ends with this status.
      shutdown.abort(
        new ConnectError("the worker is closing", Code.Unavailable),
      );
      // 2. No new connections; each open one ends when its calls have
      // sent their status (GOAWAY), or is cut at the grace period's end.
      const grace = setTimeout(() => {
        for (const session of sessions) session.destroy();
      }, CLOSE_GRACE_MS);
      server.close(() => {
        clearTimeout(grace);
        resolve();
      });
      for (const session of sessions) session.close();
    });
    return closing;
  }
  return {
    addr: formatHostPort(host, port),
    tls: options.tls !== undefined,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Binds the service's methods to the handler. */
function route(
  router: ConnectRouter,
  options: ServeWorkerOptions,
  stats: { inFlight: number; served: number },
  shutdown: AbortSignal,
): void {
  router.service(WorkerService, {
    async *call(requests, context): AsyncGenerator<CallResponse> {
      stats.inFlight++;
      try {
        yield* serveCall(requests, context.signal, options);
      } catch (error) {
        // A call cut short by closing ends with the closing status, whatever
        // its handler threw on the way out.
        throw shutdown.aborted ? shutdown.reason : statusOf(error);
      } finally {
        stats.inFlight--;
        stats.served++;
      }
    },
    health() {
      return create(HealthResponseSchema, {
        serving: !shutdown.aborted,
        callsInFlight: stats.inFlight,
        callsServed: BigInt(stats.served),
      });
    },
  });
}

/**
 * One call: acknowledge its header, read the whole request, run the
 * handler, stream the reply.
 */
async function* serveCall(
  requests: AsyncIterable<CallRequest>,
  signal: AbortSignal,
  options: ServeWorkerOptions,
): AsyncGenerator<CallResponse> {
  const assembler = new TensorAssembler({ maxBytes: options.maxCallBytes });
  let header: CallRequest["header"];
  for await (const request of decoded(requests)) {
    if (header === undefined) {
      header = request.header;
      if (header === undefined) {
        throw malformed("the first message has no call header");
      }
      // The acknowledgement: the caller sees the reply stream begin long
      // before it ends. Under Deno's node:http2, a client that starts
      // reading a response only after the stream has closed gets "Premature
      // close" instead of the reply, and Connect's client starts reading a
      // few ticks after the response headers arrive.
      yield create(CallResponseSchema, { requestId: header.requestId });
    } else if (request.header !== undefined) {
      throw malformed("a call header after the first message");
    }
    for (const part of request.parts) assembler.push(part);
  }
  if (header === undefined) throw malformed("the call sent no message");
  const { requestId, endpoint } = header;
  const reply = await options.handler(endpoint, assembler.finish(), {
    requestId,
    signal,
  });
  const entries = namedTensorEntries(reply);
  await readBack(entries.map(([, tensor]) => tensor));
  for (const parts of encodeTensorParts(entries, options)) {
    yield create(CallResponseSchema, { parts });
  }
}

/**
 * The request messages, with a message that does not decode refused as
 * `invalid_argument` (Connect says `internal`, but the fault is the
 * caller's); other errors (size, connection) pass unchanged.
 */
async function* decoded(
  requests: AsyncIterable<CallRequest>,
): AsyncGenerator<CallRequest> {
  const it = requests[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<CallRequest>;
    try {
      next = await it.next();
    } catch (error) {
      const e = ConnectError.from(error);
      if (e.code !== Code.Internal) throw error;
      throw malformed(`a request message does not decode: ${e.rawMessage}`);
    }
    if (next.done) return;
    yield next.value;
  }
}

function malformed(detail: string): ConnectError {
  return new ConnectError(detail, Code.InvalidArgument);
}

/** The status a failed call ends with. */
function statusOf(error: unknown): ConnectError {
  if (error instanceof ConnectError) return error;
  if (error instanceof TensorStreamError) {
    return new ConnectError(
      error.message,
      error.problem === "too_large"
        ? Code.ResourceExhausted
        : Code.InvalidArgument,
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ConnectError(
    printable(message),
    Code.Unknown,
    undefined,
    undefined,
    error,
  );
}
