/**
 * Binding a node:http2 server to its address, as both of a worker's
 * servers (worker_server.ts, health_server.ts) do it.
 *
 * @module
 */
import type * as http2 from "node:http2";
import type { AddressInfo } from "node:net";

/**
 * Listens on `host:port` (port 0: any free one). A failure to bind
 * rejects; later server errors are ignored, since each connection handles
 * its own and a broken one must not end the process.
 *
 * @param server The server.
 * @param host The address to bind.
 * @param port The port; 0 picks one.
 * @returns The port bound.
 *
 * @example Usage
 * ```ts
 * import * as http2 from "node:http2";
 * import { listen } from "./_listen.ts";
 * import { assert } from "@std/assert";
 *
 * const server = http2.createServer();
 * assert(await listen(server, "127.0.0.1", 0) > 0);
 * server.close();
 * ```
 */
export async function listen(
  server: http2.Http2Server | http2.Http2SecureServer,
  host: string,
  port: number,
): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", () => {});
  return (server.address() as AddressInfo).port;
}
