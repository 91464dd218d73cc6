/**
 * A listener that serves gRPC's standard health service and nothing else,
 * over plain HTTP/2 (the `worker` command's `--health-listen`).
 *
 * Why a second port: the kubelet's `grpc` probe speaks plain HTTP/2 only,
 * with no TLS and no token, so a worker that serves its calls over TLS
 * (`--tls-cert`) cannot be probed on that port. This one tells whether the
 * worker takes calls and nothing more; the calls themselves never travel
 * here. It answers from the moment the command starts, so a readiness
 * probe sees NOT_SERVING while the program loads.
 *
 * @module
 */

import * as http2 from "node:http2";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { routeHealth } from "./health_service.ts";
import { listen } from "./_listen.ts";
import { formatHostPort } from "./host_port.ts";
import type { Readiness } from "./readiness.ts";

/** Options for {@linkcode serveHealth}. */
export interface ServeHealthOptions {
  /** What the service reports. */
  readiness: Readiness;
  /**
   * The address to bind.
   *
   * @default {"127.0.0.1"}
   */
  host?: string;
  /**
   * The port; 0 picks a free one.
   *
   * @default {0}
   */
  port?: number;
}

/** A serving health listener. */
export interface HealthServer {
  /** `host:port` as bound. */
  readonly addr: string;
  /**
   * Stops: open health calls end, connections close.
   *
   * @returns When the listener has closed.
   */
  close(): Promise<void>;
}

/** Health calls are tiny: a request message is a service name. */
const READ_MAX_BYTES = 4096;

/** The streams one probe connection may have open. */
const MAX_STREAMS_PER_CONN = 8;

/**
 * Serves `grpc.health.v1.Health` on plain HTTP/2 until closed.
 *
 * @param options What to report, and where.
 * @returns The listener, once it listens.
 * @throws {Error} If the address cannot be bound.
 *
 * @example Usage
 * ```ts
 * import { serveHealth } from "./health_server.ts";
 * import { Readiness } from "./readiness.ts";
 * import { assertMatch } from "@std/assert";
 *
 * const server = await serveHealth({ readiness: new Readiness(false) });
 * assertMatch(server.addr, /^127\.0\.0\.1:\d+$/);
 * await server.close();
 * ```
 */
export async function serveHealth(
  options: ServeHealthOptions,
): Promise<HealthServer> {
  const host = options.host ?? "127.0.0.1";
  const shutdown = new AbortController();
  const server = http2.createServer({
    settings: { maxConcurrentStreams: MAX_STREAMS_PER_CONN },
  });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
    session.on("error", () => {});
  });
  server.on(
    "request",
    connectNodeAdapter({
      routes: (router) => routeHealth(router, options.readiness),
      readMaxBytes: READ_MAX_BYTES,
      shutdownSignal: shutdown.signal,
    }),
  );
  const port = await listen(server, host, options.port ?? 0);
  let closing: Promise<void> | undefined;
  return {
    addr: formatHostPort(host, port),
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        shutdown.abort();
        // A probe's answer is out once its call ended: nothing to wait for.
        for (const session of sessions) session.close();
        server.close(() => resolve());
        for (const session of sessions) session.destroy();
      });
      return closing;
    },
  };
}
