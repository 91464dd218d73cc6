// Paddle's tensor file format: records assembled by hand from the format's
// description (never by the writer under test) decode as they should and
// write back byte for byte; every dtype, rank 0, empty tensors and LoD round
// trip byte for byte; the combined form; and bad input fails with a
// RangeError (truncation, data that disagrees with the dims) or TypeError
// (versions, dtypes, malformed descs) giving the byte offset.

import { assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
import { type DType, DTYPES } from "../../../kernels/dtype.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import {
  type LoD,
  readPaddleTensor,
  readPaddleTensors,
  writePaddleTensor,
  writePaddleTensors,
} from "../../../runtime/format/paddle_tensor.ts";

// ---- Little-endian fields, written from the spec -------------------------

function field(size: number, set: (view: DataView) => void): number[] {
  const bytes = new Uint8Array(size);
  set(new DataView(bytes.buffer));
  return [...bytes];
}
const u32 = (v: number) => field(4, (d) => d.setUint32(0, v, true));
const i32 = (v: number) => field(4, (d) => d.setInt32(0, v, true));
const u64 = (v: bigint) => field(8, (d) => d.setBigUint64(0, v, true));
const f32s = (...vs: number[]) =>
  vs.flatMap((v) => field(4, (d) => d.setFloat32(0, v, true)));

/** A record with no LoD around a hand-coded desc and data. */
function plainRecord(desc: number[], data: number[]): Uint8Array {
  return new Uint8Array([
    ...u32(0),
    ...u64(0n),
    ...u32(0),
    ...i32(desc.length),
    ...desc,
    ...data,
  ]);
}

/**
 * float32 [2, 3] = [[1, 2, 3], [4, 5, 6]] with two LoD levels: one
 * sequence of two sub-sequences of one row each.
 */
const FIXTURE = new Uint8Array([
  ...u32(0), // LoDTensor version
  ...u64(2n), // lod_level
  ...u64(16n), // level 0: 16 bytes, offsets 0, 2
  ...u64(0n),
  ...u64(2n),
  ...u64(24n), // level 1: 24 bytes, offsets 0, 1, 2
  ...u64(0n),
  ...u64(1n),
  ...u64(2n),
  ...u32(0), // Tensor version
  ...i32(6), // TensorDesc size
  0x08, // field 1 (data_type), varint
  5, // FP32
  0x10, // field 2 (dims), varint, unpacked as proto2 writes it
  2,
  0x10,
  3,
  ...f32s(1, 2, 3, 4, 5, 6),
]);

function rawBytes(t: Tensor): Uint8Array {
  return new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
}

// ---- Hand-assembled records ----------------------------------------------

Deno.test("readPaddleTensor() decodes a record assembled from the spec", () => {
  const { tensor, lod, next } = readPaddleTensor(FIXTURE);
  assertEquals([tensor.dtype, tensor.shape], ["float32", [2, 3]]);
  assertEquals(tensor.toNested(), [[1, 2, 3], [4, 5, 6]]);
  assertEquals(lod, [[0n, 2n], [0n, 1n, 2n]]);
  assertEquals(next, FIXTURE.length);
});

Deno.test("writePaddleTensor() writes the spec's bytes, LoD included", () => {
  const { tensor, lod } = readPaddleTensor(FIXTURE);
  assertEquals(writePaddleTensor(tensor, lod), FIXTURE);
});

Deno.test("readPaddleTensor() reads from an offset and stops at the record's end", () => {
  const bytes = new Uint8Array([0xaa, 0xbb, ...FIXTURE, 0xcc]);
  const { tensor, next } = readPaddleTensor(bytes, 2);
  assertEquals(tensor.toNested(), [[1, 2, 3], [4, 5, 6]]);
  assertEquals(next, 2 + FIXTURE.length);
});

Deno.test("readPaddleTensor() accepts packed dims from other encoders", () => {
  // data_type INT64 (3); field 2 as one length-delimited run: dims [2]
  const bytes = plainRecord(
    [0x08, 3, 0x12, 1, 2],
    [...u64(7n), ...u64(2n ** 63n)],
  );
  const { tensor } = readPaddleTensor(bytes);
  assertEquals([tensor.dtype, tensor.toNested()], ["int64", [
    7n,
    -(2n ** 63n),
  ]]);
});

Deno.test("readPaddleTensor() reads a BOOL desc whose data_type is 0", () => {
  const { tensor } = readPaddleTensor(plainRecord([0x08, 0, 0x10, 2], [1, 0]));
  assertEquals([tensor.dtype, tensor.toNested()], ["bool", [true, false]]);
});

Deno.test("readPaddleTensor() keeps NaN payloads and -0 bit for bit", () => {
  const data = [0x01, 0x00, 0xc0, 0x7f, 0x00, 0x00, 0x00, 0x80]; // NaN(1), -0
  const bytes = plainRecord([0x08, 5, 0x10, 2], data);
  const { tensor } = readPaddleTensor(bytes);
  assertEquals(writePaddleTensor(tensor), bytes);
});

// ---- Round trips -----------------------------------------------------------

const VALUES: Readonly<Record<DType, readonly (number | bigint | boolean)[]>> =
  {
    bool: [true, false, true, true, false, false],
    int8: [-128, 127, 0, 1, -1, 5],
    uint8: [0, 255, 1, 2, 3, 4],
    int16: [-32768, 32767, 0, 1, -1, 300],
    int32: [-(2 ** 31), 2 ** 31 - 1, 0, 1, -1, 70000],
    int64: [-(2n ** 63n), 2n ** 63n - 1n, 0n, 1n, -1n, 2n ** 53n + 1n],
    float16: [0.5, -2, 65504, -0, Infinity, NaN],
    float32: [0.1, -0, 3.4e38, NaN, -Infinity, 1e-45],
    float64: [0.1, -0, Number.MAX_VALUE, NaN, Infinity, 5e-324],
  };

// VarType.Type numbers, as docs/architecture.md §2 fixes them.
const CODES: Readonly<Record<DType, number>> = {
  bool: 0,
  int16: 1,
  int32: 2,
  int64: 3,
  float16: 4,
  float32: 5,
  float64: 6,
  uint8: 20,
  int8: 21,
};

/** Each dtype's tensors: [2, 3], rank 0, empty, and [6] with two LoD levels. */
function casesOf(dtype: DType): { what: string; tensor: Tensor; lod: LoD }[] {
  const values = VALUES[dtype] as (number | bigint | boolean)[];
  return [
    {
      what: "[2, 3]",
      tensor: Tensor.fromArray(values, dtype, [2, 3]),
      lod: [],
    },
    {
      what: "rank 0",
      tensor: Tensor.fromArray(values.slice(0, 1), dtype, []),
      lod: [],
    },
    { what: "empty", tensor: Tensor.fromArray([], dtype, [0, 3]), lod: [] },
    {
      what: "with LoD",
      tensor: Tensor.fromArray(values, dtype, [6]),
      lod: [[0n, 1n, 3n], [0n, 2n, 5n, 6n]],
    },
  ];
}

for (const dtype of DTYPES) {
  Deno.test(`writePaddleTensor() then readPaddleTensor() round-trips ${dtype} byte for byte`, () => {
    for (const { what, tensor, lod } of casesOf(dtype)) {
      const bytes = writePaddleTensor(tensor, lod);
      const read = readPaddleTensor(bytes);
      assertEquals(
        [read.tensor.dtype, read.tensor.shape, read.lod, read.next],
        [dtype, tensor.shape, lod, bytes.length],
        what,
      );
      assertEquals(rawBytes(read.tensor), rawBytes(tensor), what);
      assertEquals(writePaddleTensor(read.tensor, read.lod), bytes, what);
    }
  });
}

Deno.test("writePaddleTensor() writes each dtype's VarType.Type code", () => {
  for (const dtype of DTYPES) {
    const bytes = writePaddleTensor(Tensor.fromArray([], dtype, [0]));
    // version, lod_level 0, version, desc size, then data_type's tag and value
    assertEquals(
      [...bytes.subarray(16, 22)],
      [...i32(4), 0x08, CODES[dtype]],
      dtype,
    );
  }
});

Deno.test("writePaddleTensors() then readPaddleTensors() round-trips a combined file", () => {
  const records = DTYPES.flatMap(casesOf);
  const bytes = writePaddleTensors(records);
  const read = readPaddleTensors(bytes);
  assertEquals(read.length, records.length);
  read.forEach(({ tensor, lod }, i) => {
    assertEquals([tensor.dtype, tensor.shape, lod], [
      records[i].tensor.dtype,
      records[i].tensor.shape,
      records[i].lod,
    ]);
    assertEquals(rawBytes(tensor), rawBytes(records[i].tensor));
  });
  assertEquals(writePaddleTensors(read), bytes);
  assertEquals(readPaddleTensors(bytes, records.length).length, records.length);
});

Deno.test("readPaddleTensors() decodes records assembled back to back", () => {
  const second = plainRecord([0x08, 2, 0x10, 1], [...i32(-7)]);
  const [a, b] = readPaddleTensors(new Uint8Array([...FIXTURE, ...second]), [
    "w",
    "b",
  ]);
  assertEquals(a.lod, [[0n, 2n], [0n, 1n, 2n]]);
  assertEquals([b.tensor.dtype, b.tensor.toNested(), b.lod], [
    "int32",
    [-7],
    [],
  ]);
});

Deno.test("readPaddleTensors() of no bytes is no tensors", () => {
  assertEquals(readPaddleTensors(new Uint8Array()), []);
  assertEquals(writePaddleTensors([]), new Uint8Array());
});

// ---- Bad input -------------------------------------------------------------

Deno.test("readPaddleTensor() rejects every truncation with a RangeError", () => {
  for (let length = 0; length < FIXTURE.length; length++) {
    const e = assertThrows(
      () => readPaddleTensor(FIXTURE.subarray(0, length)),
      RangeError,
      undefined,
      `length ${length}`,
    );
    assertStringIncludes(e.message, "truncated at byte", `length ${length}`);
  }
});

Deno.test("readPaddleTensor() rejects versions other than 0, naming the offset", () => {
  const lodVersion = FIXTURE.slice();
  lodVersion[0] = 1;
  assertThrows(
    () => readPaddleTensor(lodVersion),
    TypeError,
    "unknown LoDTensor version 1 at byte 0",
  );
  const tensorVersion = plainRecord([0x08, 5], []);
  tensorVersion[12] = 2;
  assertThrows(
    () => readPaddleTensor(tensorVersion),
    TypeError,
    "unknown Tensor version 2 at byte 12",
  );
});

Deno.test("readPaddleTensor() rejects data types Rill has no dtype for", () => {
  for (
    const [code, name] of [[22, "BF16"], [7, "LOD_TENSOR"], [99, "99"]] as const
  ) {
    const e = assertThrows(
      () => readPaddleTensor(plainRecord([0x08, code, 0x10, 1], [0, 0])),
      TypeError,
    );
    assertStringIncludes(e.message, `data_type ${name}`);
    assertStringIncludes(e.message, "at byte 20");
  }
});

Deno.test("readPaddleTensor() rejects a malformed or incomplete TensorDesc", () => {
  const descs = [
    [0x10, 1], // no data_type
    [0x08], // a varint cut short
    [0x08, 5, 0x10, 0x7f, 0x10], // dims cut short
  ];
  for (const desc of descs) {
    assertThrows(() => readPaddleTensor(plainRecord(desc, [])), TypeError);
  }
  const negative = plainRecord([], []);
  negative.set(i32(-1), 16);
  assertThrows(
    () => readPaddleTensor(negative),
    TypeError,
    "negative TensorDesc size -1",
  );
});

Deno.test("readPaddleTensor() rejects unknown (-1) and negative dims", () => {
  const minusOne = [0x08, 5, 0x10, ...Array(9).fill(0xff), 0x01];
  assertThrows(
    () => readPaddleTensor(plainRecord(minusOne, [])),
    TypeError,
    "dims [-1]",
  );
});

Deno.test("readPaddleTensor() rejects a LoD level that is not whole uint64s", () => {
  const bytes = new Uint8Array([
    ...u32(0),
    ...u64(1n),
    ...u64(12n),
    ...Array(12).fill(0),
  ]);
  assertThrows(
    () => readPaddleTensor(bytes),
    TypeError,
    "LoD level 0 at byte 12 is 12 bytes",
  );
});

Deno.test("readPaddleTensor() refuses counts and dims the bytes cannot hold", () => {
  const levels = new Uint8Array([...u32(0), ...u64(2n ** 63n)]);
  assertThrows(
    () => readPaddleTensor(levels),
    RangeError,
    "truncated at byte 12",
  );
  // dims [2^40, 2^20]: 2^60 float32s
  const huge = plainRecord([
    0x08,
    5,
    0x10,
    0x80,
    0x80,
    0x80,
    0x80,
    0x80,
    0x20,
    0x10,
    0x80,
    0x80,
    0x40,
  ], []);
  assertThrows(
    () => readPaddleTensor(huge),
    RangeError,
    "dims [1099511627776, 1048576] of float32",
  );
});

Deno.test("readPaddleTensor() reports dims that promise more data than there is", () => {
  const short = plainRecord([0x08, 5, 0x10, 2, 0x10, 3], f32s(1, 2, 3, 4, 5));
  assertThrows(
    () => readPaddleTensor(short),
    RangeError,
    "truncated at byte 26: dims [2, 3] of float32 needs 24 bytes, 20 remain",
  );
});

Deno.test("readPaddleTensor() rejects an offset outside the bytes", () => {
  assertThrows(() => readPaddleTensor(FIXTURE, FIXTURE.length + 1), RangeError);
  assertThrows(() => readPaddleTensor(FIXTURE, -1), RangeError);
});

Deno.test("readPaddleTensors() names the missing or extra tensors", () => {
  const bytes = writePaddleTensors([Tensor.fromArray([1], "float32")]);
  const missing = assertThrows(
    () => readPaddleTensors(bytes, ["fc_0.b_0", "fc_0.w_0"]),
    RangeError,
  );
  assertStringIncludes(missing.message, 'tensor 1 ("fc_0.w_0"): missing');
  const extra = assertThrows(
    () => readPaddleTensors(new Uint8Array([...bytes, ...bytes]), 1),
    RangeError,
  );
  assertStringIncludes(
    extra.message,
    `${bytes.length} bytes left at byte ${bytes.length}`,
  );
  const truncated = assertThrows(
    () =>
      readPaddleTensors(new Uint8Array([...bytes, ...bytes.subarray(0, 20)]), [
        "a",
        "b",
      ]),
    RangeError,
  );
  assertStringIncludes(truncated.message, 'tensor 1 ("b"): truncated at byte');
});

Deno.test("writePaddleTensor() rejects LoD offsets that are not uint64s", () => {
  const t = Tensor.fromArray([1, 2], "float32");
  assertThrows(
    () => writePaddleTensor(t, [[0n, -1n]]),
    RangeError,
    "LoD level 0 offset -1",
  );
  assertThrows(() => writePaddleTensor(t, [[0n, 2n ** 64n]]), RangeError);
});
