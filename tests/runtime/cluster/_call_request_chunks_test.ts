// callRequestChunks() writes the very bytes protobuf-es and Connect's
// envelope write, for every shape of request message, and passes large
// tensor data through as the message's own view.

import { assert, assertEquals } from "@std/assert";
import { create, toBinary } from "@bufbuild/protobuf";
import { encodeEnvelope } from "@connectrpc/connect/protocol";
import {
  type CallRequest,
  CallRequestSchema,
} from "../../../gen/rill/v1/rpc_pb.ts";
import { callRequestChunks } from "../../../runtime/cluster/_call_request_chunks.ts";

function joined(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function bytes(n: number, seed: number): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);
}

const MESSAGES: [string, CallRequest][] = [
  ["an empty message", create(CallRequestSchema)],
  [
    "a call header alone",
    create(CallRequestSchema, {
      header: { requestId: 300n, endpoint: "listen_and_do", program: "ab12" },
    }),
  ],
  [
    "a header part with small data",
    create(CallRequestSchema, {
      header: { requestId: 1n, endpoint: "e" },
      parts: [{
        header: { name: "x", dtype: 5, dims: [2n, 3n] },
        data: bytes(24, 1),
      }],
    }),
  ],
  [
    "an empty tensor and a part of no data",
    create(CallRequestSchema, {
      parts: [
        { header: { name: "empty", dtype: 5, dims: [0n] } },
        { data: new Uint8Array(0) },
      ],
    }),
  ],
  [
    "large parts whose lengths take 3 and 4 varint bytes",
    create(CallRequestSchema, {
      parts: [
        {
          header: { name: "big", dtype: 2, dims: [40000n] },
          data: bytes(20000, 2),
        },
        { data: bytes(3 << 20, 3) },
      ],
    }),
  ],
  [
    "many small tensors packed in one message",
    create(CallRequestSchema, {
      parts: Array.from({ length: 50 }, (_, i) => ({
        header: { name: `t${i}`, dtype: 20, dims: [BigInt(i)] },
        data: bytes(i, i),
      })),
    }),
  ],
];

for (const [what, message] of MESSAGES) {
  Deno.test(`callRequestChunks() writes Connect's envelope of ${what}`, () => {
    const want = encodeEnvelope(0, toBinary(CallRequestSchema, message));
    assertEquals(joined(callRequestChunks(message)), want);
  });
}

Deno.test("callRequestChunks() passes large data as the part's own view", () => {
  const data = bytes(1 << 20, 4).subarray(8);
  const chunks = callRequestChunks(
    create(CallRequestSchema, { parts: [{ data }] }),
  );
  assert(chunks.some((c) => c === data));
  assertEquals(chunks.length, 2);
});
