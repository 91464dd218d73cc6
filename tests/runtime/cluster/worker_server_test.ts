// Serving workers for real on 127.0.0.1: calls served at once, the token,
// TLS with a throwaway CA, the size limits, malformed streams and bytes,
// handler errors, closing with calls in flight, and a server that outlives
// its callers' broken connections. Every wait is bounded.

import * as http2 from "node:http2";
import { assert, assertEquals, assertRejects } from "@std/assert";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, createClient } from "@connectrpc/connect";
import {
  createConnectTransport,
  Http2SessionManager,
} from "@connectrpc/connect-node";
import {
  type CallRequest,
  CallRequestSchema,
  WorkerService,
} from "../../../gen/rill/v1/rpc_pb.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import { connectWorker } from "../../../runtime/cluster/worker_client.ts";
import { WorkerCallError } from "../../../runtime/cluster/worker_call_error.ts";
import { serveWorker } from "../../../runtime/cluster/worker_server.ts";
import { within } from "../../_helpers/within.ts";
import { testHandler } from "./_test_worker.ts";
import { makeTestTls } from "./_test_tls.ts";

/** The error `fn` rejects with, within `ms`. */
function failure(
  fn: () => Promise<unknown>,
  ms = 5_000,
): Promise<WorkerCallError> {
  return within<WorkerCallError>(ms, assertRejects(fn, WorkerCallError));
}

/** Waits, up to 2 s, until `ok()` holds. */
async function eventually(ok: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await ok()); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert(await ok(), "the condition did not come true within 2 s");
}

/** Sends raw request messages with the generated client, no checks. */
async function rawCall(addr: string, requests: CallRequest[]): Promise<Code> {
  const sessionManager = new Http2SessionManager(`http://${addr}`);
  const client = createClient(
    WorkerService,
    createConnectTransport({
      baseUrl: `http://${addr}`,
      httpVersion: "2",
      sessionManager,
    }),
  );
  async function* messages(): AsyncGenerator<CallRequest> {
    yield* requests;
  }
  try {
    for await (const _ of client.call(messages(), { timeoutMs: 5_000 })) {
      // drain
    }
    return Code.Unknown + 100; // not refused
  } catch (error) {
    return WorkerCallError.from(error, { addr, timeoutMs: 5_000 }).code;
  } finally {
    sessionManager.abort();
  }
}

/**
 * POSTs raw bytes over HTTP/2, with extra request headers; returns the
 * status, the response headers and the body as text.
 */
async function rawPost(
  addr: string,
  path: string,
  contentType: string,
  body: Uint8Array,
  extraHeaders: http2.OutgoingHttpHeaders = {},
): Promise<
  { status: number; headers: http2.IncomingHttpHeaders; text: string }
> {
  const session = http2.connect(`http://${addr}`);
  session.on("error", () => {});
  try {
    return await within(
      5_000,
      new Promise((resolve, reject) => {
        const request = session.request({
          ":method": "POST",
          ":path": path,
          "content-type": contentType,
          "connect-protocol-version": "1",
          ...extraHeaders,
        });
        let status = 0;
        let headers: http2.IncomingHttpHeaders = {};
        let text = "";
        request.setEncoding("utf8");
        request.on("response", (h) => {
          headers = h;
          status = Number(h[":status"]);
        });
        request.on("data", (chunk: string) => text += chunk);
        request.on("end", () => resolve({ status, headers, text }));
        request.on("error", reject);
        request.end(body);
      }),
    );
  } finally {
    session.destroy();
  }
}

Deno.test("serveWorker() serves many calls at once", async () => {
  const n = 24;
  let arrived = 0;
  let release!: () => void;
  const allArrived = new Promise<void>((resolve) => release = resolve);
  await using server = await serveWorker({
    token: "",
    limits: { maxCalls: n },
    handler: async (_endpoint, tensors) => {
      // Each call waits for all the others: only concurrent serving ends.
      if (++arrived === n) release();
      await allArrived;
      return { i: tensors.get("i")! };
    },
  });
  using client = connectWorker(server.addr, { token: "", timeoutMs: 10_000 });
  const replies = await within(
    15_000,
    Promise.all(
      Array.from(
        { length: n },
        (_, i) => client.call("wait", { i: Tensor.scalar(i, "int32") }),
      ),
    ),
  );
  assertEquals(replies.map((r) => r.get("i")!.item(0)), [...Array(n).keys()]);
  assertEquals((await client.health()).callsServed, BigInt(n));
});

Deno.test("serveWorker() with a token refuses calls without it, before running anything", async () => {
  let ran = 0;
  await using server = await serveWorker({
    token: "s3cret",
    handler: (_endpoint, tensors) => {
      ran++;
      return tensors;
    },
  });
  const x = { x: Tensor.zeros([1 << 20], "float32") };
  for (const token of ["", "wrong", "s3cret2"]) {
    using client = connectWorker(server.addr, { token, timeoutMs: 5_000 });
    const e = await failure(() => client.call("echo", x));
    assertEquals(e.code, Code.Unauthenticated, e.message);
    assertEquals(
      (await failure(() => client.health())).code,
      Code.Unauthenticated,
    );
  }
  assertEquals(ran, 0);
  using client = connectWorker(server.addr, {
    token: "s3cret",
    timeoutMs: 5_000,
  });
  assertEquals((await client.call("echo", x)).get("x")?.size, 1 << 20);
  assertEquals(ran, 1);
});

Deno.test("serveWorker() reads its token from RILL_TOKEN", async () => {
  await using server = await serveWorker({
    handler: testHandler,
    env: { RILL_TOKEN: "from-env" },
  });
  using stranger = connectWorker(server.addr, { env: {}, timeoutMs: 5_000 });
  assertEquals(
    (await failure(() => stranger.health())).code,
    Code.Unauthenticated,
  );
  using friend = connectWorker(server.addr, {
    env: { RILL_TOKEN: "from-env" },
    timeoutMs: 5_000,
  });
  assertEquals((await friend.health()).serving, true);
});

Deno.test("serveWorker() serves TLS to a client that trusts its CA, and no one else", async () => {
  const tls = await makeTestTls();
  await using server = await serveWorker({
    handler: testHandler,
    token: "",
    tls: { cert: tls.certPem, key: tls.keyPem },
  });
  assert(server.tls);
  using trusting = connectWorker(server.addr, {
    token: "",
    ca: tls.caPem,
    timeoutMs: 5_000,
  });
  const x = Tensor.fromArray([1.5, 2.5], "float64");
  assertEquals((await trusting.call("echo", { x })).get("x")?.toNested(), [
    1.5,
    2.5,
  ]);
  using wrongCa = connectWorker(server.addr, {
    token: "",
    ca: tls.otherCaPem,
    timeoutMs: 3_000,
  });
  const e = await failure(() => wrongCa.call("echo", { x }));
  assert(e.code !== Code.DeadlineExceeded, e.message);
  using plain = connectWorker(server.addr, { token: "", timeoutMs: 3_000 });
  await failure(() => plain.health());
});

Deno.test("serveWorker() refuses a message over readMaxBytes with resource_exhausted, and carries on", async () => {
  await using server = await serveWorker({
    handler: testHandler,
    token: "",
    readMaxBytes: 64 << 10,
  });
  using client = connectWorker(server.addr, { token: "", timeoutMs: 5_000 });
  const e = await failure(() =>
    client.call("echo", { x: Tensor.zeros([1 << 16], "float32") })
  );
  assertEquals(e.code, Code.ResourceExhausted, e.message);
  // Small messages still pass.
  using small = connectWorker(server.addr, {
    token: "",
    chunkBytes: 32 << 10,
    timeoutMs: 5_000,
  });
  const back = await small.call("echo", {
    x: Tensor.zeros([1 << 16], "float32"),
  });
  assertEquals(back.get("x")?.size, 1 << 16);
});

Deno.test("serveWorker() refuses a call over maxCallBytes with resource_exhausted", async () => {
  await using server = await serveWorker({
    handler: testHandler,
    token: "",
    limits: { maxCallBytes: 1 << 20 },
  });
  using client = connectWorker(server.addr, { token: "", timeoutMs: 5_000 });
  const e = await failure(() =>
    client.call("echo", {
      a: Tensor.zeros([1 << 17], "float32"),
      b: Tensor.zeros([1 << 17], "float32"),
    })
  );
  assertEquals(e.code, Code.ResourceExhausted);
  assert(e.detail.includes('tensor "b"'), e.detail);
});

Deno.test("serveWorker() refuses malformed calls with invalid_argument", async () => {
  await using server = await serveWorker({ handler: testHandler, token: "" });
  const header = { requestId: 1n, endpoint: "echo" };
  const bytes = { parts: [{ data: new Uint8Array(4) }] };
  const cases: [string, CallRequest[]][] = [
    ["no message", []],
    ["no header", [create(CallRequestSchema, {})]],
    ["two headers", [
      create(CallRequestSchema, { header }),
      create(CallRequestSchema, { header }),
    ]],
    ["bytes before a tensor header", [
      create(CallRequestSchema, { header, ...bytes }),
    ]],
  ];
  for (const [what, requests] of cases) {
    assertEquals(
      await rawCall(server.addr, requests),
      Code.InvalidArgument,
      what,
    );
  }
});

Deno.test("serveWorker() answers bytes that are not a message with a status, and carries on", async () => {
  await using server = await serveWorker({ handler: testHandler, token: "" });
  const garbage = new Uint8Array([0xff, 0xff, 0xff]);
  const unary = await rawPost(
    server.addr,
    "/rill.v1.WorkerService/Health",
    "application/proto",
    garbage,
  );
  // Connect decodes a unary request before any Rill code runs, and calls
  // an undecodable one `internal`.
  assertEquals(unary.status, 500);
  assert(unary.text.includes('"internal"'), unary.text);
  // A stream: one enveloped message (flags 0, length 3) of garbage.
  const stream = await rawPost(
    server.addr,
    "/rill.v1.WorkerService/Call",
    "application/connect+proto",
    new Uint8Array([0, 0, 0, 0, 3, ...garbage]),
  );
  assert(stream.text.includes('"invalid_argument"'), stream.text);
  using client = connectWorker(server.addr, { token: "", timeoutMs: 5_000 });
  assertEquals((await client.health()).serving, true);
});

Deno.test("serveWorker() never compresses a reply, even to a client that accepts gzip", async () => {
  await using server = await serveWorker({ handler: testHandler, token: "" });
  // An echo of 64 KiB of zeros, which gzip would shrink a thousandfold.
  const request = toBinary(
    CallRequestSchema,
    create(CallRequestSchema, {
      header: { requestId: 1n, endpoint: "echo" },
      parts: [{
        header: { name: "x", dtype: 5, dims: [16384n] },
        data: new Uint8Array(65536),
      }],
    }),
  );
  const envelope = new Uint8Array(5 + request.length);
  new DataView(envelope.buffer).setUint32(1, request.length);
  envelope.set(request, 5);
  const reply = await rawPost(
    server.addr,
    "/rill.v1.WorkerService/Call",
    "application/connect+proto",
    envelope,
    { "connect-accept-encoding": "gzip, br" },
  );
  assertEquals(reply.status, 200);
  assertEquals(reply.headers["connect-content-encoding"], undefined);
  // Two messages (the acknowledgement, the echo), then the end-of-stream
  // message; flags 0 on the messages say uncompressed.
  assert(reply.text.length > 65536, `reply of ${reply.text.length} chars`);
  assertEquals(reply.text.charCodeAt(0), 0);
});

Deno.test("serveWorker() passes a handler's error to the caller", async () => {
  await using server = await serveWorker({
    token: "",
    handler: (endpoint, tensors, context) =>
      endpoint === "bad reply"
        ? { x: 1 as unknown as Tensor }
        : testHandler(endpoint, tensors, context),
  });
  using client = connectWorker(server.addr, { token: "", timeoutMs: 5_000 });
  const fail = await failure(() => client.call("fail", {}));
  assertEquals([fail.code, fail.detail], [Code.Unknown, "boom"]);
  assertEquals(
    fail.message,
    `worker ${server.addr}: call "fail": unknown: boom`,
  );
  const missing = await failure(() => client.call("nope", {}));
  assertEquals([missing.code, missing.detail], [
    Code.NotFound,
    'no endpoint "nope"',
  ]);
  assertEquals(
    (await failure(() => client.call("bad reply", {}))).code,
    Code.Unknown,
  );
});

Deno.test("WorkerServer.close() ends calls in flight with unavailable and stops listening", async () => {
  const server = await serveWorker({ handler: testHandler, token: "" });
  using client = connectWorker(server.addr, { token: "", timeoutMs: 20_000 });
  const call = client.call("hang", {});
  call.catch(() => {});
  await eventually(async () => (await client.health()).callsInFlight === 1);
  await within(5_000, server.close());
  const inFlight = await failure(() => call);
  assertEquals(inFlight.code, Code.Unavailable, inFlight.message);
  assertEquals((await failure(() => client.health())).code, Code.Unavailable);
  await server.close(); // again: nothing to do
});

Deno.test("serveWorker() outlives a caller that goes away mid-call", async () => {
  await using server = await serveWorker({ handler: testHandler, token: "" });
  using watcher = connectWorker(server.addr, { token: "", timeoutMs: 5_000 });
  for (let i = 0; i < 3; i++) {
    const caller = connectWorker(server.addr, { token: "", timeoutMs: 20_000 });
    const call = caller.call("hang", { x: Tensor.zeros([1 << 18], "float32") });
    call.catch(() => {});
    await eventually(async () => (await watcher.health()).callsInFlight === 1);
    caller.close();
    await call.catch(() => {});
    await eventually(async () => (await watcher.health()).callsInFlight === 0);
  }
  assertEquals((await watcher.health()).callsServed, 3n);
});

Deno.test("WorkerServer.drain() refuses new calls with unavailable and lets those in flight finish", async () => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => release = resolve);
  let arrived = 0;
  const server = await serveWorker({
    token: "",
    handler: async (_endpoint, tensors) => {
      arrived++;
      await released;
      return tensors;
    },
  });
  using client = connectWorker(server.addr, { token: "", timeoutMs: 20_000 });
  const call = client.call("wait", { x: Tensor.scalar(5, "int32") });
  await eventually(() => arrived === 1);
  const drained = server.drain({ timeoutMs: 15_000 });
  assertEquals((await client.health()).serving, false);
  using other = connectWorker(server.addr, { token: "", timeoutMs: 5_000 });
  const refused = await failure(() => other.call("wait", {}));
  assertEquals(refused.code, Code.Unavailable, refused.message);
  assertEquals(arrived, 1);
  release();
  assertEquals((await within(5_000, call)).get("x")?.item(0), 5);
  client.close();
  other.close();
  assertEquals(await within(10_000, drained), { drained: 1, cut: 0 });
});

Deno.test("WorkerServer.drain() cuts a call still running after its grace with unavailable", async () => {
  const server = await serveWorker({ handler: testHandler, token: "" });
  using client = connectWorker(server.addr, { token: "", timeoutMs: 20_000 });
  const call = client.call("hang", {});
  call.catch(() => {});
  await eventually(async () => (await client.health()).callsInFlight === 1);
  assertEquals(
    await within(10_000, server.drain({ timeoutMs: 50 })),
    { drained: 0, cut: 1 },
  );
  const cut = await failure(() => call);
  assertEquals(cut.code, Code.Unavailable, cut.message);
});
