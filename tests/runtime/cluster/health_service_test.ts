// gRPC's standard health service on a real worker over 127.0.0.1, asked the
// way the kubelet's grpc probe asks: the gRPC protocol (Connect's
// createGrpcTransport), no token. The worker's own service still needs
// the token. Every wait is bounded.

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
import { Tensor } from "../../../kernels/tensor.ts";
import { LIVENESS_SERVICE } from "../../../runtime/cluster/health_service.ts";
import { connectWorker } from "../../../runtime/cluster/worker_client.ts";
import { WorkerCallError } from "../../../runtime/cluster/worker_call_error.ts";
import { serveWorker } from "../../../runtime/cluster/worker_server.ts";
import { within } from "../../_helpers/within.ts";
import { testHandler } from "./_test_worker.ts";
import { makeTestTls } from "./_test_tls.ts";

/** A gRPC health client of `addr` with no token; dispose to hang up. */
function healthClient(addr: string) {
  const sessionManager = new Http2SessionManager(`http://${addr}`);
  const client = createClient(
    Health,
    createGrpcTransport({ baseUrl: `http://${addr}`, sessionManager }),
  );
  return {
    client,
    [Symbol.dispose]: () => sessionManager.abort(),
  };
}

Deno.test("routeHealth() answers gRPC Check without a token, and the worker's calls still need one", async () => {
  await using server = await serveWorker({
    handler: testHandler,
    token: "s3cret",
  });
  using health = healthClient(server.addr);
  for (const service of ["", "rill.v1.WorkerService", LIVENESS_SERVICE]) {
    const reply = await within(
      5_000,
      health.client.check({ service }, { timeoutMs: 5_000 }),
    );
    assertEquals(reply.status, Status.SERVING, `service "${service}"`);
  }
  const unknown = await within<ConnectError>(
    5_000,
    assertRejects(
      () => health.client.check({ service: "nope" }, { timeoutMs: 5_000 }),
      ConnectError,
    ),
  );
  assertEquals(unknown.code, Code.NotFound);
  // Without the token, the worker's own service refuses.
  using stranger = connectWorker(server.addr, { token: "", timeoutMs: 5_000 });
  const refused = await within<WorkerCallError>(
    5_000,
    assertRejects(
      () => stranger.call("echo", { x: Tensor.scalar(1, "int32") }),
      WorkerCallError,
    ),
  );
  assertEquals(refused.code, Code.Unauthenticated);
});

Deno.test("routeHealth() streams NOT_SERVING to a Watch when the worker drains", async () => {
  await using server = await serveWorker({
    handler: testHandler,
    token: "s3cret",
  });
  const watching = new AbortController();
  const sessionManager = new Http2SessionManager(`http://${server.addr}`);
  const health = createClient(
    Health,
    createGrpcTransport({ baseUrl: `http://${server.addr}`, sessionManager }),
  );
  const stream = health.watch({ service: "" }, {
    timeoutMs: 10_000,
    signal: watching.signal,
  })[Symbol.asyncIterator]();
  try {
    const first = await within(5_000, stream.next());
    assertEquals(first.value?.status, Status.SERVING);
    const drained = server.drain({ timeoutMs: 5_000 });
    const second = await within(5_000, stream.next());
    assertEquals(second.value?.status, Status.NOT_SERVING);
    // The watcher hangs up, as a probe does: nothing is left to cut.
    watching.abort();
    sessionManager.abort();
    assertEquals(await within(10_000, drained), { drained: 0, cut: 0 });
  } finally {
    watching.abort();
    sessionManager.abort();
  }
});

Deno.test("routeHealth() answers over TLS without a token, as grpc-health-probe -tls asks", async () => {
  const tls = await makeTestTls();
  await using server = await serveWorker({
    handler: testHandler,
    token: "s3cret",
    tls: { cert: tls.certPem, key: tls.keyPem },
  });
  const baseUrl = `https://${server.addr}`;
  const sessionManager = new Http2SessionManager(baseUrl, {}, {
    ca: tls.caPem,
  });
  try {
    const health = createClient(
      Health,
      createGrpcTransport({ baseUrl, sessionManager }),
    );
    const reply = await within(
      5_000,
      health.check({ service: "" }, { timeoutMs: 5_000 }),
    );
    assertEquals(reply.status, Status.SERVING);
  } finally {
    sessionManager.abort();
  }
});
