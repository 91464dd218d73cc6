// PaddlePaddle's tensor file format: one LoDTensor as Paddle's
// SerializeToStream writes it (`fluid.io.save_params`, `save_persistables`,
// the `save` op), and the combined form (`save_combine`, `__params__`,
// `*.pdiparams`): the same records back to back, in the op's variable order.
//
// One record, every integer little-endian (Deno runs only on little-endian
// hosts, so a typed array's bytes are the file's bytes):
//
//   uint32  LoDTensor version, 0 (the only version Paddle has written)
//   uint64  lod_level
//   lod_level × { uint64 byte size; that many bytes of uint64 offsets }
//   uint32  Tensor version, 0
//   int32   byte size of the TensorDesc
//   bytes   a VarType.TensorDesc protobuf: data_type (field 1), dims (2)
//   bytes   the elements, row-major, numel(dims) × item size
//
// No field gives the data's size: the desc's dims do. So a desc whose dims
// disagree with the data shows as a record that runs past the end, or as
// bytes left over after the last record; both are errors here.
//
// Invariant: reading a record and writing what the reader returns gives the
// same bytes (LoD included) whenever the record is as Paddle writes it: a
// desc of data_type then unpacked dims and nothing else (what Paddle's
// proto2 C++ encoder emits, and what the generated schema emits here), and
// bool elements of 0 or 1. Other encodings of the desc (packed dims,
// unknown fields) are read, then written in that canonical form.

import { create, toBinary } from "@bufbuild/protobuf";
import { VarType_TensorDescSchema } from "../../gen/rill/v1/framework_pb.ts";
import { Tensor } from "../../kernels/tensor.ts";
import { codeOfDType } from "../core/dtype_codes.ts";
import { readRecord } from "./_read_paddle_record.ts";

/**
 * Level-of-detail (sequence) information: per level, row offsets into the
 * level below (the last level into the tensor's rows), as uint64 values.
 * `[]` is a plain tensor.
 */
export type LoD = readonly (readonly bigint[])[];

/** A tensor as Paddle saves it: the elements and their LoD. */
export interface PaddleTensor {
  /** The elements, dtype and dims. */
  readonly tensor: Tensor;
  /** The LoD levels; `[]` when the tensor has none. */
  readonly lod: LoD;
}

/** One record read from a buffer, and where the next one starts. */
export interface PaddleTensorRead extends PaddleTensor {
  /** The byte offset just past this record. */
  readonly next: number;
}

const U64_MAX = 2n ** 64n - 1n;

/**
 * Reads one Paddle tensor record starting at `offset`.
 *
 * Bytes after the record are left alone, so that a caller can read the
 * combined form record by record; `next` says where the record ended.
 *
 * @param bytes The file's bytes (or a combined file's).
 * @param offset Where the record starts.
 * @returns The tensor, its LoD, and the offset just past the record.
 * @throws {RangeError} If the record runs past the end of `bytes` (a
 * truncated file, or dims that promise more data than there is); the
 * message gives the byte offset.
 * @throws {TypeError} If a version is not 0, a LoD level is not whole
 * uint64s, the TensorDesc is malformed, or its data type is one Rill has no
 * dtype for (BF16, complex, ...); the message gives the byte offset.
 *
 * @example Usage
 * ```ts
 * import { readPaddleTensor, writePaddleTensor } from "./paddle_tensor.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const bytes = writePaddleTensor(Tensor.fromArray([[1, 2], [3, 4]], "float32"));
 * const { tensor, lod, next } = readPaddleTensor(bytes);
 * assertEquals([tensor.toNested(), lod, next], [[[1, 2], [3, 4]], [], bytes.length]);
 * ```
 */
export function readPaddleTensor(
  bytes: Uint8Array,
  offset = 0,
): PaddleTensorRead {
  return readRecord(bytes, offset, "read paddle tensor");
}

/**
 * The bytes of one Paddle tensor record, as Paddle's `save` op writes them.
 *
 * @param tensor The tensor.
 * @param lod Its LoD levels, kept as given.
 * @returns The record's bytes.
 * @throws {RangeError} If a LoD offset is not a uint64.
 *
 * @example Usage
 * ```ts
 * import { writePaddleTensor } from "./paddle_tensor.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const bytes = writePaddleTensor(Tensor.fromArray([7], "int32"));
 * // version 0, lod_level 0, version 0, the desc's size, the desc, the data
 * assertEquals(bytes.length, 4 + 8 + 4 + 4 + 4 + 4);
 * assertEquals(bytes[16], 4);
 * // data_type INT32 (2), dims [1]
 * assertEquals([...bytes.subarray(20, 24)], [0x08, 2, 0x10, 1]);
 * ```
 */
export function writePaddleTensor(tensor: Tensor, lod: LoD = []): Uint8Array {
  const desc = toBinary(
    VarType_TensorDescSchema,
    create(VarType_TensorDescSchema, {
      dataType: codeOfDType(tensor.dtype),
      dims: tensor.shape.map(BigInt),
    }),
  );
  const lodBytes = lod.reduce((n, level) => n + 8 + 8 * level.length, 0);
  const data = new Uint8Array(
    tensor.data.buffer,
    tensor.data.byteOffset,
    tensor.data.byteLength,
  );
  const out = new Uint8Array(
    4 + 8 + lodBytes + 4 + 4 + desc.length + data.length,
  );
  const view = new DataView(out.buffer);
  let at = 4; // LoDTensor version 0: already zero
  view.setBigUint64(at, BigInt(lod.length), true);
  at += 8;
  lod.forEach((level, i) => {
    view.setBigUint64(at, BigInt(8 * level.length), true);
    at += 8;
    for (const offset of level) {
      if (typeof offset !== "bigint" || offset < 0n || offset > U64_MAX) {
        throw new RangeError(
          `write paddle tensor: LoD level ${i} offset ${offset} is not a uint64`,
        );
      }
      view.setBigUint64(at, offset, true);
      at += 8;
    }
  });
  at += 4; // Tensor version 0
  view.setInt32(at, desc.length, true);
  at += 4;
  out.set(desc, at);
  out.set(data, at + desc.length);
  return out;
}

/**
 * Reads the combined form: Paddle tensor records back to back, as
 * `save_combine` writes them.
 *
 * @param bytes The file's bytes.
 * @param expected How many records the file must hold, or the names of the
 * variables they load into, in file order (then messages name the
 * variable). Absent: every record up to the end.
 * @returns The records, in file order.
 * @throws {RangeError} If the file holds fewer or more records than
 * expected, or a record is truncated; the message gives the byte offset and
 * the record's index (and name).
 * @throws {TypeError} As {@linkcode readPaddleTensor}, naming the record.
 *
 * @example Usage
 * ```ts
 * import { readPaddleTensors, writePaddleTensors } from "./paddle_tensor.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * const bytes = writePaddleTensors([
 *   Tensor.fromArray([1, 2], "float32"),
 *   { tensor: Tensor.fromArray([3n], "int64"), lod: [[0n, 1n]] },
 * ]);
 * const [a, b] = readPaddleTensors(bytes, ["a", "b"]);
 * assertEquals([a.tensor.toNested(), b.tensor.toNested(), b.lod], [[1, 2], [3n], [[0n, 1n]]]);
 * assertThrows(() => readPaddleTensors(bytes, 3), RangeError);
 * ```
 */
export function readPaddleTensors(
  bytes: Uint8Array,
  expected?: number | readonly string[],
): PaddleTensor[] {
  const names = typeof expected === "object" ? expected : undefined;
  const count = names?.length ?? expected as number | undefined;
  const label = (i: number) =>
    `read paddle tensors: tensor ${i}` +
    (names === undefined ? "" : ` (${JSON.stringify(names[i])})`);
  const records: PaddleTensor[] = [];
  let at = 0;
  for (let i = 0; count === undefined ? at < bytes.length : i < count; i++) {
    if (at === bytes.length) {
      throw new RangeError(
        `${label(i)}: missing: the input ends at byte ${at} after ${i} ` +
          `of the ${count} tensors expected`,
      );
    }
    const { tensor, lod, next } = readRecord(bytes, at, label(i));
    records.push({ tensor, lod });
    at = next;
  }
  if (at !== bytes.length) {
    throw new RangeError(
      `read paddle tensors: ${bytes.length - at} bytes left at byte ${at} ` +
        `after the ${count} tensors expected`,
    );
  }
  return records;
}

/**
 * The combined form of several tensors: their records back to back, in
 * the order given, as `save_combine` writes them.
 *
 * @param tensors Tensors, each bare or with its LoD.
 * @returns The file's bytes.
 * @throws {RangeError} If a LoD offset is not a uint64.
 *
 * @example Usage
 * ```ts
 * import { writePaddleTensor, writePaddleTensors } from "./paddle_tensor.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const a = Tensor.fromArray([true, false], "bool");
 * const b = Tensor.fromArray([1.5], "float64");
 * const both = writePaddleTensors([a, b]);
 * assertEquals(both, new Uint8Array([...writePaddleTensor(a), ...writePaddleTensor(b)]));
 * ```
 */
export function writePaddleTensors(
  tensors: readonly (Tensor | PaddleTensor)[],
): Uint8Array {
  const parts = tensors.map((t) =>
    t instanceof Tensor
      ? writePaddleTensor(t)
      : writePaddleTensor(t.tensor, t.lod)
  );
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
