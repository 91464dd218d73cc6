/**
 * Connect's transport for a worker client, with the request stream of
 * `WorkerService.Call` framed by `_call_request_chunks.ts` (tensor bytes
 * uncopied) instead of by protobuf-es and Connect's envelope (three copies
 * of each byte). Everything else is Connect's own, unchanged: the other
 * methods go through Connect's transport; a `Call` runs through Connect's
 * `runStreamingCall` (interceptors, so the bearer token; the deadline and
 * its `connect-timeout-ms` header; the caller's signal), the same HTTP/2
 * client on the same session (keepalive, and errors mapped to codes as
 * Connect maps them), and the reply is checked, split, size-limited and
 * parsed by Connect's own steps, end-of-stream error included.
 *
 * Only the Connect protocol is framed here; a gRPC client keeps Connect's
 * transport whole.
 *
 * @module
 */

import type {
  DescMessage,
  DescMethodStreaming,
  MessageInitShape,
} from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createContextValues,
  type Interceptor,
  type StreamResponse,
  type Transport,
} from "@connectrpc/connect";
import {
  createMethodSerializationLookup,
  createMethodUrl,
  pipe,
  runStreamingCall,
  transformParseEnvelope,
  transformSplitEnvelope,
} from "@connectrpc/connect/protocol";
import {
  createEndStreamSerialization,
  endStreamFlag,
  requestHeaderWithCompression,
  validateResponseWithCompression,
} from "@connectrpc/connect/protocol-connect";
import {
  createConnectTransport,
  createNodeHttpClient,
  type Http2SessionManager,
} from "@connectrpc/connect-node";
import { type CallRequest, WorkerService } from "../../gen/rill/v1/rpc_pb.ts";
import { callRequestChunks } from "./_call_request_chunks.ts";

/** Options for {@linkcode callTransport}. */
export interface CallTransportOptions {
  /** `http://host:port` or `https://host:port`. */
  readonly baseUrl: string;
  /** The client's one HTTP/2 session. */
  readonly sessionManager: Http2SessionManager;
  /** Run around every call (the bearer token). */
  readonly interceptors: Interceptor[];
  /** The largest reply message accepted, in bytes. */
  readonly readMaxBytes: number;
}

/**
 * The worker client's Connect transport (see the module's documentation).
 *
 * @param options The URL, the session, the interceptors and the limit.
 * @returns The transport.
 *
 * @example Usage
 * ```ts
 * import { Http2SessionManager } from "@connectrpc/connect-node";
 * import { callTransport } from "./_call_transport.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const baseUrl = "http://127.0.0.1:1";
 * const transport = callTransport({
 *   baseUrl,
 *   sessionManager: new Http2SessionManager(baseUrl),
 *   interceptors: [],
 *   readMaxBytes: 1 << 22,
 * });
 * assertEquals(typeof transport.stream, "function");
 * ```
 */
export function callTransport(options: CallTransportOptions): Transport {
  const connect = createConnectTransport({
    baseUrl: options.baseUrl,
    httpVersion: "2",
    sessionManager: options.sessionManager,
    interceptors: options.interceptors,
    readMaxBytes: options.readMaxBytes,
    // Tensors travel uncompressed (see worker_server.ts): by not offering
    // gzip, the client keeps any Connect server from compressing replies.
    acceptCompression: [],
  });
  const httpClient = createNodeHttpClient({
    httpVersion: "2",
    sessionProvider: () => options.sessionManager,
  });
  const call = WorkerService.method.call;
  const serialization = createMethodSerializationLookup(
    call,
    undefined,
    undefined,
    { readMaxBytes: options.readMaxBytes, writeMaxBytes: 0xffffffff },
  );
  const endStream = createEndStreamSerialization({});
  return {
    unary: connect.unary,
    stream<I extends DescMessage, O extends DescMessage>(
      method: DescMethodStreaming<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: AsyncIterable<MessageInitShape<I>>,
    ): Promise<StreamResponse<I, O>> {
      if ((method as unknown) !== call) {
        return connect.stream(method, signal, timeoutMs, header, input);
      }
      const ms = timeoutMs !== undefined && timeoutMs > 0
        ? timeoutMs
        : undefined;
      return runStreamingCall<I, O>({
        interceptors: options.interceptors,
        signal,
        timeoutMs: ms,
        req: {
          stream: true,
          service: method.parent,
          method,
          requestMethod: "POST",
          url: createMethodUrl(options.baseUrl, method),
          header: requestHeaderWithCompression(
            method.methodKind,
            true,
            ms,
            header,
            [],
            null,
            true,
          ),
          contextValues: createContextValues(),
          message: input,
        },
        next: async (req) => {
          const res = await httpClient({
            url: req.url,
            method: "POST",
            header: req.header,
            signal: req.signal,
            body: requestBytes(req.message as AsyncIterable<CallRequest>),
          });
          validateResponseWithCompression(
            method.methodKind,
            [],
            true,
            res.status,
            res.header,
          );
          const messages = pipe(
            res.body,
            transformSplitEnvelope(options.readMaxBytes),
            transformParseEnvelope(
              serialization.getO(true),
              endStreamFlag,
              endStream,
            ),
            untilEndStream,
            { propagateDownStreamError: true },
          );
          return {
            ...req,
            header: res.header,
            trailer: new Headers(),
            message: messages as AsyncIterable<never>,
          };
        },
      });
    },
  };
}

/** The request stream's bytes: each message's envelope, as chunks. */
async function* requestBytes(
  messages: AsyncIterable<CallRequest>,
): AsyncIterable<Uint8Array> {
  for await (const message of messages) yield* callRequestChunks(message);
}

/** An envelope of the reply: a message, or the end of the stream. */
type Parsed<T> = { end: false; value: T } | {
  end: true;
  value: { error?: ConnectError; metadata: Headers };
};

/**
 * The reply's messages, up to the end-of-stream message: its error, if it
 * carries one, is thrown; a stream without one, or with anything after
 * it, is a protocol error (as Connect's own transport has it).
 */
async function* untilEndStream<T>(
  parsed: AsyncIterable<Parsed<T>>,
): AsyncIterable<T> {
  let ended = false;
  for await (const item of parsed) {
    if (ended) {
      throw new ConnectError(
        "protocol error: received extra message after EndStreamResponse",
        Code.InvalidArgument,
      );
    }
    if (item.end) {
      ended = true;
      if (item.value.error !== undefined) throw item.value.error;
      continue;
    }
    yield item.value;
  }
  if (!ended) {
    throw new ConnectError(
      "protocol error: missing EndStreamResponse",
      Code.InvalidArgument,
    );
  }
}
