/**
 * How a worker server stops: at once (`close`), or after draining
 * (`drain`), which lets the calls in flight finish first. The server
 * (worker_server.ts) owns the listener and the calls; this module owns
 * what closing needs to know about them: the responses not yet closed and
 * the sessions still open.
 *
 * Invariants: `draining` never goes back to false, and once it is true the
 * readiness is false; `close()` runs its steps once, whoever calls it
 * first; a health request is never counted in `openResponses` (a `Watch`
 * stays open for as long as its caller likes, and must not hold a drain).
 *
 * @module
 */

import type * as http2 from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import type { ConnectionGuard } from "./_connection_guard.ts";
import { HEALTH_SERVICE_NAME } from "./health_service.ts";
import type { Readiness } from "./readiness.ts";
import type { DrainReport } from "./worker_lifecycle.ts";

/** The server's count of calls, which the call handler keeps. */
export interface CallStats {
  /** Calls running now. */
  inFlight: number;
  /** Calls that have ended, however. */
  served: number;
}

/**
 * How long `close()` lets calls send their final status before it cuts
 * their connections.
 */
const CLOSE_GRACE_MS = 1000;

/** How often closing and draining look at what they wait for. */
const POLL_MS = 5;

/** The path prefix of the health service's calls. */
const HEALTH_PATH = `/${HEALTH_SERVICE_NAME}/`;

/** Closing and draining one worker server. */
export class ServerShutdown {
  /** Aborted when closing starts: every call's handler stops. */
  readonly #controller = new AbortController();
  #draining = false;
  #closing: Promise<void> | undefined;
  // Responses not yet closed: a call whose handler has returned still has
  // its reply and status to send, and closing the server before they went
  // out cuts them off ("Premature close" at the caller).
  #openResponses = 0;
  readonly #sessions = new Set<http2.ServerHttp2Session>();
  readonly #server: http2.Http2Server;
  readonly #guard: ConnectionGuard;
  // Kept by the call handler; read here only.
  readonly #stats: CallStats;
  /** What the server's health service reports; false once closing. */
  readonly readiness: Readiness;

  /**
   * Follows `server`'s requests and sessions from now on.
   *
   * @param server The listener.
   * @param guard Its connection guard, closed first.
   * @param stats Its calls.
   * @param readiness What its health service reports.
   */
  constructor(
    server: http2.Http2Server,
    guard: ConnectionGuard,
    stats: CallStats,
    readiness: Readiness,
  ) {
    this.#server = server;
    this.#guard = guard;
    this.#stats = stats;
    this.readiness = readiness;
    server.on("request", (request, response) => {
      if (request.url?.startsWith(HEALTH_PATH)) return;
      this.#openResponses++;
      response.once("close", () => this.#openResponses--);
    });
    server.on("session", (session: http2.ServerHttp2Session) => {
      this.#sessions.add(session);
      session.on("close", () => this.#sessions.delete(session));
    });
  }

  /** Aborts when closing starts; its reason is the calls' status. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether new calls are refused: draining or closing. */
  get refusing(): boolean {
    return this.#draining || this.#controller.signal.aborted;
  }

  /** Responses still going out. */
  get openResponses(): number {
    return this.#openResponses;
  }

  /**
   * Drains, then closes: the health service turns NOT_SERVING and new
   * calls are refused at once; the calls in flight get up to `timeoutMs`
   * to finish and send their replies; then {@linkcode ServerShutdown.close}
   * ends what is left.
   *
   * @param timeoutMs The grace the calls in flight get.
   * @returns How many calls finished in the grace, and how many were cut.
   */
  async drain(timeoutMs: number): Promise<DrainReport> {
    this.#draining = true;
    this.readiness.set(false);
    const servedBefore = this.#stats.served;
    await pollUntil(
      () => this.#stats.inFlight === 0 && this.#openResponses === 0,
      Date.now() + timeoutMs,
    );
    const cut = this.#stats.inFlight;
    const drained = this.#stats.served - servedBefore;
    await this.close();
    return { drained, cut };
  }

  /**
   * Stops serving; runs once, whoever calls first.
   *
   * @returns When the listener and every connection are closed.
   */
  close(): Promise<void> {
    this.#closing ??= this.#closeGracefully();
    return this.#closing;
  }

  // Closing runs in this order because each step needs the one before:
  // 1. handlers' signals abort, so each call ends with `unavailable`, and
  //    no new connection is taken (one in its handshake is cut);
  // 2. the calls' replies and statuses go out;
  // 3. clients hang up on their own (Rill's master closes a connection
  //    when its last call ends), until the grace period ends;
  // 4. a connection still open is destroyed.
  // Step 3 is there because ending a connection is not harmless under
  // Deno: a Connect client whose connection ends just after its streams
  // closed fails a reply it had received but not yet read with "Premature
  // close". Step 4 sends no GOAWAY of its own (session.goaway()) first:
  // under Deno 2.9 a GOAWAY on a session whose streams have just closed
  // now and then aborts the process (nghttp2's find_stream_on_goaway_func
  // assertion), and waiting for it to take effect only adds time.
  async #closeGracefully(): Promise<void> {
    this.readiness.set(false);
    this.#controller.abort(
      new ConnectError("the worker is closing", Code.Unavailable),
    );
    this.#guard.close();
    const deadline = Date.now() + CLOSE_GRACE_MS;
    await pollUntil(() => this.#openResponses === 0, deadline);
    await pollUntil(() => this.#sessions.size === 0, deadline);
    for (const session of this.#sessions) session.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** Resolves once `done()` holds or `deadline` (epoch ms) has passed. */
async function pollUntil(done: () => boolean, deadline: number): Promise<void> {
  while (!done() && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
