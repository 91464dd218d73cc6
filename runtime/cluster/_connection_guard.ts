/**
 * Holds a worker's connections to its limits (worker_limits.ts): how many
 * at once, in all (`--max-conns`) and per client address
 * (`--max-conns-per-client`); how long a new one may take to send its
 * HTTP/2 preface, TLS handshake included (`--read-timeout`); how long one
 * may stay open with no request in flight (`--idle-timeout`).
 *
 * Where each is enforced, and why there:
 *
 * - Counting and the preface deadline start on the listener's `connection`
 *   event, which hands over the TCP socket before a byte is read (before
 *   TLS). The guard listens first (`prependListener`), so a connection's
 *   record exists before node:http2 makes its session.
 * - The preface ends with the client's SETTINGS frame, which node:http2
 *   reports as the session's `remoteSettings` event; then the preface
 *   deadline gives way to the idle one.
 * - Idle is counted in open streams, not in bytes: a client that trickles
 *   a header block byte by byte holds no stream open (HTTP/2 sends header
 *   blocks whole, nothing interleaved), so its connection still closes
 *   after `--idle-timeout`. The idle close is a GOAWAY: Connect's client
 *   opens a new connection for its next call.
 * - A connection over a cap is not cut at once: a client that has not yet
 *   written its preface would meet EPIPE (Connect's client under Deno
 *   throws it uncaught), and one whose session closes before it has read
 *   its reply gets "Premature close" instead. For REFUSE_GRACE_MS its
 *   requests are refused with `resource_exhausted` naming the cap; then it
 *   is closed as an idle one is. It does not count towards the caps.
 *
 * Invariants: `#held` is the number of records not refused, and
 * `#perClient` counts them by address; a record has at most one timer
 * pending, and none once its socket has closed or the guard has.
 *
 * @module
 */

import type * as http2 from "node:http2";
import type * as net from "node:net";
import { Code, type ConnectError } from "@connectrpc/connect";
import { limitStatus } from "./_limit_status.ts";
import type { WorkerLimits } from "./worker_limits.ts";

/** How long a connection over a cap lives: long enough to be told why. */
const REFUSE_GRACE_MS = 1000;

/** How long an idle connection's GOAWAY has to close it before a cut. */
const GOAWAY_GRACE_MS = 1000;

/** One accepted TCP connection. */
interface Conn {
  readonly socket: net.Socket;
  /** The client's address, IPv4-mapped IPv6 written as IPv4. */
  readonly client: string;
  /** Why its requests are refused; undefined for a held connection. */
  readonly refusal: ConnectError | undefined;
  /** The preface, idle, GOAWAY or refusal deadline, whichever is pending. */
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Its HTTP/2 session, once node:http2 has made it. */
  session: http2.ServerHttp2Session | undefined;
  /** Its streams open now. */
  streams: number;
}

/**
 * Watches a server's connections and closes those its limits do not
 * allow; see the module's documentation.
 *
 * @example Usage
 * ```ts
 * import * as http2 from "node:http2";
 * import { ConnectionGuard } from "./_connection_guard.ts";
 * import { DEFAULT_WORKER_LIMITS } from "./worker_limits.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const server = http2.createServer();
 * const guard = new ConnectionGuard(server, DEFAULT_WORKER_LIMITS);
 * assertEquals(guard.held, 0);
 * guard.close();
 * ```
 */
export class ConnectionGuard {
  #limits: Readonly<WorkerLimits>;
  /** Every open connection, by the peer's `address:port`. */
  #conns = new Map<string, Conn>();
  #bySession = new WeakMap<http2.Http2Session, Conn>();
  #perClient = new Map<string, number>();
  #held = 0;
  #closed = false;

  /**
   * Starts watching.
   *
   * @param server A node:http2 server, plain or TLS, not yet listening.
   * @param limits The limits.
   */
  constructor(server: net.Server, limits: Readonly<WorkerLimits>) {
    this.#limits = limits;
    server.prependListener("connection", (s: net.Socket) => this.#accept(s));
    server.on("session", (s: http2.ServerHttp2Session) => this.#attach(s));
  }

  /** The connections held now (refused ones are not). */
  get held(): number {
    return this.#held;
  }

  /**
   * Why requests on this session are refused, if they are.
   *
   * @param session The request's session.
   * @returns The status to refuse them with, or undefined.
   */
  refusal(session: http2.Http2Session | undefined): ConnectError | undefined {
    return session === undefined
      ? undefined
      : this.#bySession.get(session)?.refusal;
  }

  /**
   * Stops every deadline, for a server that closes its sessions itself,
   * and destroys the connections that have no session yet (a TLS
   * handshake or a preface under way).
   */
  close(): void {
    this.#closed = true;
    for (const conn of this.#conns.values()) {
      clearTimeout(conn.timer);
      conn.timer = undefined;
      if (conn.session === undefined) conn.socket.destroy();
    }
  }

  #accept(socket: net.Socket): void {
    const key = keyOf(socket);
    if (key === undefined || this.#closed) {
      socket.destroy();
      return;
    }
    const client = clientOf(socket.remoteAddress!);
    const refusal = this.#refusalFor(client);
    const conn: Conn = {
      socket,
      client,
      refusal,
      timer: undefined,
      session: undefined,
      streams: 0,
    };
    if (refusal === undefined) {
      this.#held++;
      this.#perClient.set(client, (this.#perClient.get(client) ?? 0) + 1);
    }
    this.#conns.set(key, conn);
    conn.timer = refusal === undefined
      ? setTimeout(() => socket.destroy(), this.#limits.readTimeoutMs)
      : setTimeout(() => this.#shut(conn), REFUSE_GRACE_MS);
    socket.once("close", () => this.#release(key, conn));
  }

  /** Why a new connection from `client` is refused, if it is. */
  #refusalFor(client: string): ConnectError | undefined {
    const limits = this.#limits;
    if (this.#held >= limits.maxConns) {
      return limitStatus(
        Code.ResourceExhausted,
        "the worker holds as many connections as it may",
        "maxConns",
        limits,
      );
    }
    if ((this.#perClient.get(client) ?? 0) >= limits.maxConnsPerClient) {
      return limitStatus(
        Code.ResourceExhausted,
        `${client} holds as many connections as one client may`,
        "maxConnsPerClient",
        limits,
      );
    }
    return undefined;
  }

  #attach(session: http2.ServerHttp2Session): void {
    const key = keyOf(session.socket);
    const conn = key === undefined ? undefined : this.#conns.get(key);
    if (conn === undefined) return; // its socket has closed already
    this.#bySession.set(session, conn);
    conn.session = session;
    if (conn.refusal !== undefined) return;
    session.once("remoteSettings", () => {
      if (conn.streams === 0) this.#idle(conn);
    });
    session.on("stream", (stream: http2.ServerHttp2Stream) => {
      conn.streams++;
      clearTimeout(conn.timer);
      conn.timer = undefined;
      stream.once("close", () => {
        if (--conn.streams === 0) this.#idle(conn);
      });
    });
  }

  /** Starts the idle deadline of a connection with no stream open. */
  #idle(conn: Conn): void {
    clearTimeout(conn.timer);
    conn.timer = undefined;
    if (this.#closed || conn.socket.destroyed) return;
    conn.timer = setTimeout(() => this.#shut(conn), this.#limits.idleTimeoutMs);
  }

  /**
   * Closes a connection: with a GOAWAY when it has a session, which closes
   * it once its streams end, else (or GOAWAY_GRACE_MS later) at once.
   */
  #shut(conn: Conn): void {
    if (conn.session === undefined) {
      conn.socket.destroy();
      return;
    }
    conn.session.close();
    conn.timer = setTimeout(() => conn.socket.destroy(), GOAWAY_GRACE_MS);
  }

  #release(key: string, conn: Conn): void {
    clearTimeout(conn.timer);
    conn.timer = undefined;
    this.#conns.delete(key);
    if (conn.refusal !== undefined) return;
    this.#held--;
    const left = this.#perClient.get(conn.client)! - 1;
    if (left === 0) this.#perClient.delete(conn.client);
    else this.#perClient.set(conn.client, left);
  }
}

/** A socket's peer as `address:port`, or undefined once it has closed. */
function keyOf(socket: net.Socket | undefined): string | undefined {
  const address = socket?.remoteAddress;
  const port = socket?.remotePort;
  return address === undefined || port === undefined
    ? undefined
    : `${address}:${port}`;
}

/** A client's address, with IPv4-mapped IPv6 (`::ffff:10.0.0.7`) as IPv4. */
function clientOf(address: string): string {
  return address.startsWith("::ffff:") && address.includes(".")
    ? address.slice(7)
    : address;
}
