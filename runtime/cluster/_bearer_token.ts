/**
 * The shared secret of a worker and its callers: where it comes from
 * (an option, else `RILL_TOKEN`), how a client attaches it
 * (`authorization: Bearer <token>` on every call) and how a server checks
 * it, before reading any request message.
 *
 * @module
 */

import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { HandlerContext } from "@connectrpc/connect";

/** The environment variable that holds the token. */
export const TOKEN_ENV = "RILL_TOKEN";

/**
 * The token to use: `option` when given ("" turns authentication off),
 * else a non-empty `RILL_TOKEN`, else none.
 *
 * @param option The token an option gave.
 * @param env The environment, read when `option` is undefined.
 * @returns The token, or undefined for none.
 * @throws {TypeError} If the token cannot travel in an HTTP header
 * (control characters, non-ASCII, leading or trailing space).
 */
export function resolveToken(
  option: string | undefined,
  env: Readonly<Record<string, string | undefined>> | undefined,
): string | undefined {
  const token = option ??
    (env ?? Deno.env.toObject())[TOKEN_ENV];
  if (token === undefined || token === "") return undefined;
  if (!/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(token)) {
    throw new TypeError(
      `rpc token: ${option === undefined ? TOKEN_ENV : "the token"} ` +
        "must be printable ASCII without surrounding spaces",
    );
  }
  return token;
}

/**
 * A client interceptor that sends the token with every call.
 *
 * @param token The token.
 * @returns The interceptor.
 */
export function bearerInterceptor(token: string): Interceptor {
  const value = `Bearer ${token}`;
  return (next) => (request) => {
    request.header.set("authorization", value);
    return next(request);
  };
}

/**
 * A server request gate that refuses, with `Unauthenticated`, a call whose
 * `authorization` header does not carry the token. It runs before any
 * request message is read.
 *
 * @param token The token.
 * @returns The gate.
 */
export function tokenGate(token: string): (context: HandlerContext) => void {
  const expected = new TextEncoder().encode(`Bearer ${token}`);
  return (context) => {
    const given = context.requestHeader.get("authorization");
    if (given === null) {
      throw new ConnectError("missing bearer token", Code.Unauthenticated);
    }
    if (!sameBytes(new TextEncoder().encode(given), expected)) {
      throw new ConnectError("wrong bearer token", Code.Unauthenticated);
    }
  };
}

/** Compares in time that depends on the lengths only, not the contents. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
