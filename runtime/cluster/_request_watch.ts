/**
 * The deadlines of each request a worker serves: its body must arrive
 * within `--read-timeout` of its headers, and the whole exchange end
 * within `--call-timeout`. They are kept here, around Connect's request
 * handler, because only here are they real for every request: Connect
 * reads a unary request's body before any handler runs, and a handler
 * suspended while its reply waits for a client that does not read cannot
 * end itself.
 *
 * A deadline that passes first aborts the request's signal with a status
 * that says which limit ended it (the call's handler, reading the signal
 * through {@linkcode REQUEST_WATCH}, ends with that status); if the stream
 * is still open CUT_GRACE_MS later, it is reset (RST_STREAM CANCEL). A
 * response that ends while its client is still sending (a refusal) resets
 * the stream with NO_ERROR, as RFC 9113 §8.1 allows, so the client stops
 * sending and no unread body stays buffered.
 *
 * @module
 */

import * as http2 from "node:http2";
import {
  Code,
  type ConnectError,
  type ContextValues,
  createContextKey,
  createContextValues,
} from "@connectrpc/connect";
import { limitStatus } from "./_limit_status.ts";
import type { WorkerLimits } from "./worker_limits.ts";

/** How long a request whose deadline passed may take to send its status. */
const CUT_GRACE_MS = 1000;

/** What a handler learns of its request's watch. */
export interface RequestWatch {
  /** Aborted, with the status to end with, when a deadline passes. */
  readonly signal: AbortSignal;
  /** Why the request is refused, when its connection is over a cap. */
  readonly refusal: ConnectError | undefined;
}

/**
 * The context key under which a handler finds its request's watch.
 *
 * @example Usage
 * ```ts
 * import { REQUEST_WATCH } from "./_request_watch.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(REQUEST_WATCH.defaultValue, undefined);
 * ```
 */
export const REQUEST_WATCH = createContextKey<RequestWatch | undefined>(
  undefined,
  { description: "rill request watch" },
);

/** A request listener of node:http2's compatibility API. */
export type RequestListener = (
  req: http2.Http2ServerRequest,
  res: http2.Http2ServerResponse,
) => void;

/**
 * Puts every request under its deadlines; see the module's documentation.
 *
 * @example Usage
 * ```ts
 * import { RequestWatcher } from "./_request_watch.ts";
 * import { DEFAULT_WORKER_LIMITS } from "./worker_limits.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const watcher = new RequestWatcher(DEFAULT_WORKER_LIMITS, () => undefined);
 * assertEquals(typeof watcher.listener(() => {}), "function");
 * ```
 */
export class RequestWatcher {
  #limits: Readonly<WorkerLimits>;
  #refusal: (
    session: http2.Http2Session | undefined,
  ) => ConnectError | undefined;
  #watches = new WeakMap<object, RequestWatch>();

  /**
   * Makes the watcher.
   *
   * @param limits The deadlines.
   * @param refusal Why a session's requests are refused, if they are.
   */
  constructor(
    limits: Readonly<WorkerLimits>,
    refusal: (
      session: http2.Http2Session | undefined,
    ) => ConnectError | undefined,
  ) {
    this.#limits = limits;
    this.#refusal = refusal;
  }

  /**
   * The listener that watches each request, then hands it to `handler`.
   *
   * @param handler Connect's request handler.
   * @returns The listener for the server's `request` event.
   */
  listener(handler: RequestListener): RequestListener {
    return (req, res) => {
      this.#watch(req, res);
      handler(req, res);
    };
  }

  /**
   * The context values Connect passes the request's handler: its watch,
   * under {@linkcode REQUEST_WATCH}.
   *
   * @param req The request.
   * @returns The values.
   */
  contextValues(req: object): ContextValues {
    return createContextValues().set(REQUEST_WATCH, this.#watches.get(req));
  }

  #watch(req: http2.Http2ServerRequest, res: http2.Http2ServerResponse): void {
    const stream = req.stream;
    const limits = this.#limits;
    const controller = new AbortController();
    this.#watches.set(req, {
      signal: controller.signal,
      refusal: this.#refusal(stream.session),
    });
    let cut: ReturnType<typeof setTimeout> | undefined;
    let wasCut = false;
    function end(status: ConnectError): void {
      controller.abort(status);
      cut ??= setTimeout(() => {
        wasCut = true;
        stream.close(http2.constants.NGHTTP2_CANCEL);
      }, CUT_GRACE_MS);
    }
    reportCutWritesAsGone(res, () => wasCut);
    const read = setTimeout(() =>
      end(limitStatus(
        Code.DeadlineExceeded,
        "the request did not arrive in full in time",
        "readTimeoutMs",
        limits,
      )), limits.readTimeoutMs);
    const call = setTimeout(() =>
      end(limitStatus(
        Code.DeadlineExceeded,
        "the call did not end within the worker's deadline",
        "callTimeoutMs",
        limits,
      )), limits.callTimeoutMs);
    req.once("end", () => clearTimeout(read));
    res.once("finish", () => {
      // Only while the client is still sending: a reset of a stream whose
      // request has ended gains nothing, and under Deno's node:http2 a
      // client that has not begun to read its unary reply then gets
      // "Premature close" instead of it.
      if (!stream.closed && stream.state.remoteClose === 0) {
        stream.close(http2.constants.NGHTTP2_NO_ERROR);
      }
    });
    stream.once("close", () => {
      clearTimeout(read);
      clearTimeout(call);
      clearTimeout(cut);
    });
  }
}

/**
 * Makes a reply's write that fails because its stream was cut read as a
 * client gone. Cutting a stream fails the write under way with ECANCELED,
 * which Connect reports as the call's handler failing, with a stack trace
 * on stderr; an error with ERR_STREAM_DESTROYED in its cause chain it
 * takes for a client that hung up (Code.Aborted) and reports nothing. For
 * the handler that is what a cut is: its reply has nowhere to go.
 */
function reportCutWritesAsGone(
  res: http2.Http2ServerResponse,
  wasCut: () => boolean,
): void {
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  res.write = ((...args: unknown[]) => {
    const done = args.at(-1);
    if (typeof done === "function") {
      args[args.length - 1] = (error?: Error | null) => {
        if (error && wasCut() && !("cause" in error)) {
          error.cause = Object.assign(new Error("the stream was cut"), {
            code: "ERR_STREAM_DESTROYED",
          });
        }
        done(error);
      };
    }
    return write(...args);
  }) as typeof res.write;
}
