/**
 * The HTTP/2 flow-control windows of worker connections, on both ends.
 *
 * A window is how many bytes a peer may send before the receiver
 * acknowledges them. HTTP/2 starts every stream and every connection at
 * 64 KiB, so a 64 MiB tensor would wait for about a thousand
 * acknowledgements, each a trip through the other process's event loop;
 * with 16 MiB windows it waits for a few.
 *
 * @module
 */

import type * as http2 from "node:http2";
import { Http2SessionManager } from "@connectrpc/connect-node";

/** The receive window of each stream and of each connection. */
const WINDOW_BYTES = 16 << 20;

/** The settings both ends announce: each stream's receive window. */
export const HTTP2_SETTINGS: http2.Settings = {
  initialWindowSize: WINDOW_BYTES,
};

const widened = new WeakSet<http2.Http2Session>();

/**
 * Widens a session's connection-level receive window (a setting cannot:
 * it covers streams only), once per session.
 *
 * @param session A client or server session.
 */
export function widenWindow(session: http2.Http2Session): void {
  if (widened.has(session)) return;
  widened.add(session);
  session.setLocalWindowSize(WINDOW_BYTES);
}

const guarded = new WeakSet<http2.Http2Session>();

// A session's failures reach its calls through their streams, and the
// manager through its own listeners; but once the manager lets a session go
// (a keepalive PING timed out and it destroyed the session), a second
// `error` event (Deno emits the destroy's error again) would find no
// listener and be reported as uncaught. This listener keeps it quiet.
function ignoreLateErrors(session: http2.Http2Session): void {
  if (guarded.has(session)) return;
  guarded.add(session);
  session.on("error", () => {});
}

/**
 * Connect's client session manager, with the wide connection window and
 * late session errors ignored.
 */
export class WideWindowSessionManager extends Http2SessionManager {
  /**
   * Opens a stream, widening its session's window first time round.
   *
   * @param method The HTTP method.
   * @param path The request path.
   * @param headers The request headers.
   * @param options Node's stream options.
   * @returns The stream.
   */
  override async request(
    method: string,
    path: string,
    headers: http2.OutgoingHttpHeaders,
    options: Omit<http2.ClientSessionRequestOptions, "signal">,
  ): Promise<http2.ClientHttp2Stream> {
    const stream = await super.request(method, path, headers, options);
    widenWindow(stream.session as http2.Http2Session);
    ignoreLateErrors(stream.session as http2.Http2Session);
    return stream;
  }
}
