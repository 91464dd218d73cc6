// Tensors to parts and back: every dtype, chunking, when decoding views the
// received bytes and when it copies, and each way a stream is refused.

import {
  assert,
  assertEquals,
  assertNotStrictEquals,
  assertStrictEquals,
  assertThrows,
} from "@std/assert";
import { Buffer } from "node:buffer";
import { create } from "@bufbuild/protobuf";
import {
  type TensorPart,
  TensorPartSchema,
} from "../../../gen/rill/v1/rpc_pb.ts";
import { DTYPES } from "../../../kernels/dtype.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import {
  encodeTensorParts,
  namedTensorEntries,
  TensorAssembler,
  type TensorAssemblerOptions,
  TensorStreamError,
} from "../../../runtime/cluster/tensor_parts.ts";

/** Sample values that every dtype holds exactly. */
function sample(dtype: (typeof DTYPES)[number], n: number): Tensor {
  const values = Array.from({ length: n }, (_, i) => (i % 2) * (i % 7));
  return Tensor.fromArray(values, dtype, [n]);
}

function roundTrip(
  entries: [string, Tensor][],
  chunkBytes = 1024,
): Map<string, Tensor> {
  const assembler = new TensorAssembler();
  for (const parts of encodeTensorParts(entries, { chunkBytes })) {
    for (const part of parts) assembler.push(part);
  }
  return assembler.finish();
}

/** A part as a peer would send it. */
function part(
  data: number[] | Uint8Array,
  header?: { name: string; dtype: number; dims: bigint[] },
): TensorPart {
  return create(TensorPartSchema, {
    header,
    data: data instanceof Uint8Array ? data : new Uint8Array(data),
  });
}

function refused(
  parts: TensorPart[],
  options?: TensorAssemblerOptions,
): TensorStreamError {
  return assertThrows(() => {
    const assembler = new TensorAssembler(options);
    for (const p of parts) assembler.push(p);
    assembler.finish();
  }, TensorStreamError);
}

// --- round trips

Deno.test("encodeTensorParts() and TensorAssembler round-trip every dtype, in order", () => {
  const entries = DTYPES.map((dtype): [string, Tensor] => [
    dtype,
    sample(dtype, 300),
  ]);
  entries.push(["empty", Tensor.zeros([0, 3], "float32")]);
  entries.push(["rank0", Tensor.fromArray([5], "int64", [])]);
  const got = roundTrip(entries);
  assertEquals([...got.keys()], entries.map(([name]) => name));
  for (const [name, tensor] of entries) {
    const back = got.get(name)!;
    assertEquals(back.dtype, tensor.dtype);
    assertEquals(back.shape, tensor.shape);
    assertEquals(back.toNested(), tensor.toNested());
  }
});

Deno.test("encodeTensorParts() keeps every message within chunkBytes", () => {
  const big = Tensor.zeros([10_000], "float64");
  const smalls = Array.from(
    { length: 50 },
    (_, i): [string, Tensor] => [`s${i}`, Tensor.scalar(i, "int32")],
  );
  const messages = [
    ...encodeTensorParts([...smalls, ["big", big]], { chunkBytes: 4096 }),
  ];
  for (const parts of messages) {
    const bytes = parts.reduce((n, p) => n + p.data.length, 0);
    assert(bytes <= 4096, `${bytes} data bytes in one message`);
  }
  // The small tensors share the first message.
  assertEquals(messages[0].filter((p) => p.header).length >= 50, true);
  assertEquals(roundTrip([...smalls, ["big", big]], 4096).size, 51);
});

Deno.test("encodeTensorParts() sends views of the tensors' storage", () => {
  const t = Tensor.zeros([2048], "float32");
  const [[first]] = encodeTensorParts([["t", t]], { chunkBytes: 1 << 20 });
  assertStrictEquals(first.data.buffer, t.data.buffer);
});

Deno.test("encodeTensorParts() rejects a chunkBytes below 1024", () => {
  assertThrows(
    () => [...encodeTensorParts([], { chunkBytes: 100 })],
    RangeError,
  );
});

Deno.test("namedTensorEntries() rejects an empty name and a non-tensor", () => {
  assertThrows(
    () => namedTensorEntries({ "": Tensor.scalar(1, "int32") }),
    TypeError,
  );
  assertThrows(() => namedTensorEntries({ x: 1 as never }), TypeError);
});

// --- zero copy

Deno.test("TensorAssembler views an aligned single-part tensor in place", () => {
  const message = new Uint8Array(4096 + 8);
  const data = message.subarray(8, 8 + 4096); // aligned for float64
  const assembler = new TensorAssembler();
  assembler.push(part(data, { name: "x", dtype: 6, dims: [512n] }));
  const x = assembler.finish().get("x")!;
  assertStrictEquals(x.data.buffer, message.buffer);
  assertEquals(x.data.byteOffset, 8);
});

Deno.test("TensorAssembler copies an unaligned tensor and one that is a small part of its message", () => {
  const message = new Uint8Array(4096 + 3);
  const assembler = new TensorAssembler();
  assembler.push(
    part(message.subarray(3), { name: "odd", dtype: 5, dims: [1024n] }),
  );
  assembler.push(part(new Uint8Array(4096).subarray(0, 8), {
    name: "small",
    dtype: 3,
    dims: [1n],
  }));
  const got = assembler.finish();
  assertNotStrictEquals(got.get("odd")!.data.buffer, message.buffer);
  assertEquals(got.get("odd")!.data.byteOffset % 4, 0);
  assertEquals(got.get("small")!.data.buffer.byteLength < 4096, true);
});

Deno.test("TensorAssembler copies an unaligned Node.js Buffer (whose slice() is a view)", () => {
  const message = Buffer.alloc(4096 + 3);
  message.writeFloatLE(1.5, 3);
  const assembler = new TensorAssembler();
  assembler.push(
    part(message.subarray(3), { name: "x", dtype: 5, dims: [1024n] }),
  );
  const x = assembler.finish().get("x")!;
  assertEquals(x.data.byteOffset % 4, 0);
  assertEquals(x.item(0), 1.5);
});

// --- refusals

Deno.test("TensorAssembler refuses bytes before any header", () => {
  assertEquals(refused([part([1, 2])]).problem, "malformed");
});

Deno.test("TensorAssembler refuses a duplicate, an empty name, a non-element dtype, a negative dim and a huge rank", () => {
  const h = (name: string, dtype = 5, dims = [1n]) => ({ name, dtype, dims });
  const cases: [TensorPart[], string | undefined][] = [
    [[part([0, 0, 0, 0], h("a")), part([0, 0, 0, 0], h("a"))], "a"],
    [[part([], h(""))], undefined],
    [[part([], h("c", 16))], "c"], // CHANNEL
    [[part([], h("d", 5, [-1n]))], "d"],
    [[part([], h("e", 5, Array(65).fill(1n)))], "e"],
  ];
  for (const [parts, tensor] of cases) {
    const e = refused(parts);
    assertEquals(e.problem, "malformed", e.message);
    assertEquals(e.tensor, tensor);
  }
});

Deno.test("TensorAssembler refuses too many or too few bytes for the shape", () => {
  const h = { name: "x", dtype: 2, dims: [2n] }; // int32 [2]: 8 bytes
  assertEquals(refused([part(new Uint8Array(12), h)]).problem, "malformed");
  assertEquals(refused([part(new Uint8Array(4), h)]).tensor, "x");
  // Short, then the next tensor starts.
  const next = { name: "y", dtype: 2, dims: [0n] };
  assertEquals(
    refused([part(new Uint8Array(4), h), part([], next)]).tensor,
    "x",
  );
});

Deno.test("TensorAssembler refuses a bool element other than 0 and 1", () => {
  const e = refused([part([0, 1, 2], { name: "b", dtype: 0, dims: [3n] })]);
  assertEquals([e.problem, e.tensor], ["malformed", "b"]);
});

Deno.test("TensorAssembler refuses a tensor over the budget before allocating it", () => {
  // 2^60 float32 elements would be 4 EiB: refused from the header alone.
  const huge = { name: "huge", dtype: 5, dims: [1n << 30n, 1n << 30n] };
  assertEquals(refused([part([], huge)]).problem, "too_large");
  // The budget is for the whole stream.
  const h = (name: string) => ({ name, dtype: 20, dims: [1000n] });
  const e = refused(
    [part(new Uint8Array(1000), h("a")), part(new Uint8Array(1000), h("b"))],
    { maxBytes: 1500 },
  );
  assertEquals([e.problem, e.tensor], ["too_large", "b"]);
});
