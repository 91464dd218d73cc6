/**
 * One call of the worker service, as `serveWorker` serves it: check and
 * acknowledge its header, read its tensors under the call's limits and
 * its endpoints' inputs, run the handler, stream the reply; and the status
 * a failed call ends with.
 *
 * Every wait (for the next request message, for the handler, for a
 * read-back) ends when the call's signal aborts, with the signal's reason:
 * a deadline of `_request_watch.ts`, the caller gone, the server closing.
 * The handler may never settle (a stalled program); the call then stops
 * waiting for it and its late failure is nobody's to report.
 *
 * @module
 */

import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  type CallRequest,
  type CallResponse,
  CallResponseSchema,
} from "../../gen/rill/v1/rpc_pb.ts";
import { readBack } from "../../kernels/device_tensor.ts";
import { printable } from "../core/errors.ts";
import { limitStatus } from "./_limit_status.ts";
import {
  encodeTensorParts,
  namedTensorEntries,
  TensorAssembler,
  TensorStreamError,
} from "./tensor_parts.ts";
import { WorkerInputError, type WorkerInputs } from "./worker_inputs.ts";
import type { WorkerLimits } from "./worker_limits.ts";
import type { ServeWorkerOptions } from "./worker_server.ts";

/** What every call of one server needs besides its messages. */
export interface CallConfig {
  /** The server's options: the handler, the reply's message size. */
  readonly options: ServeWorkerOptions;
  /** The limits in force. */
  readonly limits: Readonly<WorkerLimits>;
  /** What the endpoints take, when the server knows. */
  readonly inputs: WorkerInputs | undefined;
}

/**
 * One call: check and acknowledge its header, read the whole request, run
 * the handler, stream the reply. Reading and running end when `signal`
 * aborts (a deadline, the caller gone, the server closing), with its
 * reason.
 *
 * @param requests The call's request messages.
 * @param signal Ends the call, with its reason.
 * @param config The handler, the limits and the endpoints' inputs.
 * @returns The reply messages: the acknowledgement, then the tensors.
 * @throws {ConnectError} `invalid_argument` for a malformed stream, or the
 * signal's reason.
 * @throws {TensorStreamError} If the tensors break the stream's grammar or
 * the call's budget.
 * @throws {WorkerInputError} If they do not fit the endpoints' inputs.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { CallRequestSchema } from "../../gen/rill/v1/rpc_pb.ts";
 * import { serveCall } from "./_serve_call.ts";
 * import { DEFAULT_WORKER_LIMITS } from "./worker_limits.ts";
 * import { assertEquals } from "@std/assert";
 *
 * async function* requests() {
 *   yield create(CallRequestSchema, { header: { requestId: 7n, endpoint: "echo" } });
 * }
 * const config = {
 *   options: { handler: () => ({}) },
 *   limits: DEFAULT_WORKER_LIMITS,
 *   inputs: undefined,
 * };
 * const replies = [];
 * for await (const reply of serveCall(requests(), new AbortController().signal, config)) {
 *   replies.push(reply);
 * }
 * assertEquals(replies.map((r) => r.requestId), [7n]);
 * ```
 */
export async function* serveCall(
  requests: AsyncIterable<CallRequest>,
  signal: AbortSignal,
  { options, limits, inputs }: CallConfig,
): AsyncGenerator<CallResponse> {
  let header: CallRequest["header"];
  let assembler: TensorAssembler | undefined;
  for await (const request of decoded(requests, signal)) {
    if (header === undefined) {
      header = request.header;
      if (header === undefined) {
        throw malformed("the first message has no call header");
      }
      const endpoint = header.endpoint;
      checkProgram(options.program, header.program);
      inputs?.checkEndpoint(endpoint);
      assembler = new TensorAssembler({
        maxBytes: limits.maxCallBytes,
        check: inputs && ((tensor) => inputs.checkTensor(endpoint, tensor)),
      });
      // The acknowledgement: the caller sees the reply stream begin long
      // before it ends. Under Deno's node:http2, a client that starts
      // reading a response only after the stream has closed gets "Premature
      // close" instead of the reply, and Connect's client starts reading a
      // few ticks after the response headers arrive.
      yield create(CallResponseSchema, { requestId: header.requestId });
    } else if (request.header !== undefined) {
      throw malformed("a call header after the first message");
    }
    for (const part of request.parts) assembler!.push(part);
  }
  if (header === undefined) throw malformed("the call sent no message");
  const { requestId, endpoint } = header;
  const tensors = assembler!.finish();
  inputs?.checkComplete(endpoint, new Set(tensors.keys()));
  const running = Promise.resolve().then(() =>
    options.handler(endpoint, tensors, { requestId, signal })
  );
  running.catch(() => {});
  const reply = await untilAborted(running, signal);
  const entries = namedTensorEntries(reply);
  await untilAborted(readBack(entries.map(([, tensor]) => tensor)), signal);
  for (const parts of encodeTensorParts(entries, options)) {
    yield create(CallResponseSchema, { parts });
  }
}

// A worker serving a transpiled pair takes calls from that pair's master
// only: another program's master would get another computation's answer,
// and exit 0 with it. A worker serving no fingerprint takes any call.
function checkProgram(served: string | undefined, called: string): void {
  if (served === undefined || served === "" || called === served) return;
  throw new ConnectError(
    `this worker serves program ${served}, the call comes from ${
      called === "" ? "a master that names no program" : `program ${called}`
    } (transpile master and worker together, and deploy both)`,
    Code.FailedPrecondition,
  );
}

/**
 * The request messages, with a message that does not decode refused as
 * `invalid_argument` (Connect says `internal`, but the fault is the
 * caller's); other errors (size, connection) pass unchanged.
 */
async function* decoded(
  requests: AsyncIterable<CallRequest>,
  signal: AbortSignal,
): AsyncGenerator<CallRequest> {
  const it = requests[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<CallRequest>;
    try {
      next = await untilAborted(it.next(), signal);
    } catch (error) {
      if (signal.aborted) throw error;
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

/**
 * Settles as `promise`, or rejects with the signal's reason once it
 * aborts, whichever comes first.
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() =>
      signal.removeEventListener("abort", abort)
    );
  });
}

/**
 * The status a failed call ends with: a `ConnectError` as it is; a
 * tensor stream over the budget as `resource_exhausted` naming
 * `--max-call-bytes`, a malformed one as `invalid_argument`; a call that
 * does not fit the endpoints' inputs as `not_found` (another endpoint) or
 * `invalid_argument`; anything else as `unknown` with its message.
 *
 * @param error What the call threw.
 * @param config The server's call settings, for the limits.
 * @returns The status.
 *
 * @example Usage
 * ```ts
 * import { Code } from "@connectrpc/connect";
 * import { statusOf } from "./_serve_call.ts";
 * import { DEFAULT_WORKER_LIMITS } from "./worker_limits.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const config = { options: { handler: () => ({}) }, limits: DEFAULT_WORKER_LIMITS, inputs: undefined };
 * const e = statusOf(new Error("boom"), config);
 * assertEquals([e.code, e.rawMessage], [Code.Unknown, "boom"]);
 * ```
 */
export function statusOf(
  error: unknown,
  { limits }: CallConfig,
): ConnectError {
  if (error instanceof ConnectError) return error;
  if (error instanceof TensorStreamError) {
    return error.problem === "too_large"
      ? limitStatus(
        Code.ResourceExhausted,
        error.message,
        "maxCallBytes",
        limits,
      )
      : new ConnectError(error.message, Code.InvalidArgument);
  }
  if (error instanceof WorkerInputError) {
    return new ConnectError(
      error.message,
      error.problem === "no_endpoint" ? Code.NotFound : Code.InvalidArgument,
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
