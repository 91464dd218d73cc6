// The health-only listener on 127.0.0.1, asked with gRPC as the kubelet
// asks: it reports the readiness it is given, and serves nothing else.

import { assertEquals, assertRejects } from "@std/assert";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import {
  createGrpcTransport,
  Http2SessionManager,
} from "@connectrpc/connect-node";
import {
  Health,
  HealthCheckResponse_ServingStatus as Status,
} from "../../../gen/grpc/health/v1/health_pb.ts";
import { WorkerService } from "../../../gen/rill/v1/rpc_pb.ts";
import { serveHealth } from "../../../runtime/cluster/health_server.ts";
import { Readiness } from "../../../runtime/cluster/readiness.ts";
import { within } from "../../_helpers/within.ts";

Deno.test("serveHealth() reports its readiness over gRPC, and serves no other service", async () => {
  const readiness = new Readiness(false);
  const server = await serveHealth({ readiness });
  const baseUrl = `http://${server.addr}`;
  const sessionManager = new Http2SessionManager(baseUrl);
  const transport = createGrpcTransport({ baseUrl, sessionManager });
  try {
    const health = createClient(Health, transport);
    const check = async () =>
      (await within(5_000, health.check({}, { timeoutMs: 5_000 }))).status;
    assertEquals(await check(), Status.NOT_SERVING);
    readiness.set(true);
    assertEquals(await check(), Status.SERVING);
    // The worker's own service is not here, with or without a token.
    const worker = createClient(WorkerService, transport);
    const e = await within(
      5_000,
      assertRejects(
        () => worker.health({}, { timeoutMs: 5_000 }),
        ConnectError,
      ),
    );
    assertEquals((e as ConnectError).code, Code.Unimplemented);
  } finally {
    sessionManager.abort();
    await within(5_000, server.close());
  }
});
