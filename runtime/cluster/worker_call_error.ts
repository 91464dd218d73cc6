/**
 * The one error a worker client raises: a failed call or health check,
 * with the worker's address, the endpoint, the status code and a one-line
 * message, `worker ADDR: call "ENDPOINT": CODE: DETAIL`.
 *
 * @module
 */

import { Code, ConnectError } from "@connectrpc/connect";
import { printable } from "../core/errors.ts";
import { limitOf } from "./_limit_status.ts";
import { TensorStreamError } from "./tensor_parts.ts";

/**
 * A call to a worker that failed: refused (`unauthenticated`,
 * `resource_exhausted`, `invalid_argument`), failed in the endpoint
 * (`unknown`, or the code the endpoint chose), out of time
 * (`deadline_exceeded`: the caller's deadline, or the worker's when
 * `limit` says so), or cut off (`unavailable`: the worker is down or the
 * connection broke). `limit` names the worker's limit, by its flag
 * (`max-calls`, `call-timeout`), when one refused or ended the call.
 *
 * @example Usage
 * ```ts
 * import { WorkerCallError } from "./worker_call_error.ts";
 * import { Code } from "@connectrpc/connect";
 * import { assertEquals } from "@std/assert";
 *
 * const e = new WorkerCallError("127.0.0.1:7070", "mult", Code.Unavailable, "connection refused");
 * assertEquals(e.message, 'worker 127.0.0.1:7070: call "mult": unavailable: connection refused');
 * assertEquals(e.code, Code.Unavailable);
 * ```
 */
export class WorkerCallError extends Error {
  /** The worker's `host:port`. */
  readonly addr: string;
  /** The endpoint called, or undefined for a health check. */
  readonly endpoint: string | undefined;
  /** The status. */
  readonly code: Code;
  /** What went wrong, without the prefix. */
  readonly detail: string;
  /**
   * The worker's limit that refused or ended the call, by its flag without
   * dashes (worker_limits.ts), or undefined when none did.
   */
  readonly limit: string | undefined;

  /**
   * Makes the error.
   *
   * @param addr The worker's `host:port`.
   * @param endpoint The endpoint, or undefined for a health check.
   * @param code The status.
   * @param detail What went wrong.
   * @param options The underlying error, and the limit involved.
   */
  constructor(
    addr: string,
    endpoint: string | undefined,
    code: Code,
    detail: string,
    options?: ErrorOptions & { limit?: string },
  ) {
    const what = endpoint === undefined ? "health check" : `call "${endpoint}"`;
    super(
      printable(`worker ${addr}: ${what}: ${codeName(code)}: ${detail}`),
      options,
    );
    this.name = "WorkerCallError";
    this.addr = addr;
    this.endpoint = endpoint;
    this.code = code;
    this.detail = detail;
    this.limit = options?.limit;
  }

  /**
   * The error for whatever a call threw.
   *
   * A connection lost mid-call reaches Connect's client as `aborted` (a
   * reset socket), `canceled` (a stream closed under it) or `internal` (a
   * stream that ended before its reply: `Premature close`); unless the
   * caller canceled, each becomes `unavailable`: the worker is gone. A
   * `deadline_exceeded` is the caller's own deadline unless the status
   * names a limit of the worker's: then the worker's message stands.
   *
   * @param error What the call threw.
   * @param call Which call it was.
   * @returns The error.
   *
   * @example Usage
   * ```ts
   * import { WorkerCallError } from "./worker_call_error.ts";
   * import { Code, ConnectError } from "@connectrpc/connect";
   * import { assertEquals } from "@std/assert";
   *
   * const e = WorkerCallError.from(
   *   new ConnectError("the operation timed out", Code.DeadlineExceeded),
   *   { addr: "127.0.0.1:7070", endpoint: "mult", timeoutMs: 500 },
   * );
   * assertEquals(e.detail, "no reply within 500 ms");
   *
   * const cut = Object.assign(new Error("Premature close"), {
   *   code: "ERR_STREAM_PREMATURE_CLOSE",
   * });
   * const lost = WorkerCallError.from(cut, { addr: "127.0.0.1:7070", endpoint: "mult" });
   * assertEquals(lost.code, Code.Unavailable);
   * ```
   */
  static from(error: unknown, call: FailedCall): WorkerCallError {
    if (error instanceof WorkerCallError) return error;
    const { addr, endpoint } = call;
    const make = (code: Code, detail: string) =>
      new WorkerCallError(addr, endpoint, code, detail, { cause: error });
    if (error instanceof TensorStreamError) {
      const code = error.problem === "too_large"
        ? Code.ResourceExhausted
        : Code.InvalidArgument;
      return make(code, `reply: ${error.message}`);
    }
    const e = ConnectError.from(error);
    const first = e.rawMessage.split("\n")[0] || codeName(e.code);
    const limit = limitOf(e);
    if (limit !== undefined) {
      return new WorkerCallError(addr, endpoint, e.code, first, {
        cause: error,
        limit,
      });
    }
    if (e.code === Code.DeadlineExceeded) {
      return make(
        e.code,
        call.timeoutMs === undefined
          ? first
          : `no reply within ${call.timeoutMs} ms`,
      );
    }
    const lost = e.code === Code.Canceled
      ? !call.canceledByCaller
      : !call.canceledByCaller && networkErrorCode(error) !== undefined;
    return lost
      ? make(Code.Unavailable, `connection lost: ${first}`)
      : make(e.code, first);
  }
}

/** Which call failed, for {@linkcode WorkerCallError.from}. */
export interface FailedCall {
  /** The worker's `host:port`. */
  addr: string;
  /** The endpoint, or undefined for a health check. */
  endpoint?: string;
  /**
   * The call's deadline, for the message.
   *
   * @default {undefined} (the call had none)
   */
  timeoutMs?: number;
  /**
   * Whether the caller canceled the call (its signal, closing the client).
   *
   * @default {false}
   */
  canceledByCaller?: boolean;
}

/**
 * The Node.js code of a socket or HTTP/2 failure in an error's cause chain
 * (`ECONNRESET`, `EPIPE`, `ERR_HTTP2_STREAM_ERROR`, a stream that ended or
 * was destroyed before its end), if there is one. A status the worker sent
 * has none.
 */
function networkErrorCode(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  for (let e = error; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (
      typeof code === "string" &&
      /^(E[A-Z]+|ERR_HTTP2_\w+|ERR_STREAM_(PREMATURE_CLOSE|DESTROYED))$/.test(
        code,
      )
    ) {
      return code;
    }
  }
  return undefined;
}

/**
 * A status code as the Connect protocol spells it: `deadline_exceeded`.
 *
 * @param code A status code.
 * @returns Its name in snake case.
 *
 * @example Usage
 * ```ts
 * import { codeName } from "./worker_call_error.ts";
 * import { Code } from "@connectrpc/connect";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(codeName(Code.ResourceExhausted), "resource_exhausted");
 * ```
 */
export function codeName(code: Code): string {
  const name = Code[code] as string | undefined;
  if (name === undefined) return `code ${code}`;
  return name.replace(/[A-Z]/g, (c, i) => (i > 0 ? "_" : "") + c.toLowerCase());
}
