// What serveWorker() lets one call hold, with real calls on 127.0.0.1: a
// call over --max-calls is refused at once (not queued), saying why, and
// the next is served once one ends; a call whose tensors exceed
// --max-call-bytes is refused at the first tensor header, before its
// bytes are sent; a worker that knows its endpoints' inputs refuses a
// tensor of another dtype, shape or name, a missing tensor and another
// endpoint, each with a message naming the tensor and what was expected,
// before its handler runs. Every wait is bounded.

import { assert, assertEquals } from "@std/assert";
import { create } from "@bufbuild/protobuf";
import { Code, createClient } from "@connectrpc/connect";
import {
  createConnectTransport,
  Http2SessionManager,
} from "@connectrpc/connect-node";
import { VarDescSchema } from "../../../gen/rill/v1/framework_pb.ts";
import {
  type CallRequest,
  CallRequestSchema,
  WorkerService,
} from "../../../gen/rill/v1/rpc_pb.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import { connectWorker } from "../../../runtime/cluster/worker_client.ts";
import { WorkerCallError } from "../../../runtime/cluster/worker_call_error.ts";
import { WorkerInputs } from "../../../runtime/cluster/worker_inputs.ts";
import { serveWorker } from "../../../runtime/cluster/worker_server.ts";
import { within } from "../../_helpers/within.ts";

/** The error `call` fails with, within 5 s; throws if it succeeds. */
async function refusal(call: () => Promise<unknown>): Promise<WorkerCallError> {
  const error = await within(5_000, call().then(() => undefined, (e) => e));
  if (!(error instanceof WorkerCallError)) {
    throw new Error(`not refused as a WorkerCallError: ${error}`);
  }
  return error;
}

Deno.test("serveWorker() refuses a call over --max-calls at once, and serves the next once one ends", async () => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => release = resolve);
  await using server = await serveWorker({
    token: "",
    limits: { maxCalls: 2 },
    handler: async (_endpoint, tensors) => {
      await released;
      return tensors;
    },
  });
  using client = connectWorker(server.addr, { token: "", timeoutMs: 10_000 });
  const x = { x: Tensor.scalar(5, "int32") };
  const first = [client.call("wait", x), client.call("wait", x)];
  for (let i = 0; i < 200 && (await client.health()).callsInFlight < 2; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assertEquals((await client.health()).callsInFlight, 2);
  const e = await refusal(() => client.call("wait", x));
  assertEquals([e.code, e.limit], [Code.ResourceExhausted, "max-calls"]);
  assertEquals(
    e.detail,
    "the worker is serving as many calls as it may (--max-calls 2)",
  );
  release();
  for (const reply of await within(5_000, Promise.all(first))) {
    assertEquals(reply.get("x")?.item(0), 5);
  }
  assertEquals((await client.call("wait", x)).get("x")?.item(0), 5);
});

Deno.test("serveWorker() refuses a call over --max-call-bytes at its tensor header, before its bytes are sent", async () => {
  await using server = await serveWorker({
    token: "",
    limits: { maxCallBytes: 1 << 20 },
    handler: (_endpoint, tensors) => tensors,
  });
  // A float32 tensor of 1 GiB, announced in the first message; its bytes
  // would follow 1 MiB a message, from one reused buffer.
  const chunk = new Uint8Array(1 << 20);
  const messages = 1024;
  let pulled = 0;
  async function* requests(): AsyncGenerator<CallRequest> {
    yield create(CallRequestSchema, {
      header: { requestId: 1n, endpoint: "echo" },
      parts: [{ header: { name: "big", dtype: 5, dims: [1n << 28n] } }],
    });
    for (pulled = 0; pulled < messages; pulled++) {
      yield create(CallRequestSchema, { parts: [{ data: chunk }] });
    }
  }
  const sessionManager = new Http2SessionManager(`http://${server.addr}`);
  try {
    const client = createClient(
      WorkerService,
      createConnectTransport({
        baseUrl: `http://${server.addr}`,
        httpVersion: "2",
        sessionManager,
      }),
    );
    const e = await refusal(async () => {
      try {
        for await (const _ of client.call(requests(), { timeoutMs: 10_000 })) {
          // the acknowledgement never comes
        }
      } catch (error) {
        throw WorkerCallError.from(error, {
          addr: server.addr,
          endpoint: "echo",
          timeoutMs: 10_000,
        });
      }
    });
    assertEquals([e.code, e.limit], [Code.ResourceExhausted, "max-call-bytes"]);
    assertEquals(
      e.detail,
      'tensor "big": 1073741888 bytes with the tensors before it exceed the ' +
        "limit by 1072693312 (--max-call-bytes 1MiB)",
    );
    // At most the flow-control windows' worth (16 MiB) went out.
    assert(pulled < 64, `${pulled} MiB of 1024 were sent`);
  } finally {
    sessionManager.abort();
  }
});

Deno.test("serveWorker() with its endpoints' inputs refuses other tensors and endpoints, naming what was expected", async () => {
  let ran = 0;
  const x = create(VarDescSchema, {
    name: "x",
    type: { type: 7, lodTensor: { tensor: { dataType: 5, dims: [-1n, 2n] } } },
  });
  await using server = await serveWorker({
    token: "",
    inputs: new WorkerInputs([["listen_and_do", [{
      tensor: "input",
      variable: x,
    }]]]),
    handler: (_endpoint, tensors) => {
      ran++;
      return { output: tensors.get("input")! };
    },
  });
  using client = connectWorker(server.addr, { token: "", timeoutMs: 5_000 });
  const declared = 'variable "x" is declared float32 [-1, 2]';
  const cases: [string, string, Record<string, Tensor>, Code, string][] = [
    [
      "int64",
      "listen_and_do",
      {
        input: Tensor.zeros([3, 2], "int64"),
      },
      Code.InvalidArgument,
      `tensor "input": ${declared}, the call sends int64 [3, 2]`,
    ],
    [
      "bool",
      "listen_and_do",
      {
        input: Tensor.zeros([3, 2], "bool"),
      },
      Code.InvalidArgument,
      `tensor "input": ${declared}, the call sends bool [3, 2]`,
    ],
    [
      "float64",
      "listen_and_do",
      {
        input: Tensor.zeros([3, 2], "float64"),
      },
      Code.InvalidArgument,
      `tensor "input": ${declared}, the call sends float64 [3, 2]`,
    ],
    [
      "rank",
      "listen_and_do",
      {
        input: Tensor.zeros([6], "float32"),
      },
      Code.InvalidArgument,
      `tensor "input": ${declared}, the call sends float32 [6]`,
    ],
    [
      "name",
      "listen_and_do",
      {
        img: Tensor.zeros([3, 2], "float32"),
      },
      Code.InvalidArgument,
      'tensor "img": endpoint "listen_and_do" takes only "input"',
    ],
    [
      "missing",
      "listen_and_do",
      {},
      Code.InvalidArgument,
      'tensor "input": the call does not send it (variable "x", float32 [-1, 2])',
    ],
    [
      "endpoint",
      "echo",
      {
        input: Tensor.zeros([3, 2], "float32"),
      },
      Code.NotFound,
      'endpoint "echo": the worker serves only "listen_and_do"',
    ],
  ];
  for (const [what, endpoint, tensors, code, detail] of cases) {
    const e = await refusal(() => client.call(endpoint, tensors));
    assertEquals([e.code, e.detail], [code, detail], what);
  }
  assertEquals(ran, 0);
  const ok = Tensor.fromArray([[1, 2], [3, 4], [5, 6]], "float32");
  const reply = await client.call("listen_and_do", { input: ok });
  assertEquals(reply.get("output")?.toNested(), [[1, 2], [3, 4], [5, 6]]);
  assertEquals(ran, 1);
});
