/**
 * The tests' worker: a handler with a few endpoints, and, run as a script,
 * a worker process that serves it on 127.0.0.1 (port 0), takes its token
 * from `RILL_TOKEN`, prints `listening on HOST:PORT` and serves until
 * killed.
 *
 *   deno run -A tests/runtime/cluster/_test_worker.ts
 *
 * Endpoints: `echo` returns the request's tensors; `hang` replies only
 * when the call ends (its deadline, the caller gone, the server closing),
 * with an error; `fail` throws `Error("boom")`; any other is `not_found`.
 *
 * @module
 */

import { Code, ConnectError } from "@connectrpc/connect";
import type { Tensor } from "../../../kernels/tensor.ts";
import {
  serveWorker,
  type WorkerCallContext,
} from "../../../runtime/cluster/worker_server.ts";

/**
 * The test endpoints.
 *
 * @param endpoint The endpoint called.
 * @param tensors The request.
 * @param context The call's signal.
 * @returns The reply.
 */
export async function testHandler(
  endpoint: string,
  tensors: Map<string, Tensor>,
  context: WorkerCallContext,
): Promise<Map<string, Tensor>> {
  switch (endpoint) {
    case "echo":
      return tensors;
    case "hang":
      await new Promise((resolve) => {
        context.signal.addEventListener("abort", resolve, { once: true });
      });
      throw new Error("the call ended");
    case "fail":
      throw new Error("boom");
    default:
      throw new ConnectError(`no endpoint "${endpoint}"`, Code.NotFound);
  }
}

if (import.meta.main) {
  const server = await serveWorker({ handler: testHandler });
  console.log(`listening on ${server.addr}`);
}
