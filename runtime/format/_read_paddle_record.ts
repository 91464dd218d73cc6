/**
 * The reading half of Paddle's tensor format (see `paddle_tensor.ts` for
 * the layout): one record at an offset, every field checked to fit before
 * it is read, errors prefixed with the caller's label and giving the byte
 * offset.
 *
 * @module
 */
import { fromBinary, isFieldSet } from "@bufbuild/protobuf";
import { VarType_TensorDescSchema } from "../../gen/rill/v1/framework_pb.ts";
import { allocate } from "../../kernels/allocate.ts";
import { type DType, itemSize } from "../../kernels/dtype.ts";
import { Tensor } from "../../kernels/tensor.ts";
import { dtypeOfCode, typeName } from "../core/dtype_codes.ts";
import type { PaddleTensorRead } from "./paddle_tensor.ts";

// Paddle data types the proto in gen/ does not name, for error messages.
const PADDLE_ONLY_TYPE_NAMES: Readonly<Record<number, string>> = {
  22: "BF16",
  23: "COMPLEX64",
  24: "COMPLEX128",
};

// Reads fields in order, checking each fits before reading it.
class RecordReader {
  readonly #bytes: Uint8Array;
  readonly #view: DataView;
  readonly #label: string;
  /** The offset of the next unread byte. */
  at: number;

  constructor(bytes: Uint8Array, offset: number, label: string) {
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    this.#label = label;
    this.at = offset;
  }

  /** A RangeError or TypeError whose message starts with the label. */
  fail(kind: "range" | "type", detail: string): Error {
    const message = `${this.#label}: ${detail}`;
    return kind === "range" ? new RangeError(message) : new TypeError(message);
  }

  need(size: number | bigint, what: string): void {
    const left = this.#bytes.length - this.at;
    if (BigInt(size) > BigInt(left)) {
      throw this.fail(
        "range",
        `truncated at byte ${this.at}: ${what} needs ${size} bytes, ` +
          `${left} remain`,
      );
    }
  }

  uint32(what: string): number {
    this.need(4, what);
    const v = this.#view.getUint32(this.at, true);
    this.at += 4;
    return v;
  }

  int32(what: string): number {
    this.need(4, what);
    const v = this.#view.getInt32(this.at, true);
    this.at += 4;
    return v;
  }

  uint64(what: string): bigint {
    this.need(8, what);
    const v = this.#view.getBigUint64(this.at, true);
    this.at += 8;
    return v;
  }

  /** The next `size` bytes, a view; call `need` first. */
  take(size: number): Uint8Array {
    const part = this.#bytes.subarray(this.at, this.at + size);
    this.at += size;
    return part;
  }
}

/**
 * Reads one record of Paddle's tensor format at `offset`.
 *
 * @param bytes The bytes holding the record.
 * @param offset Where it starts.
 * @param label What every error message starts with.
 * @returns The tensor, its LoD, and the offset just past the record.
 * @throws {RangeError} For a truncated record or an offset outside `bytes`.
 * @throws {TypeError} For a wrong version, LoD size, desc or data type.
 *
 * @example Usage
 * ```ts
 * import { readRecord } from "./_read_paddle_record.ts";
 * import { writePaddleTensor } from "./paddle_tensor.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * const bytes = writePaddleTensor(Tensor.fromArray([1], "int8"));
 * assertEquals(readRecord(bytes, 0, "read").next, bytes.length);
 * assertThrows(() => readRecord(bytes.subarray(0, 3), 0, "read"), RangeError, "read: truncated at byte 0");
 * ```
 */
export function readRecord(
  bytes: Uint8Array,
  offset: number,
  label: string,
): PaddleTensorRead {
  if (!Number.isInteger(offset) || offset < 0 || offset > bytes.length) {
    throw new RangeError(
      `${label}: offset ${offset} is outside the ${bytes.length} bytes`,
    );
  }
  const r = new RecordReader(bytes, offset, label);
  readVersion(r, "LoDTensor");
  const lod = readLoD(r);
  readVersion(r, "Tensor");
  const { dtype, shape } = readDesc(r);
  const numel = shape.reduce((n, d) => n * BigInt(d), 1n);
  const byteLength = numel * BigInt(itemSize(dtype));
  r.need(byteLength, `dims ${formatDims(shape)} of ${dtype}`);
  const data = allocate(dtype, Number(numel));
  new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
    .set(r.take(Number(byteLength)));
  if (dtype === "bool") {
    for (let i = 0; i < data.length; i++) data[i] = data[i] !== 0 ? 1 : 0;
  }
  return { tensor: new Tensor(dtype, shape, data), lod, next: r.at };
}

function readVersion(r: RecordReader, what: "LoDTensor" | "Tensor"): void {
  const at = r.at;
  const version = r.uint32(`the ${what} version`);
  if (version !== 0) {
    throw r.fail(
      "type",
      `unknown ${what} version ${version} at byte ${at} (only 0 is defined)`,
    );
  }
}

function readLoD(r: RecordReader): bigint[][] {
  const levels = r.uint64("lod_level");
  // Each level costs at least its 8-byte size: refuse a count the bytes
  // cannot hold before allocating anything for it.
  r.need(levels * 8n, `lod_level ${levels}`);
  const lod: bigint[][] = [];
  for (let i = 0; i < Number(levels); i++) {
    const at = r.at;
    const size = r.uint64(`LoD level ${i}'s size`);
    if (size % 8n !== 0n) {
      throw r.fail(
        "type",
        `LoD level ${i} at byte ${at} is ${size} bytes, not whole uint64 offsets`,
      );
    }
    r.need(size, `LoD level ${i}`);
    const level: bigint[] = [];
    for (let k = 0n; k < size; k += 8n) level.push(r.uint64(`LoD level ${i}`));
    lod.push(level);
  }
  return lod;
}

function readDesc(r: RecordReader): { dtype: DType; shape: number[] } {
  const sizeAt = r.at;
  const size = r.int32("the TensorDesc size");
  if (size < 0) {
    throw r.fail("type", `negative TensorDesc size ${size} at byte ${sizeAt}`);
  }
  const at = r.at;
  r.need(size, "the TensorDesc");
  const schema = VarType_TensorDescSchema;
  let desc;
  try {
    desc = fromBinary(schema, r.take(size));
  } catch (e) {
    throw r.fail(
      "type",
      `malformed TensorDesc at byte ${at}: ${(e as Error).message}`,
    );
  }
  // A closed (proto2) enum keeps a number it does not name among the
  // unknown fields, leaving data_type unset: report that number.
  const code = isFieldSet(desc, schema.field.dataType)
    ? desc.dataType
    : unknownEnumValue(desc.$unknown, schema.field.dataType.number);
  if (code === undefined) {
    throw r.fail("type", `the TensorDesc at byte ${at} has no data_type`);
  }
  const dtype = dtypeOfCode(code);
  if (dtype === undefined) {
    const name = PADDLE_ONLY_TYPE_NAMES[code] ?? typeName(code);
    throw r.fail(
      "type",
      `unsupported data_type ${name} in the TensorDesc at byte ${at}`,
    );
  }
  if (desc.dims.some((d) => d < 0n || d > BigInt(Number.MAX_SAFE_INTEGER))) {
    throw r.fail(
      "type",
      `dims ${formatDims(desc.dims)} in the TensorDesc at byte ${at}: ` +
        `a saved tensor's dims are known and non-negative`,
    );
  }
  return { dtype, shape: desc.dims.map(Number) };
}

// The last value a varint unknown field `no` holds, as protobuf keeps the
// last of repeated scalar occurrences.
function unknownEnumValue(
  unknown: readonly { no: number; wireType: number; data: Uint8Array }[] = [],
  no: number,
): number | undefined {
  let value: number | undefined;
  for (const field of unknown) {
    if (field.no !== no || field.wireType !== 0) continue;
    let v = 0;
    for (let i = 0, shift = 1; i < field.data.length && i < 5; i++) {
      v += (field.data[i] & 0x7f) * shift;
      shift *= 128;
    }
    value = v;
  }
  return value;
}

function formatDims(dims: readonly (number | bigint)[]): string {
  return `[${dims.join(", ")}]`;
}
