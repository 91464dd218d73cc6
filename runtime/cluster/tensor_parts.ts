/**
 * Named tensors as the worker service's `TensorPart` stream
 * (proto/rill/v1/rpc.proto): {@linkcode encodeTensorParts} cuts tensors into
 * parts packed into messages of at most `chunkBytes`, and
 * {@linkcode TensorAssembler} puts received parts back together, checking
 * every part and a byte budget, so a hostile or broken peer gets an error,
 * never a crash or an unbounded allocation.
 *
 * Bytes are the elements row-major and little-endian, which is the host's
 * order on every platform Deno runs on (checked once, below).
 *
 * Zero copy: a tensor whose bytes arrive as one part becomes a typed-array
 * view of the received message when its offset is aligned for the dtype
 * and the view is at least half of that message (so a small tensor never
 * keeps a large buffer alive); otherwise its bytes are copied once, into
 * storage of its own.
 *
 * @module
 */

import { create } from "@bufbuild/protobuf";
import {
  type TensorHeader,
  TensorHeaderSchema,
  type TensorPart,
  TensorPartSchema,
} from "../../gen/rill/v1/rpc_pb.ts";
import { arrayType, type DType, itemSize } from "../../kernels/dtype.ts";
import { Tensor } from "../../kernels/tensor.ts";
import { printable } from "../core/errors.ts";
import { codeOfDType, dtypeOfCode, typeName } from "../core/dtype_codes.ts";
import type { IncomingTensor } from "./worker_inputs.ts";

/**
 * Tensors by name: a `Map`, or a plain object (`{ input: t }`). Names are
 * non-empty and, in a map, kept in insertion order.
 */
export type NamedTensors =
  | ReadonlyMap<string, Tensor>
  | Readonly<Record<string, Tensor>>;

/** Why a tensor stream was refused: see {@linkcode TensorStreamError}. */
export type TensorStreamProblem = "malformed" | "too_large";

/**
 * A tensor stream that breaks the grammar of rpc.proto (`malformed`) or
 * holds more than the receiver's budget (`too_large`). The message is one
 * line and names the tensor when there is one.
 *
 * @example Usage
 * ```ts
 * import { TensorAssembler, TensorStreamError } from "./tensor_parts.ts";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * const e = assertThrows(
 *   () => new TensorAssembler().push({ data: new Uint8Array(4) } as never),
 *   TensorStreamError,
 * );
 * assertEquals(e.problem, "malformed");
 * ```
 */
export class TensorStreamError extends Error {
  /** What is wrong: the stream's form, or its size. */
  readonly problem: TensorStreamProblem;
  /** The tensor involved, if one is. */
  readonly tensor: string | undefined;

  /**
   * Makes the error `tensor "name": detail`, or `detail` without a tensor.
   *
   * @param problem What is wrong.
   * @param detail The specifics.
   * @param tensor The tensor involved.
   */
  constructor(problem: TensorStreamProblem, detail: string, tensor?: string) {
    super(
      printable(
        tensor === undefined ? detail : `tensor "${tensor}": ${detail}`,
      ),
    );
    this.name = "TensorStreamError";
    this.problem = problem;
    this.tensor = tensor;
  }
}

/** Options for {@linkcode encodeTensorParts}. */
export interface EncodeTensorPartsOptions {
  /**
   * The most bytes of one message's parts (data and headers), at least
   * 1024. A header larger than this (a name of megabytes) goes alone.
   *
   * @default {1048576}
   */
  chunkBytes?: number;
}

/** The default `chunkBytes`: 1 MiB (see bench/rpc_tensor.ts). */
export const DEFAULT_CHUNK_BYTES = 1 << 20;

/**
 * The entries of named tensors, checked: each name a non-empty string,
 * each value a {@linkcode Tensor}.
 *
 * @param tensors A map or a plain object.
 * @returns `[name, tensor]` pairs in order.
 * @throws {TypeError} If a name is empty or a value is not a tensor.
 *
 * @example Usage
 * ```ts
 * import { namedTensorEntries } from "./tensor_parts.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.scalar(1, "int32");
 * assertEquals(namedTensorEntries({ x }), [["x", x]]);
 * assertEquals(namedTensorEntries(new Map([["x", x]])), [["x", x]]);
 * ```
 */
export function namedTensorEntries(tensors: NamedTensors): [string, Tensor][] {
  const entries: [string, Tensor][] = tensors instanceof Map
    ? [...(tensors as ReadonlyMap<string, Tensor>)]
    : Object.entries(tensors as Readonly<Record<string, Tensor>>);
  for (const [name, tensor] of entries) {
    if (typeof name !== "string" || name === "") {
      throw new TypeError("send tensors: a tensor name is empty");
    }
    if (!(tensor instanceof Tensor)) {
      throw new TypeError(`send tensors: "${name}" is not a Tensor`);
    }
  }
  return entries;
}

/**
 * Cuts tensors into parts, grouped into the parts of successive messages.
 * Data parts are views of the tensors' storage, not copies.
 *
 * Precondition: every tensor is on the host (a device tensor read back).
 *
 * @param entries `[name, tensor]` pairs; see {@linkcode namedTensorEntries}.
 * @param options The message size.
 * @returns Each message's parts, in order; nothing for no tensors.
 * @throws {RangeError} If `chunkBytes` is below 1024.
 *
 * @example Usage
 * ```ts
 * import { encodeTensorParts } from "./tensor_parts.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const big = Tensor.zeros([1024], "float32"); // 4096 bytes
 * const messages = [...encodeTensorParts([["big", big]], { chunkBytes: 1024 })];
 * // Headers and part framing take their share: the last bytes go in a fifth.
 * assertEquals(messages.length, 5);
 * assertEquals(messages[0][0].header?.name, "big");
 * ```
 */
export function* encodeTensorParts(
  entries: readonly (readonly [string, Tensor])[],
  options: EncodeTensorPartsOptions = {},
): Generator<TensorPart[], void, undefined> {
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  if (!Number.isInteger(chunkBytes) || chunkBytes < 1024) {
    throw new RangeError(
      `encode tensors: chunkBytes ${chunkBytes} is below 1024`,
    );
  }
  let parts: TensorPart[] = [];
  let room = chunkBytes;
  for (const [name, tensor] of entries) {
    const bytes = bytesOf(tensor);
    let header: TensorHeader | undefined = create(TensorHeaderSchema, {
      name,
      dtype: codeOfDType(tensor.dtype),
      dims: tensor.shape.map(BigInt),
    });
    let offset = 0;
    do {
      const overhead = PART_OVERHEAD +
        (header === undefined ? 0 : headerBytes(name, tensor.rank));
      // Flush when this part could not carry even one byte (or its header).
      const least = overhead + Math.min(1, bytes.length - offset);
      if (parts.length > 0 && room < least) {
        yield parts;
        parts = [];
        room = chunkBytes;
      }
      const n = Math.min(Math.max(room - overhead, 0), bytes.length - offset);
      parts.push(create(TensorPartSchema, {
        header,
        data: bytes.subarray(offset, offset + n),
      }));
      room = Math.max(room - overhead - n, 0);
      offset += n;
      header = undefined;
    } while (offset < bytes.length);
  }
  if (parts.length > 0) yield parts;
}

/** Options for {@linkcode TensorAssembler}. */
export interface TensorAssemblerOptions {
  /**
   * The budget of the whole stream in bytes: each tensor costs its bytes
   * plus {@linkcode TENSOR_BOOKKEEPING_BYTES}, checked when its header
   * arrives, before anything is allocated.
   *
   * @default {1073741824} (1 GiB)
   */
  maxBytes?: number;
  /**
   * Called with each tensor's name, dtype and shape when its header
   * arrives, before the budget is checked and anything is allocated; what
   * it throws, `push` throws.
   *
   * @default {undefined} (every tensor is taken)
   */
  check?: (tensor: IncomingTensor) => void;
}

/** What each tensor costs in an assembler's budget besides its bytes. */
export const TENSOR_BOOKKEEPING_BYTES = 64;

/** The default budget of a tensor stream: 1 GiB. */
export const DEFAULT_MAX_STREAM_BYTES = 1 << 30;

/** The highest rank a received tensor may have. */
export const MAX_RANK = 64;

/**
 * Puts a received part stream back together into named tensors.
 *
 * @example Usage
 * ```ts
 * import { encodeTensorParts, TensorAssembler } from "./tensor_parts.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const x = Tensor.fromArray([[1, 2], [3, 4]], "int64");
 * const assembler = new TensorAssembler();
 * for (const parts of encodeTensorParts([["x", x]])) {
 *   for (const part of parts) assembler.push(part);
 * }
 * assertEquals(assembler.finish().get("x")?.toNested(), [[1n, 2n], [3n, 4n]]);
 * ```
 */
export class TensorAssembler {
  #tensors = new Map<string, Tensor>();
  #current: Pending | undefined;
  #budget: number;
  #check: ((tensor: IncomingTensor) => void) | undefined;
  #finished = false;

  /**
   * Makes an empty assembler.
   *
   * @param options The byte budget and the check of each tensor.
   */
  constructor(options: TensorAssemblerOptions = {}) {
    this.#budget = options.maxBytes ?? DEFAULT_MAX_STREAM_BYTES;
    this.#check = options.check;
  }

  /**
   * Takes the next part.
   *
   * @param part A part as received; its data may become a tensor's storage,
   * so the caller must not reuse the bytes.
   * @throws {TensorStreamError} If the part breaks the stream's grammar or
   * the budget.
   * @throws {Error} What the `check` option throws.
   */
  push(part: TensorPart): void {
    if (this.#finished) throw new Error("TensorAssembler: push after finish");
    if (part.header !== undefined) {
      this.#end();
      this.#current = this.#begin(part.header);
    }
    const current = this.#current;
    const data = part.data;
    if (current === undefined) {
      throw new TensorStreamError(
        "malformed",
        "tensor bytes before any tensor header",
      );
    }
    if (data.length === 0) return;
    if (current.got + data.length > current.expected) {
      throw new TensorStreamError(
        "malformed",
        `more bytes than dtype ${current.dtype} and shape [${current.shape}] hold (${current.expected})`,
        current.name,
      );
    }
    if (current.got === 0 && data.length === current.expected) {
      current.whole = data;
    } else {
      current.buffer ??= new Uint8Array(current.expected);
      current.buffer.set(data, current.got);
    }
    current.got += data.length;
  }

  /**
   * Ends the stream.
   *
   * @returns The tensors, in the order their headers came.
   * @throws {TensorStreamError} If the last tensor is short of bytes.
   */
  finish(): Map<string, Tensor> {
    if (!this.#finished) {
      this.#end();
      this.#finished = true;
    }
    return this.#tensors;
  }

  #begin(header: TensorHeader): Pending {
    const name = header.name;
    if (name === "") {
      throw new TensorStreamError("malformed", "a tensor has an empty name");
    }
    if (this.#tensors.has(name)) {
      throw new TensorStreamError("malformed", "sent twice", name);
    }
    const dtype = dtypeOfCode(header.dtype);
    if (dtype === undefined) {
      throw new TensorStreamError(
        "malformed",
        `dtype ${typeName(header.dtype)} is not an element type`,
        name,
      );
    }
    if (header.dims.length > MAX_RANK) {
      throw new TensorStreamError(
        "malformed",
        `rank ${header.dims.length} is above ${MAX_RANK}`,
        name,
      );
    }
    let size = 1n;
    for (const dim of header.dims) {
      if (dim < 0n) {
        throw new TensorStreamError("malformed", `negative dim ${dim}`, name);
      }
      size *= dim;
    }
    this.#check?.({ name, dtype, shape: header.dims.map(Number) });
    const bytes = size * BigInt(itemSize(dtype)) +
      BigInt(TENSOR_BOOKKEEPING_BYTES);
    if (bytes > BigInt(this.#budget)) {
      throw new TensorStreamError(
        "too_large",
        `${bytes} bytes with the tensors before it exceed the limit by ${
          bytes - BigInt(this.#budget)
        }`,
        name,
      );
    }
    this.#budget -= Number(bytes);
    const expected = Number(bytes) - TENSOR_BOOKKEEPING_BYTES;
    return { name, dtype, shape: header.dims.map(Number), expected, got: 0 };
  }

  /** Turns the pending tensor, if any, into a tensor. */
  #end(): void {
    const p = this.#current;
    if (p === undefined) return;
    this.#current = undefined;
    if (p.got !== p.expected) {
      throw new TensorStreamError(
        "malformed",
        `got ${p.got} bytes, dtype ${p.dtype} and shape [${p.shape}] need ${p.expected}`,
        p.name,
      );
    }
    const bytes = storageBytes(p, itemSize(p.dtype));
    if (p.dtype === "bool" && bytes.some((b) => b > 1)) {
      throw new TensorStreamError(
        "malformed",
        "a bool element is neither 0 nor 1",
        p.name,
      );
    }
    const View = arrayType(p.dtype) as unknown as ViewConstructor;
    const data = new View(
      bytes.buffer,
      bytes.byteOffset,
      p.expected / itemSize(p.dtype),
    );
    this.#tensors.set(p.name, new Tensor(p.dtype, p.shape, data));
  }
}

/** A tensor whose header has come and whose bytes are coming. */
interface Pending {
  name: string;
  dtype: DType;
  shape: number[];
  /** Its byte length: size × item size. */
  expected: number;
  /** Bytes received so far. */
  got: number;
  /** The one part that held all its bytes, if one did. */
  whole?: Uint8Array;
  /** Its own storage, when its bytes came in pieces. */
  buffer?: Uint8Array;
}

type ViewConstructor = new (
  buffer: ArrayBufferLike,
  byteOffset: number,
  length: number,
) => ConstructorParameters<typeof Tensor>[2];

// Wire overhead of a part besides its header and data: the part's tag and
// length, the data's tag and length (varints of at most 5 bytes each).
const PART_OVERHEAD = 12;

/** An upper bound on a header's encoded size. */
function headerBytes(name: string, rank: number): number {
  // Tags and lengths, the name in UTF-8 (≤ 3 bytes a UTF-16 unit), the
  // dtype varint, and packed dims of ≤ 10 bytes each.
  return 24 + 3 * name.length + 10 * rank;
}

/** Precondition: the tensor is on the host. */
function bytesOf(tensor: Tensor): Uint8Array {
  const data = tensor.data;
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** The bytes a complete pending tensor's storage is made from. */
function storageBytes(p: Pending, align: number): Uint8Array {
  if (p.buffer !== undefined) return p.buffer;
  const whole = p.whole ?? new Uint8Array(0);
  const view = whole.byteOffset % align === 0 &&
    2 * whole.byteLength >= whole.buffer.byteLength;
  // Not `whole.slice()`: on a Node.js Buffer, which the transport hands
  // out, slice() is a view.
  return view ? whole : new Uint8Array(whole);
}

if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) {
  // Tensors travel little-endian and are viewed in place.
  throw new Error("rill rpc: big-endian hosts are not supported");
}
