// A worker's connections held to its limits, with real sockets on
// 127.0.0.1 (and 127.0.0.2 as a second client): a connection that never
// sends its HTTP/2 preface, plain or TLS, is closed after --read-timeout;
// one that sends a preface, or half a header block, and no request is
// closed after --idle-timeout, and Connect's client reconnects; a client
// over --max-conns-per-client is refused, saying why, while another client
// is served; a connection over --max-conns is refused. Every wait is
// bounded, and every socket closed.

import * as http2 from "node:http2";
import type * as net from "node:net";
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { Code } from "@connectrpc/connect";
import { Tensor } from "../../../kernels/tensor.ts";
import { connectWorker } from "../../../runtime/cluster/worker_client.ts";
import { WorkerCallError } from "../../../runtime/cluster/worker_call_error.ts";
import { serveWorker } from "../../../runtime/cluster/worker_server.ts";
import {
  CLIENT_PREFACE,
  clientFrom,
  closedByServer,
  tcpFrom,
} from "./_raw_clients.ts";
import { makeTestTls } from "./_test_tls.ts";
import { testHandler } from "./_test_worker.ts";
import { within } from "../../_helpers/within.ts";

/** What `call` fails with, as a client sees it; throws if it succeeds. */
async function refusal(
  addr: string,
  call: () => Promise<unknown>,
): Promise<WorkerCallError> {
  const error = await within(5_000, call().then(() => undefined, (e) => e));
  if (error === undefined) throw new Error("served, not refused");
  return WorkerCallError.from(error, { addr, timeoutMs: 5_000 });
}

/** Closes every socket, whatever state it is in. */
function destroyAll(sockets: readonly net.Socket[]): void {
  for (const socket of sockets) socket.destroy();
}

Deno.test("serveWorker() closes a connection that sends no preface after --read-timeout, plain or TLS", async () => {
  const tls = await makeTestTls();
  for (const useTls of [false, true]) {
    await using server = await serveWorker({
      handler: testHandler,
      token: "",
      limits: { readTimeoutMs: 300 },
      tls: useTls ? { cert: tls.certPem, key: tls.keyPem } : undefined,
    });
    // From before the dial: the server's deadline starts when it accepts,
    // which can be well before a loaded client hears that it connected.
    const t0 = performance.now();
    const socket = await tcpFrom(server.addr, "127.0.0.1");
    try {
      await closedByServer(socket, 5_000);
      const ms = performance.now() - t0;
      assert(ms >= 250, `closed after ${ms} ms, before the deadline`);
    } finally {
      socket.destroy();
    }
  }
});

Deno.test("serveWorker() closes a connection with no request after --idle-timeout, even one halfway through a header block", async () => {
  await using server = await serveWorker({
    handler: testHandler,
    token: "",
    limits: { idleTimeoutMs: 300 },
  });
  // A HEADERS frame of stream 1 without END_HEADERS: the rest never comes.
  const halfHeaders = new Uint8Array([0, 0, 1, 1, 0, 0, 0, 0, 1, 0x83]);
  for (const bytes of [CLIENT_PREFACE, [...CLIENT_PREFACE, ...halfHeaders]]) {
    const socket = await tcpFrom(server.addr, "127.0.0.1");
    try {
      socket.write(new Uint8Array(bytes));
      const t0 = performance.now();
      await closedByServer(socket, 5_000);
      const ms = performance.now() - t0;
      assert(ms >= 250, `closed after ${ms} ms, before the deadline`);
    } finally {
      socket.destroy();
    }
  }
  // Connect's client takes the GOAWAY and opens a new connection.
  using client = connectWorker(server.addr, { token: "", timeoutMs: 5_000 });
  const x = { x: Tensor.scalar(3, "int32") };
  assertEquals((await client.call("echo", x)).get("x")?.item(0), 3);
  await new Promise((resolve) => setTimeout(resolve, 600));
  assertEquals((await client.call("echo", x)).get("x")?.item(0), 3);
});

Deno.test("serveWorker() over TLS closes an idle connection after --idle-timeout too", async () => {
  const tls = await makeTestTls();
  await using server = await serveWorker({
    handler: testHandler,
    token: "",
    limits: { idleTimeoutMs: 300 },
    tls: { cert: tls.certPem, key: tls.keyPem },
  });
  const session = http2.connect(`https://${server.addr}`, { ca: tls.caPem });
  session.on("error", () => {});
  try {
    const t0 = performance.now();
    await within(
      5_000,
      new Promise<void>((resolve) => session.once("close", () => resolve())),
    );
    const ms = performance.now() - t0;
    assert(ms >= 250, `closed after ${ms} ms, before the deadline`);
  } finally {
    session.destroy();
  }
});

Deno.test("serveWorker() refuses a client over --max-conns-per-client, saying why, and serves another client", async () => {
  await using server = await serveWorker({
    handler: testHandler,
    token: "",
    limits: { maxConnsPerClient: 2 },
  });
  const held = [
    await tcpFrom(server.addr, "127.0.0.2"),
    await tcpFrom(server.addr, "127.0.0.2"),
  ];
  try {
    {
      using third = clientFrom(server.addr, "127.0.0.2");
      const e = await refusal(
        server.addr,
        () => third.client.health({}, { timeoutMs: 5_000 }),
      );
      assertEquals([e.code, e.limit], [
        Code.ResourceExhausted,
        "max-conns-per-client",
      ]);
      assertStringIncludes(e.detail, "127.0.0.2 holds as many connections");
      assertStringIncludes(e.detail, "(--max-conns-per-client 2)");
    }
    // Another address is another client.
    using other = connectWorker(server.addr, { token: "", timeoutMs: 5_000 });
    assertEquals((await other.health()).serving, true);
    // A connection let go makes room, once the server has seen it close.
    held[0].destroy();
    let served = false;
    for (let i = 0; i < 200 && !served; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      using again = clientFrom(server.addr, "127.0.0.2");
      served = await again.client.health({}, { timeoutMs: 5_000 }).then(
        (h) => h.serving,
        () => false,
      );
    }
    assert(served, "no room within 2 s of a connection closing");
  } finally {
    destroyAll(held);
  }
});

Deno.test("serveWorker() refuses a connection over --max-conns", async () => {
  await using server = await serveWorker({
    handler: testHandler,
    token: "",
    limits: { maxConns: 2 },
  });
  const held = [
    await tcpFrom(server.addr, "127.0.0.1"),
    await tcpFrom(server.addr, "127.0.0.2"),
  ];
  try {
    using client = connectWorker(server.addr, { token: "", timeoutMs: 5_000 });
    const e = await refusal(server.addr, () => client.health());
    assertEquals([e.code, e.limit], [Code.ResourceExhausted, "max-conns"]);
    assertEquals(
      e.detail,
      "the worker holds as many connections as it may (--max-conns 2)",
    );
  } finally {
    destroyAll(held);
  }
});
