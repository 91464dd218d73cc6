// Calling workers for real on 127.0.0.1: round trips in this process and to
// a worker process, deadlines, a worker killed mid-call, a silent peer given
// up by keepalive, an unreachable worker, both protocols, and the limits a client puts on replies. Every
// wait is bounded by a deadline and by within().

import { assert, assertEquals, assertRejects } from "@std/assert";
import { Code } from "@connectrpc/connect";
import { Tensor } from "../../../kernels/tensor.ts";
import { connectWorker } from "../../../runtime/cluster/worker_client.ts";
import { WorkerCallError } from "../../../runtime/cluster/worker_call_error.ts";
import {
  serveWorker,
  type WorkerHandler,
} from "../../../runtime/cluster/worker_server.ts";
import { within } from "../../_helpers/within.ts";
import { testHandler } from "./_test_worker.ts";
import { startWorkerProcess } from "./_worker_process.ts";

/** Tensors of several dtypes, one of 5 MiB (more than a message may hold). */
function mixedTensors(): Map<string, Tensor> {
  const n = (5 << 20) / 4;
  const big = new Float32Array(n);
  for (let i = 0; i < n; i++) big[i] = i * 0.5 - 7;
  return new Map([
    ["big", new Tensor("float32", [n / 1024, 1024], big)],
    ["ids", Tensor.fromArray([[1n, -2n], [3n, 1n << 62n]], "int64")],
    ["mask", Tensor.fromArray([true, false, true], "bool")],
    ["half", Tensor.fromArray([0.5, -2, 65504], "float16")],
    ["bytes", Tensor.fromArray([0, 255, 7], "uint8")],
    ["scalar", Tensor.scalar(3.25, "float64")],
    ["empty", Tensor.zeros([0], "int32")],
  ]);
}

function assertSameTensors(
  got: Map<string, Tensor>,
  want: Map<string, Tensor>,
): void {
  assertEquals([...got.keys()], [...want.keys()]);
  for (const [name, tensor] of want) {
    const back = got.get(name)!;
    assertEquals([back.dtype, back.shape], [tensor.dtype, tensor.shape], name);
    assertEquals(back.data, tensor.data, name);
  }
}

/** The error `fn` rejects with, within `ms`. */
function failure(
  fn: () => Promise<unknown>,
  ms = 5_000,
): Promise<WorkerCallError> {
  return within<WorkerCallError>(ms, assertRejects(fn, WorkerCallError));
}

const echo: WorkerHandler = (_endpoint, tensors) => tensors;

Deno.test("WorkerClient.call() round-trips tensors of every kind, a 5 MiB one in chunks", async () => {
  // A 1.5 MiB message limit on both sides: the big tensor must be cut.
  const limit = 3 << 19;
  await using server = await serveWorker({
    handler: echo,
    token: "",
    readMaxBytes: limit,
  });
  using client = connectWorker(server.addr, {
    token: "",
    readMaxBytes: limit,
    timeoutMs: 20_000,
  });
  const want = mixedTensors();
  assertSameTensors(await client.call("echo", want), want);
  assertSameTensors(await client.call("echo", want), want); // same connection
});

Deno.test("WorkerClient.call() speaks gRPC as well as Connect", async () => {
  await using server = await serveWorker({ handler: echo, token: "" });
  using client = connectWorker(server.addr, {
    token: "",
    protocol: "grpc",
    timeoutMs: 20_000,
  });
  const want = mixedTensors();
  assertSameTensors(await client.call("echo", want), want);
  assertEquals((await client.health()).serving, true);
});

Deno.test("WorkerClient.call() round-trips with a worker process, its token from RILL_TOKEN", async () => {
  await using worker = await startWorkerProcess({ RILL_TOKEN: "t0k3n" });
  using client = connectWorker(worker.addr, {
    env: { RILL_TOKEN: "t0k3n" },
    timeoutMs: 20_000,
  });
  const want = mixedTensors();
  assertSameTensors(await client.call("echo", want), want);
  using stranger = connectWorker(worker.addr, { token: "", timeoutMs: 5_000 });
  const e = await failure(() => stranger.health());
  assertEquals(e.code, Code.Unauthenticated);
});

Deno.test("WorkerClient.call() fails within a bounded time when the worker process is killed mid-call", async () => {
  await using worker = await startWorkerProcess();
  using client = connectWorker(worker.addr, { token: "", timeoutMs: 30_000 });
  const call = client.call("hang", { x: Tensor.scalar(1, "int32") });
  call.catch(() => {}); // observed below
  for (let i = 0; i < 200 && (await client.health()).callsInFlight === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await worker.kill();
  // Unavailable, not deadline_exceeded: the call ended because its
  // connection did, not at its 30 s deadline.
  const e = await failure(() => call, 5_000);
  assertEquals(e.code, Code.Unavailable, e.message);
  assertEquals(e.addr, worker.addr);
  assert(!e.message.includes("\n"), e.message);
  assert(
    e.message.startsWith(`worker ${worker.addr}: call "hang": unavailable: `),
  );
  // Later calls fail at once too: nothing listens any more.
  const again = await failure(() => client.health(), 5_000);
  assertEquals(again.code, Code.Unavailable);
});

Deno.test("WorkerClient.call() ends at its deadline with deadline_exceeded, and the handler sees it", async () => {
  let handlerSignal: AbortSignal | undefined;
  await using server = await serveWorker({
    handler: (endpoint, tensors, context) => {
      handlerSignal = context.signal;
      return testHandler(endpoint, tensors, context);
    },
    token: "",
  });
  using client = connectWorker(server.addr, { token: "", timeoutMs: 20_000 });
  const t0 = performance.now();
  const e = await failure(
    () => client.call("hang", {}, { timeoutMs: 300 }),
    5_000,
  );
  assert(performance.now() - t0 >= 290);
  assertEquals(e.code, Code.DeadlineExceeded);
  assertEquals(e.detail, "no reply within 300 ms");
  for (let i = 0; i < 200 && !handlerSignal?.aborted; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert(handlerSignal?.aborted, "the handler's signal was not aborted");
});

Deno.test("WorkerClient.call() fails with unavailable when nothing listens", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const addr = `127.0.0.1:${listener.addr.port}`;
  listener.close();
  using client = connectWorker(addr, { token: "", timeoutMs: 5_000 });
  const e = await failure(() => client.call("echo", {}), 5_000);
  assertEquals([e.code, e.endpoint], [Code.Unavailable, "echo"]);
});

Deno.test("WorkerClient.call() refuses a reply over maxReplyBytes", async () => {
  await using server = await serveWorker({ handler: echo, token: "" });
  using client = connectWorker(server.addr, {
    token: "",
    maxReplyBytes: 1 << 20,
    timeoutMs: 20_000,
  });
  const e = await failure(
    () => client.call("echo", { x: Tensor.zeros([1 << 19], "float32") }),
  );
  assertEquals(e.code, Code.ResourceExhausted);
  assert(e.detail.startsWith('reply: tensor "x"'), e.detail);
});

Deno.test("WorkerClient.close() cancels calls in flight", async () => {
  await using server = await serveWorker({ handler: testHandler, token: "" });
  const client = connectWorker(server.addr, { token: "", timeoutMs: 20_000 });
  const call = client.call("hang", {});
  call.catch(() => {});
  await client.health(); // the connection is up
  client.close();
  const e = await failure(() => call, 5_000);
  assertEquals(e.code, Code.Canceled, e.message);
});

Deno.test("WorkerClient.call() has no deadline of its own: a peer that accepts and never answers is given up by keepalive, unavailable", async () => {
  // A TCP server that takes the connection and every byte, and never
  // writes: as a stopped worker's kernel does.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const serving = (async () => {
    for await (const conn of listener) {
      held.push(conn);
      conn.readable.pipeTo(new WritableStream()).catch(() => {});
    }
  })();
  try {
    using client = connectWorker(`127.0.0.1:${listener.addr.port}`, {
      token: "",
      keepaliveMs: 400,
    });
    const e: WorkerCallError = await within(
      20_000,
      assertRejects(() => client.call("echo", {}), WorkerCallError),
    );
    assertEquals(e.code, Code.Unavailable);
    assert(e.detail.includes("PING"), e.message);
  } finally {
    listener.close();
    for (const conn of held) {
      try {
        conn.close();
      } catch {
        // closed already
      }
    }
    await serving.catch(() => {});
  }
});
