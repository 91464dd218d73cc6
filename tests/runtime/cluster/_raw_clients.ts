/**
 * Clients that misbehave on purpose, for the worker's limits: TCP
 * connections that send nothing or a bare HTTP/2 preface, a Connect client
 * whose connections come from another loopback address (127.0.0.2: on
 * Linux every 127/8 address is the loopback interface), and a bounded wait
 * for a connection to be closed by the server.
 *
 * @module
 */

import * as net from "node:net";
import { type Client, createClient } from "@connectrpc/connect";
import {
  createConnectTransport,
  Http2SessionManager,
} from "@connectrpc/connect-node";
import { WorkerService } from "../../../gen/rill/v1/rpc_pb.ts";
import { parseHostPort } from "../../../runtime/cluster/host_port.ts";
import { within } from "../../_helpers/within.ts";

/** The client's HTTP/2 preface: the magic, then an empty SETTINGS frame. */
export const CLIENT_PREFACE: Uint8Array = new Uint8Array([
  ...new TextEncoder().encode("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
  ...[0, 0, 0, 4, 0, 0, 0, 0, 0],
]);

/**
 * A TCP connection to `addr`, from `localAddress`.
 *
 * @param addr The server's `host:port`.
 * @param localAddress The address to connect from.
 * @returns The socket, once connected.
 */
export function tcpFrom(
  addr: string,
  localAddress: string,
): Promise<net.Socket> {
  const { host, port } = parseHostPort(addr, { source: "test" });
  return within(
    5_000,
    new Promise((resolve, reject) => {
      const socket = net.connect({ host, port, localAddress });
      socket.once("connect", () => resolve(socket));
      socket.once("error", reject);
    }),
  );
}

/**
 * Waits until the server closes `socket`, reading and dropping what it
 * sends (its SETTINGS frame, a GOAWAY).
 *
 * @param socket The connection.
 * @param ms The most to wait.
 * @returns When the connection has closed.
 */
export function closedByServer(socket: net.Socket, ms: number): Promise<void> {
  return within(
    ms,
    new Promise<void>((resolve) => {
      if (socket.destroyed) return resolve();
      socket.on("data", () => {});
      socket.on("error", () => {});
      socket.once("close", () => resolve());
    }),
  );
}

/** A Connect client of the worker service and its one connection. */
export interface BoundClient extends Disposable {
  /** The client. */
  readonly client: Client<typeof WorkerService>;
}

/**
 * A Connect client whose connections to `addr` come from `localAddress`.
 *
 * @param addr The worker's `host:port`.
 * @param localAddress The address to connect from.
 * @returns The client; disposing it closes its connection.
 */
export function clientFrom(addr: string, localAddress: string): BoundClient {
  const { host, port } = parseHostPort(addr, { source: "test" });
  const sessionManager = new Http2SessionManager(`http://${addr}`, {}, {
    createConnection: () => net.connect({ host, port, localAddress }),
  });
  const client = createClient(
    WorkerService,
    createConnectTransport({
      baseUrl: `http://${addr}`,
      httpVersion: "2",
      sessionManager,
    }),
  );
  return { client, [Symbol.dispose]: () => sessionManager.abort() };
}
