/**
 * A `CallRequest` (proto/rill/v1/rpc.proto) as the bytes of one Connect
 * envelope, written as a few chunks: small ones for the envelope's prefix,
 * the tags, the lengths and the headers, and each large tensor part's data
 * as the very view the message holds, not a copy.
 *
 * Why: protobuf-es writes a message into a buffer of its own and copies
 * that once more (`toBinary`), and Connect copies the result into the
 * envelope: three copies of every tensor byte on the way out, each into
 * fresh memory, which is what a 64 MiB round trip spent its time on
 * (bench/README.md). Written here, the bytes are the same as
 * `encodeEnvelope(0, toBinary(CallRequestSchema, message))`
 * (tests/runtime/cluster/_call_request_chunks_test.ts checks it), and the
 * data of a large part reaches the HTTP/2 stream uncopied.
 *
 * Precondition: the message is proto3 `CallRequest` with no unknown fields
 * (what this project's client makes).
 *
 * @module
 */

import { toBinary } from "@bufbuild/protobuf";
import {
  CallHeaderSchema,
  type CallRequest,
  TensorHeaderSchema,
} from "../../gen/rill/v1/rpc_pb.ts";

/**
 * Data of a part at least this long travels as its own chunk; shorter data
 * is copied in with the tags around it (a chunk costs more than copying a
 * few KiB).
 */
const OWN_CHUNK_BYTES = 16 << 10;

// Tags of the length-delimited fields: (field number << 3) | 2.
const TAG_CALL_HEADER = 0x0a; // CallRequest.header = 1
const TAG_PARTS = 0x12; // CallRequest.parts = 2
const TAG_PART_HEADER = 0x0a; // TensorPart.header = 1
const TAG_PART_DATA = 0x12; // TensorPart.data = 2

/**
 * The bytes of a Connect envelope (flags 0) holding `message`, as chunks
 * whose concatenation is the envelope.
 *
 * @param message The request message.
 * @returns The chunks, in order; large data chunks are views of the
 * message's parts.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { CallRequestSchema } from "../../gen/rill/v1/rpc_pb.ts";
 * import { callRequestChunks } from "./_call_request_chunks.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const data = new Uint8Array(1 << 20);
 * const chunks = callRequestChunks(create(CallRequestSchema, { parts: [{ data }] }));
 * // The envelope and tags, then the data itself.
 * assertEquals(chunks[1], data);
 * ```
 */
export function callRequestChunks(message: CallRequest): Uint8Array[] {
  const callHeader = message.header === undefined
    ? undefined
    : toBinary(CallHeaderSchema, message.header);
  const parts = message.parts.map((part) => {
    const header = part.header === undefined
      ? undefined
      : toBinary(TensorHeaderSchema, part.header);
    const size = fieldSize(header?.length) + fieldSize(part.data.length || -1);
    return { header, data: part.data, size };
  });
  const total = fieldSize(callHeader?.length) +
    parts.reduce((sum, part) => sum + fieldSize(part.size), 0);
  const out = new ChunkWriter();
  out.envelope(total);
  if (callHeader !== undefined) out.field(TAG_CALL_HEADER, callHeader);
  for (const part of parts) {
    out.tagAndLength(TAG_PARTS, part.size);
    if (part.header !== undefined) out.field(TAG_PART_HEADER, part.header);
    // proto3: empty bytes are not written.
    if (part.data.length > 0) out.field(TAG_PART_DATA, part.data);
  }
  return out.finish();
}

/**
 * The encoded size of a length-delimited field with a payload of `length`
 * bytes; 0 for an absent one (`undefined`, or -1 for empty bytes).
 */
function fieldSize(length: number | undefined): number {
  if (length === undefined || length < 0) return 0;
  return 1 + varintSize(length) + length;
}

function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    size++;
  }
  return size;
}

/** Small bytes gathered into one chunk until a large payload cuts it. */
class ChunkWriter {
  #chunks: Uint8Array[] = [];
  #small: number[] = [];

  /** The envelope's prefix: flags 0, then the length big-endian. */
  envelope(length: number): void {
    this.#small.push(
      0,
      (length >>> 24) & 0xff,
      (length >>> 16) & 0xff,
      (length >>> 8) & 0xff,
      length & 0xff,
    );
  }

  tagAndLength(tag: number, length: number): void {
    this.#small.push(tag);
    for (; length >= 0x80; length = Math.floor(length / 0x80)) {
      this.#small.push((length % 0x80) | 0x80);
    }
    this.#small.push(length);
  }

  field(tag: number, payload: Uint8Array): void {
    this.tagAndLength(tag, payload.length);
    if (payload.length < OWN_CHUNK_BYTES) {
      for (const b of payload) this.#small.push(b);
      return;
    }
    this.#flush();
    this.#chunks.push(payload);
  }

  finish(): Uint8Array[] {
    this.#flush();
    return this.#chunks;
  }

  #flush(): void {
    if (this.#small.length === 0) return;
    this.#chunks.push(new Uint8Array(this.#small));
    this.#small = [];
  }
}
