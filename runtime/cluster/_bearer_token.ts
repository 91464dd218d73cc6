/**
 * The shared secret of a worker and its callers on the wire: how a client
 * attaches it
 * (`authorization: Bearer <token>` on every call) and how a server checks
 * it, before reading any request message.
 *
 * @module
 */

import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { HandlerContext } from "@connectrpc/connect";

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
