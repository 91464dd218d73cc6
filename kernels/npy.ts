// NumPy's .npy format: a magic string, a version, a header that is a Python
// dict literal ({'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }),
// padded so the data starts at a multiple of 64 bytes, then the raw data in
// C order. Rill writes version 1.0 (2.0 only when the header needs it) and
// reads 1.0, 2.0 and 3.0. Data is little-endian; Deno runs only on
// little-endian hosts, so a typed array's bytes are the file's bytes.

import { readHeaderDict } from "./_npy_header.ts";
import { allocate } from "./allocate.ts";
import { formatShape, shapeSize } from "./_shape.ts";
import { type DType, itemSize } from "./dtype.ts";
import { Tensor } from "./tensor.ts";

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // "\x93NUMPY"
const ALIGN = 64;
// The longest header NumPy reads by default (`max_header_size`).
const MAX_HEADER = 10000;

const DESCR: Readonly<Record<DType, string>> = {
  bool: "|b1",
  int8: "|i1",
  uint8: "|u1",
  int16: "<i2",
  int32: "<i4",
  int64: "<i8",
  float16: "<f2",
  float32: "<f4",
  float64: "<f8",
};

// Byte order marks that mean little-endian (or irrelevant), keyed by the
// type code after them.
const FROM_DESCR: ReadonlyMap<string, DType> = new Map(
  Object.entries(DESCR).map((
    [dtype, descr],
  ) => [descr.slice(1), dtype as DType]),
);

/**
 * A tensor as the bytes of a `.npy` file.
 *
 * @param t The tensor.
 * @returns The file's bytes.
 *
 * @example Usage
 * ```ts
 * import { decodeNpy, encodeNpy } from "./npy.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const t = Tensor.fromArray([[1, 2], [3, 4]], "float32");
 * const bytes = encodeNpy(t);
 * assertEquals(bytes.length % 64, 16); // 64-byte header, then 16 data bytes
 * assertEquals(decodeNpy(bytes).toNested(), [[1, 2], [3, 4]]);
 * ```
 */
export function encodeNpy(t: Tensor): Uint8Array {
  const dims = t.shape.length === 1 ? `${t.shape[0]},` : t.shape.join(", ");
  const descr = DESCR[t.dtype];
  const dict =
    `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
  // Version 1.0 counts the header in 2 bytes; a longer one needs 2.0's 4.
  const version = paddedHeaderLength(10, dict.length) > 0xffff ? 2 : 1;
  const prelude = version === 1 ? 10 : 12;
  const headerLength = paddedHeaderLength(prelude, dict.length);
  const header = dict.padEnd(headerLength - 1, " ") + "\n";
  const data = new Uint8Array(
    t.data.buffer,
    t.data.byteOffset,
    t.data.byteLength,
  );
  const bytes = new Uint8Array(prelude + headerLength + data.length);
  const view = new DataView(bytes.buffer);
  bytes.set(MAGIC, 0);
  bytes[6] = version;
  bytes[7] = 0;
  if (version === 1) view.setUint16(8, headerLength, true);
  else view.setUint32(8, headerLength, true);
  bytes.set(new TextEncoder().encode(header), prelude);
  bytes.set(data, prelude + headerLength);
  return bytes;
}

/**
 * The tensor in a `.npy` file.
 *
 * Accepts versions 1.0 to 3.0, C order, and the little-endian (or
 * byte-order-free) dtypes `|b1 |i1 |u1 <i2 <i4 <i8 <f2 <f4 <f8`.
 *
 * @param bytes The file's bytes.
 * @returns The tensor.
 * @throws {TypeError} If the bytes are not a `.npy` file, or it uses an
 * unsupported dtype, byte order or Fortran order.
 * @throws {RangeError} If the data is shorter than the shape needs.
 *
 * @example Usage
 * ```ts
 * import { decodeNpy, encodeNpy } from "./npy.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const t = Tensor.fromArray([2n ** 62n + 1n], "int64");
 * assertEquals(decodeNpy(encodeNpy(t)).item(), 2n ** 62n + 1n);
 * ```
 */
export function decodeNpy(bytes: Uint8Array): Tensor {
  const header = decodeNpyHeader(bytes);
  return decodeNpyRows(
    header,
    bytes.subarray(header.dataOffset),
    header.shape[0] ?? 1,
  );
}

/** What a `.npy` header says: element type, shape, where the data starts. */
export interface NpyHeader {
  /** The element type. */
  readonly dtype: DType;
  /** The array's shape. */
  readonly shape: readonly number[];
  /** The byte offset of the data in the file. */
  readonly dataOffset: number;
}

/**
 * Reads the header at the start of a `.npy` file, so that a reader can
 * fetch only the rows it wants. `bytes` needs to hold only the header (a
 * few hundred bytes at most for any real file).
 *
 * @param bytes The start of the file.
 * @returns The header.
 * @throws {TypeError} If the bytes are not a supported `.npy` header.
 * @throws {RangeError} If the header runs past `bytes`.
 *
 * @example Usage
 * ```ts
 * import { decodeNpyHeader, encodeNpy } from "./npy.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const header = decodeNpyHeader(encodeNpy(Tensor.zeros([3, 2], "int32")));
 * assertEquals([header.dtype, header.shape, header.dataOffset], ["int32", [3, 2], 128]);
 * ```
 */
export function decodeNpyHeader(bytes: Uint8Array): NpyHeader {
  if (bytes.length < 10 || MAGIC.some((b, i) => bytes[i] !== b)) {
    throw new TypeError("decode npy: not a .npy file (bad magic string)");
  }
  const [major, minor] = [bytes[6], bytes[7]];
  if (major < 1 || major > 3 || minor !== 0) {
    throw new TypeError(
      `decode npy: unsupported version ${major}.${minor} (NumPy writes 1.0, 2.0 and 3.0)`,
    );
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const prelude = major === 1 ? 10 : 12;
  if (bytes.length < prelude) {
    throw new RangeError("decode npy: the header runs past the end");
  }
  const headerLength = major === 1
    ? view.getUint16(8, true)
    : view.getUint32(8, true);
  if (headerLength > MAX_HEADER) {
    // NumPy refuses such a header unless told to trust the file.
    throw new TypeError(
      `decode npy: a header of ${headerLength} bytes is longer than NumPy reads (${MAX_HEADER})`,
    );
  }
  if (prelude + headerLength > bytes.length) {
    throw new RangeError(
      `decode npy: header of ${headerLength} bytes runs past the end`,
    );
  }
  const raw = bytes.subarray(prelude, prelude + headerLength);
  // Versions 1.0 and 2.0 are latin-1, 3.0 UTF-8 (NumPy's encodings).
  const header = major === 3
    ? new TextDecoder("utf-8", { fatal: true }).decode(raw)
    : String.fromCharCode(...raw);
  return { ...parseHeader(header, major), dataOffset: prelude + headerLength };
}

/**
 * Decodes `rows` rows of `.npy` data (the first dimension; a rank-0 array
 * has one) as described by `header`.
 *
 * @param header The file's header.
 * @param data The data bytes, starting at the first row wanted.
 * @param rows How many rows `data` holds.
 * @returns A tensor of shape `[rows, ...header.shape.slice(1)]` (the
 * header's shape itself when all rows of a rank-0 array are read).
 * @throws {RangeError} If `data` is too short.
 *
 * @example Usage
 * ```ts
 * import { decodeNpyHeader, decodeNpyRows, encodeNpy } from "./npy.ts";
 * import { Tensor } from "./tensor.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const bytes = encodeNpy(Tensor.fromArray([1, 2, 3, 4, 5, 6], "float32", [3, 2]));
 * const header = decodeNpyHeader(bytes);
 * const row = decodeNpyRows(header, bytes.subarray(header.dataOffset + 8), 1);
 * assertEquals(row.toNested(), [[3, 4]]);
 * ```
 */
export function decodeNpyRows(
  header: NpyHeader,
  data: Uint8Array,
  rows: number,
): Tensor {
  const { dtype } = header;
  const shape = header.shape.length === 0
    ? []
    : [rows, ...header.shape.slice(1)];
  const size = shapeSize(shape);
  const byteLength = size * itemSize(dtype);
  if (data.length < byteLength) {
    throw new RangeError(
      `decode npy: shape ${formatShape(shape)} of "${dtype}" needs ` +
        `${byteLength} data bytes, got ${data.length}`,
    );
  }
  const out = allocate(dtype, size);
  new Uint8Array(out.buffer, out.byteOffset, byteLength)
    .set(data.subarray(0, byteLength));
  if (dtype === "bool") {
    for (let i = 0; i < size; i++) {
      out[i] = out[i] !== 0 ? 1 : 0;
    }
  }
  return new Tensor(dtype, shape, out);
}

// The header's length once padded (with its closing newline) so that the
// data starts at a multiple of ALIGN.
function paddedHeaderLength(prelude: number, dictLength: number): number {
  return Math.ceil((prelude + dictLength + 1) / ALIGN) * ALIGN - prelude;
}

function parseHeader(
  header: string,
  major: number,
): { dtype: DType; shape: number[] } {
  const { descr, fortranOrder, shape: dims } = readHeaderDict(header, major);
  if (fortranOrder) {
    throw new TypeError("decode npy: fortran_order True is not supported");
  }
  const dtype = FROM_DESCR.get(descr.slice(1));
  if (descr[0] === ">" && dtype !== undefined && itemSize(dtype) > 1) {
    throw new TypeError(
      `decode npy: big-endian dtype "${descr}" is not supported`,
    );
  }
  if (dtype === undefined || !"<|=>".includes(descr[0])) {
    throw new TypeError(`decode npy: unsupported dtype "${descr}"`);
  }
  const shape = dims.map((d) => {
    if (d < 0n || d > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new TypeError(
        `decode npy: dimension ${d} of shape (${dims.join(", ")}) is ${
          d < 0n ? "negative" : "too large"
        }`,
      );
    }
    return Number(d);
  });
  return { dtype, shape };
}
