// Each request's deadlines, with real sockets on 127.0.0.1: a call whose
// body stops halfway ends with deadline_exceeded naming --read-timeout, a
// unary request whose body never ends is reset, a call whose handler
// stalls ends at --call-timeout and tells its caller why, and a caller
// that stops reading a large reply is cut off; after each, the worker has
// no call in flight and serves the next. Every wait is bounded.

import * as http2 from "node:http2";
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { Code } from "@connectrpc/connect";
import { Tensor } from "../../../kernels/tensor.ts";
import { connectWorker } from "../../../runtime/cluster/worker_client.ts";
import { WorkerCallError } from "../../../runtime/cluster/worker_call_error.ts";
import {
  serveWorker,
  type WorkerServer,
} from "../../../runtime/cluster/worker_server.ts";
import { within } from "../../_helpers/within.ts";
import { testHandler } from "./_test_worker.ts";

/** What a raw request got: its status, its body as text, how it ended. */
interface RawOutcome {
  status: number;
  text: string;
  /** The RST_STREAM code, 0 (NO_ERROR) when it ended normally. */
  rstCode: number;
}

/**
 * Opens a request, sends `body` without ending it, and waits, up to 5 s,
 * for the server to end the stream.
 */
async function stalledRequest(
  addr: string,
  path: string,
  contentType: string,
  body: Uint8Array,
): Promise<RawOutcome> {
  const session = http2.connect(`http://${addr}`);
  session.on("error", () => {});
  try {
    return await within(
      5_000,
      new Promise<RawOutcome>((resolve) => {
        const stream = session.request({
          ":method": "POST",
          ":path": path,
          "content-type": contentType,
          "connect-protocol-version": "1",
        });
        let status = 0;
        let text = "";
        stream.setEncoding("utf8");
        stream.on("response", (h) => status = Number(h[":status"]));
        stream.on("data", (chunk: string) => text += chunk);
        stream.on("error", () => {});
        stream.on(
          "close",
          () => resolve({ status, text, rstCode: stream.rstCode ?? 0 }),
        );
        stream.write(body);
      }),
    );
  } finally {
    session.destroy();
  }
}

/** Waits, up to 3 s, until the server has no call in flight. */
async function idle(server: WorkerServer): Promise<void> {
  using client = connectWorker(server.addr, { token: "", timeoutMs: 5_000 });
  for (let i = 0; i < 300; i++) {
    if ((await client.health()).callsInFlight === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("a call is still in flight after 3 s");
}

Deno.test("serveWorker() ends a call whose body stops halfway at --read-timeout, saying so", async () => {
  await using server = await serveWorker({
    handler: testHandler,
    token: "",
    limits: { readTimeoutMs: 300 },
  });
  // One enveloped message of 100 bytes announced, 10 sent.
  const envelope = new Uint8Array([0, 0, 0, 0, 100, ...new Array(10).fill(0)]);
  const t0 = performance.now();
  const outcome = await stalledRequest(
    server.addr,
    "/rill.v1.WorkerService/Call",
    "application/connect+proto",
    envelope,
  );
  assert(performance.now() - t0 >= 250, "ended before the deadline");
  assertEquals(outcome.status, 200);
  assertStringIncludes(outcome.text, '"deadline_exceeded"');
  assertStringIncludes(
    outcome.text,
    "the request did not arrive in full in time (--read-timeout 300ms)",
  );
  await idle(server);
});

Deno.test("serveWorker() resets a unary request whose body never ends, after --read-timeout", async () => {
  await using server = await serveWorker({
    handler: testHandler,
    token: "",
    limits: { readTimeoutMs: 300 },
  });
  const outcome = await stalledRequest(
    server.addr,
    "/rill.v1.WorkerService/Health",
    "application/proto",
    new Uint8Array(1),
  );
  // Connect reads a unary body before any handler runs: the stream is cut.
  assertEquals(outcome.text, "");
  assert(outcome.rstCode !== 0, `rst code ${outcome.rstCode}`);
  await idle(server);
});

Deno.test("serveWorker() ends a stalled call at --call-timeout and tells the caller why", async () => {
  let started = 0;
  await using server = await serveWorker({
    token: "",
    limits: { callTimeoutMs: 300 },
    // Never settles, and ignores its signal: a stalled program.
    handler: () => {
      started++;
      return new Promise(() => {});
    },
  });
  using client = connectWorker(server.addr, { token: "", timeoutMs: 20_000 });
  const t0 = performance.now();
  const e = await within(
    5_000,
    client.call("stall", { x: Tensor.scalar(1, "int32") }).then(
      () => undefined,
      (error) => error,
    ),
  );
  assert(e instanceof WorkerCallError, `not refused: ${e}`);
  assert(performance.now() - t0 >= 250, "ended before the deadline");
  assertEquals([e.code, e.limit], [Code.DeadlineExceeded, "call-timeout"]);
  assertEquals(
    e.message,
    `worker ${server.addr}: call "stall": deadline_exceeded: ` +
      "the call did not end within the worker's deadline (--call-timeout 300ms)",
  );
  assertEquals(started, 1);
  await idle(server);
});

Deno.test("serveWorker() cuts off a caller that stops reading its reply, at --call-timeout", async () => {
  await using server = await serveWorker({
    token: "",
    limits: { callTimeoutMs: 500 },
    // A reply of 64 MiB: more than the flow-control windows let through
    // to a client that reads nothing.
    handler: () => ({ y: Tensor.zeros([16 << 20], "float32") }),
  });
  const session = http2.connect(`http://${server.addr}`);
  session.on("error", () => {});
  try {
    const request = new Uint8Array([
      0,
      0,
      0,
      0,
      4,
      ...[10, 2, 8, 1], // CallRequest{header: {request_id: 1}}
    ]);
    const closed = await within(
      10_000,
      new Promise<number>((resolve) => {
        const stream = session.request({
          ":method": "POST",
          ":path": "/rill.v1.WorkerService/Call",
          "content-type": "application/connect+proto",
          "connect-protocol-version": "1",
        });
        stream.on("error", () => {});
        stream.on("close", () => resolve(stream.rstCode ?? 0));
        stream.end(request);
        stream.pause(); // and never read
      }),
    );
    assert(closed !== 0, "the stream ended normally");
  } finally {
    session.destroy();
  }
  await idle(server);
});
