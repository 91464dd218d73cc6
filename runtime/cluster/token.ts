/**
 * Where the shared secret of a worker and its callers comes from: an
 * option, else `RILL_TOKEN`. A module of its own, free of the RPC library,
 * so that the worker command checks for a token before anything of the
 * network is loaded (`_bearer_token.ts` carries and checks it on calls).
 *
 * @module
 */

import { processEnv } from "../core/process_env.ts";

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
 *
 * @example Usage
 * ```ts
 * import { resolveToken } from "./token.ts";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * assertEquals(resolveToken(undefined, { RILL_TOKEN: "abc" }), "abc");
 * assertEquals(resolveToken("", { RILL_TOKEN: "abc" }), undefined);
 * assertThrows(() => resolveToken(undefined, { RILL_TOKEN: "a\nb" }), TypeError);
 * ```
 */
export function resolveToken(
  option: string | undefined,
  env: Readonly<Record<string, string | undefined>> | undefined,
): string | undefined {
  const token = option ??
    (env ?? processEnv())[TOKEN_ENV];
  if (token === undefined || token === "") return undefined;
  if (!/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(token)) {
    throw new TypeError(
      `rpc token: ${option === undefined ? TOKEN_ENV : "the token"} ` +
        "must be printable ASCII without surrounding spaces",
    );
  }
  return token;
}
