// callTransport() against a real worker server on 127.0.0.1: a Call whose
// request it frames itself carries tensors both ways, several messages
// each way; the server's end-of-stream error reaches the caller with its
// code; the bearer token goes through the interceptors; and the unary
// Health goes through Connect's own transport.

import { assertEquals, assertRejects } from "@std/assert";
import { create } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createClient,
  type Interceptor,
} from "@connectrpc/connect";
import { Http2SessionManager } from "@connectrpc/connect-node";
import {
  type CallRequest,
  CallRequestSchema,
  WorkerService,
} from "../../../gen/rill/v1/rpc_pb.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import { callTransport } from "../../../runtime/cluster/_call_transport.ts";
import {
  encodeTensorParts,
  TensorAssembler,
} from "../../../runtime/cluster/tensor_parts.ts";
import { serveWorker } from "../../../runtime/cluster/worker_server.ts";
import { within } from "../../_helpers/within.ts";

const TOKEN = "s3cret";

/** A client of `addr` over callTransport, sending the token. */
function clientOf(addr: string) {
  const baseUrl = `http://${addr}`;
  const sessionManager = new Http2SessionManager(baseUrl);
  const bearer: Interceptor = (next) => (req) => {
    req.header.set("authorization", `Bearer ${TOKEN}`);
    return next(req);
  };
  const transport = callTransport({
    baseUrl,
    sessionManager,
    interceptors: [bearer],
    readMaxBytes: 1 << 20,
  });
  return { client: createClient(WorkerService, transport), sessionManager };
}

/** A call's request messages: the header, then `x` cut in 64 KiB messages. */
async function* requests(x: Tensor): AsyncGenerator<CallRequest> {
  let header: CallRequest["header"] = create(CallRequestSchema, {
    header: { requestId: 9n, endpoint: "echo" },
  }).header;
  for (const parts of encodeTensorParts([["x", x]], { chunkBytes: 1 << 16 })) {
    yield create(CallRequestSchema, { header, parts });
    header = undefined;
  }
}

Deno.test("callTransport() runs a Call whose request it frames, tensors both ways in many messages", async () => {
  await using server = await serveWorker({
    token: TOKEN,
    handler: (_endpoint, tensors) => tensors,
    chunkBytes: 1 << 16,
  });
  const { client, sessionManager } = clientOf(server.addr);
  try {
    const x = Tensor.fromArray(
      Array.from({ length: 100_000 }, (_, i) => i - 5),
      "int32",
    );
    const assembler = new TensorAssembler();
    let acknowledged = 0n;
    await within(
      20_000,
      (async () => {
        for await (const reply of client.call(requests(x))) {
          if (reply.requestId !== 0n) acknowledged = reply.requestId;
          for (const part of reply.parts) assembler.push(part);
        }
      })(),
    );
    assertEquals(acknowledged, 9n);
    assertEquals(assembler.finish().get("x")?.data, x.data);
    // Connect's own transport, for the unary method.
    assertEquals((await client.health({})).serving, true);
  } finally {
    sessionManager.abort();
  }
});

Deno.test("callTransport() passes the server's end-of-stream error with its code", async () => {
  await using server = await serveWorker({
    token: TOKEN,
    handler: () => {
      throw new ConnectError("no such thing", Code.NotFound);
    },
  });
  const { client, sessionManager } = clientOf(server.addr);
  try {
    const e = await within<ConnectError>(
      20_000,
      assertRejects(async () => {
        for await (
          const _ of client.call(requests(Tensor.scalar(1, "int32")))
        ) {
          // drain
        }
      }, ConnectError),
    );
    assertEquals([e.code, e.rawMessage], [Code.NotFound, "no such thing"]);
  } finally {
    sessionManager.abort();
  }
});
