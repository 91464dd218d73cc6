/**
 * The status of a call that one of the worker's limits refused or ended:
 * a message naming the limit's flag and value, and the flag in the
 * response metadata (`rill-limit: max-calls`), so that a client can tell
 * the worker's deadline from its own, and refusals it may retry later
 * from those it may not, without reading the message.
 *
 * @module
 */

import { Code, ConnectError } from "@connectrpc/connect";
import {
  formatLimit,
  WORKER_LIMIT_FLAGS,
  type WorkerLimits,
} from "./worker_limits.ts";

/**
 * The metadata key that names the limit.
 *
 * @example Usage
 * ```ts
 * import { LIMIT_KEY } from "./_limit_status.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(LIMIT_KEY, "rill-limit");
 * ```
 */
export const LIMIT_KEY = "rill-limit";

/**
 * The status `detail (--flag value)`, with the flag in the metadata.
 *
 * @param code The status code.
 * @param detail What happened.
 * @param field The limit.
 * @param limits The limits in force, for its value.
 * @returns The error to end the call with.
 *
 * @example Usage
 * ```ts
 * import { limitOf, limitStatus } from "./_limit_status.ts";
 * import { DEFAULT_WORKER_LIMITS } from "./worker_limits.ts";
 * import { Code } from "@connectrpc/connect";
 * import { assertEquals } from "@std/assert";
 *
 * const e = limitStatus(Code.DeadlineExceeded, "too slow", "readTimeoutMs", DEFAULT_WORKER_LIMITS);
 * assertEquals(e.rawMessage, "too slow (--read-timeout 30s)");
 * assertEquals(limitOf(e), "read-timeout");
 * ```
 */
export function limitStatus(
  code: Code,
  detail: string,
  field: keyof WorkerLimits,
  limits: Readonly<WorkerLimits>,
): ConnectError {
  const { flag, unit } = WORKER_LIMIT_FLAGS.find((f) => f.field === field)!;
  return new ConnectError(
    `${detail} (--${flag} ${formatLimit(unit, limits[field])})`,
    code,
    new Headers({ [LIMIT_KEY]: flag }),
  );
}

/**
 * The flag of the limit that refused or ended a call, from its status.
 *
 * @param error The status as the client got it.
 * @returns The flag without dashes, or undefined when no limit is named.
 *
 * @example Usage
 * ```ts
 * import { limitOf } from "./_limit_status.ts";
 * import { Code, ConnectError } from "@connectrpc/connect";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(limitOf(new ConnectError("timed out", Code.DeadlineExceeded)), undefined);
 * ```
 */
export function limitOf(error: ConnectError): string | undefined {
  return error.metadata.get(LIMIT_KEY) ?? undefined;
}

/**
 * What a call over `--max-calls` is refused with.
 *
 * @param limits The limits in force.
 * @returns The status.
 *
 * @example Usage
 * ```ts
 * import { limitOf, tooManyCalls } from "./_limit_status.ts";
 * import { DEFAULT_WORKER_LIMITS } from "./worker_limits.ts";
 * import { Code } from "@connectrpc/connect";
 * import { assertEquals } from "@std/assert";
 *
 * const e = tooManyCalls(DEFAULT_WORKER_LIMITS);
 * assertEquals([e.code, limitOf(e)], [Code.ResourceExhausted, "max-calls"]);
 * ```
 */
export function tooManyCalls(limits: Readonly<WorkerLimits>): ConnectError {
  return limitStatus(
    Code.ResourceExhausted,
    "the worker is serving as many calls as it may",
    "maxCalls",
    limits,
  );
}
