import { assertEquals, assertThrows } from "@std/assert";
import { DTYPES, type Scalar } from "../../kernels/dtype.ts";
import { decodeNpy, encodeNpy } from "../../kernels/npy.ts";
import { Tensor } from "../../kernels/tensor.ts";

const SAMPLES: Record<string, Scalar[]> = {
  bool: [true, false, true, false, false, true],
  int8: [-128, 127, 0, 1, -1, 5],
  uint8: [0, 255, 1, 2, 3, 4],
  int16: [-32768, 32767, 0, 1, -1, 5],
  int32: [-(2 ** 31), 2 ** 31 - 1, 0, 1, -1, 5],
  int64: [-(2n ** 63n), 2n ** 63n - 1n, 2n ** 53n + 1n, 1n, -1n, 5n],
  float16: [0.1, 65504, -0.5, NaN, Infinity, 6e-8],
  float32: [0.1, 3.4e38, -0.5, NaN, -Infinity, 1e-45],
  float64: [0.1, 1.7e308, -0.5, NaN, Infinity, 5e-324],
};

// Builds a .npy file by hand: magic, version, header length, header, data.
function npyFile(major: number, dict: string, data: Uint8Array): Uint8Array {
  const prelude = major === 1 ? 10 : 12;
  const total = Math.ceil((prelude + dict.length + 1) / 64) * 64;
  const header = dict.padEnd(total - prelude - 1, " ") + "\n";
  const bytes = new Uint8Array(total + data.length);
  bytes.set([0x93, ...new TextEncoder().encode("NUMPY"), major, 0]);
  const view = new DataView(bytes.buffer);
  if (major === 1) view.setUint16(8, header.length, true);
  else view.setUint32(8, header.length, true);
  bytes.set(new TextEncoder().encode(header), prelude);
  bytes.set(data, total);
  return bytes;
}

for (const dtype of DTYPES) {
  Deno.test(`encodeNpy() and decodeNpy() round-trip ${dtype}`, () => {
    for (const shape of [[2, 3], [6], [3, 1, 2]]) {
      const t = Tensor.fromArray(SAMPLES[dtype], dtype, shape);
      const back = decodeNpy(encodeNpy(t));
      assertEquals([back.dtype, back.shape], [dtype, shape]);
      assertEquals([...back.data], [...t.data]);
    }
  });
}

Deno.test("encodeNpy() and decodeNpy() round-trip rank 0 and empty tensors", () => {
  const scalar = decodeNpy(encodeNpy(Tensor.fromArray([2.5], "float64", [])));
  assertEquals([scalar.shape, scalar.toNested()], [[], 2.5]);
  assertEquals(decodeNpy(encodeNpy(Tensor.zeros([0], "int32"))).shape, [0]);
  assertEquals(decodeNpy(encodeNpy(Tensor.zeros([2, 0], "int64"))).shape, [
    2,
    0,
  ]);
});

Deno.test("encodeNpy() writes NumPy's exact bytes for float32 [2, 3]", () => {
  const values = [1, 2, 3, 4, 5, 6];
  const data = new Uint8Array(new Float32Array(values).buffer);
  const expected = npyFile(
    1,
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
    data,
  );
  assertEquals(expected.length, 128 + 24);
  assertEquals(
    encodeNpy(Tensor.fromArray(values, "float32", [2, 3])),
    expected,
  );
});

Deno.test("encodeNpy() writes 1-D and rank-0 shapes as Python tuples", () => {
  const header = (t: Tensor) => {
    const bytes = encodeNpy(t);
    const length = bytes[8] | (bytes[9] << 8);
    return new TextDecoder().decode(bytes.subarray(10, 10 + length)).trim();
  };
  assertEquals(
    header(Tensor.fromArray([1, 2, 3], "int64")),
    "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }",
  );
  assertEquals(
    header(Tensor.fromArray([true], "bool", [])),
    "{'descr': '|b1', 'fortran_order': False, 'shape': (), }",
  );
});

Deno.test("decodeNpy() reads versions 2.0 and 3.0", () => {
  const data = new Uint8Array(new Int32Array([7, -8]).buffer);
  for (const major of [2, 3]) {
    const t = decodeNpy(
      npyFile(
        major,
        "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }",
        data,
      ),
    );
    assertEquals(t.toNested(), [7, -8]);
  }
});

Deno.test("decodeNpy() reads keys in any order and '=' or '>' on one-byte types", () => {
  const data = new Uint8Array([1, 2]);
  const t = decodeNpy(
    npyFile(1, "{'shape': (2,), 'fortran_order': False, 'descr': '>u1'}", data),
  );
  assertEquals([t.dtype, t.toNested()], ["uint8", [1, 2]]);
  const f = new Uint8Array(new Float64Array([1.5]).buffer);
  assertEquals(
    decodeNpy(
      npyFile(
        1,
        "{'descr': '=f8', 'fortran_order': False, 'shape': (1,), }",
        f,
      ),
    ).item(),
    1.5,
  );
});

Deno.test("decodeNpy() reads data at any byte offset", () => {
  const file = encodeNpy(Tensor.fromArray([1.25, -2], "float64"));
  const shifted = new Uint8Array(file.length + 3);
  shifted.set(file, 3);
  assertEquals(decodeNpy(shifted.subarray(3)).toNested(), [1.25, -2]);
});

Deno.test("decodeNpy() normalises bool bytes to 0 and 1", () => {
  const t = decodeNpy(
    npyFile(
      1,
      "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
      new Uint8Array([0, 2, 255]),
    ),
  );
  assertEquals([...t.data], [0, 1, 1]);
});

Deno.test("decodeNpy() rejects unsupported dtypes, orders and byte orders", () => {
  const data = new Uint8Array(16);
  const file = (dict: string) => npyFile(1, dict, data);
  assertThrows(
    () =>
      decodeNpy(
        file("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }"),
      ),
    TypeError,
    '"<c8"',
  );
  assertThrows(
    () =>
      decodeNpy(
        file("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }"),
      ),
    TypeError,
    "big-endian",
  );
  assertThrows(
    () =>
      decodeNpy(
        file("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }"),
      ),
    TypeError,
    "fortran_order",
  );
  assertThrows(
    () =>
      decodeNpy(
        file("{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }"),
      ),
    TypeError,
  );
  assertThrows(
    () => decodeNpy(file("{'descr': '<f4', 'shape': (1,), }")),
    TypeError,
  );
  assertThrows(
    () =>
      decodeNpy(
        file("{'descr': '<f4', 'fortran_order': False, 'shape': (1.5,), }"),
      ),
    TypeError,
  );
});

Deno.test("decodeNpy() rejects a bad magic string, version and short data", () => {
  assertThrows(
    () => decodeNpy(new TextEncoder().encode("not numpy at all")),
    TypeError,
  );
  const good = encodeNpy(Tensor.fromArray([1, 2], "float32"));
  const badVersion = good.slice();
  badVersion[6] = 9;
  assertThrows(() => decodeNpy(badVersion), TypeError);
  assertThrows(() => decodeNpy(good.subarray(0, good.length - 1)), RangeError);
  assertThrows(() => decodeNpy(good.subarray(0, 20)), RangeError);
});

Deno.test("decodeNpy() reads the last of two shape keys, as NumPy does", () => {
  const data = new Uint8Array(28 * 28 * 4);
  const t = decodeNpy(
    npyFile(
      1,
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 392), " +
        "'shape': (1, 1, 28, 28), }",
      data,
    ),
  );
  assertEquals(t.shape, [1, 1, 28, 28]);
});

Deno.test("decodeNpy() refuses minor versions, long headers and dims NumPy refuses, with exact numbers", () => {
  const good = encodeNpy(Tensor.fromArray([1, 2], "float32"));
  const minor = good.slice();
  minor[7] = 9;
  assertThrows(() => decodeNpy(minor), TypeError, "unsupported version 1.9");
  const long = npyFile(
    2,
    "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }" +
      " ".repeat(10000),
    new Uint8Array(4),
  );
  assertThrows(() => decodeNpy(long), TypeError, "longer than NumPy reads");
  const file = (shape: string) =>
    npyFile(
      1,
      `{'descr': '<f4', 'fortran_order': False, 'shape': ${shape}}`,
      new Uint8Array(4),
    );
  assertThrows(
    () => decodeNpy(file("(123456789012345678901, 2)")),
    TypeError,
    "dimension 123456789012345678901 of shape (123456789012345678901, 2) is too large",
  );
  assertThrows(() => decodeNpy(file("(-1,)")), TypeError, "is negative");
});
