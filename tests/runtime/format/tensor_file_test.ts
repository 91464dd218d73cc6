// One-tensor files in either format: the first bytes decide, never the
// name; a Paddle file must end where its record ends.

import { assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
import { encodeNpy } from "../../../kernels/npy.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import { writePaddleTensor } from "../../../runtime/format/paddle_tensor.ts";
import {
  readTensorFile,
  sniffTensorFile,
} from "../../../runtime/format/tensor_file.ts";

const T = Tensor.fromArray([[1, 2], [3, 4]], "int32");

Deno.test("sniffTensorFile() tells .npy from Paddle's format by the first bytes", () => {
  assertEquals(sniffTensorFile(encodeNpy(T)), "npy");
  assertEquals(sniffTensorFile(writePaddleTensor(T)), "paddle");
  assertEquals(sniffTensorFile(writePaddleTensor(T).subarray(0, 4)), "paddle");
});

Deno.test("sniffTensorFile() names no format for other or too few bytes", () => {
  const others = [
    new Uint8Array(),
    new Uint8Array([0, 0, 0]),
    new Uint8Array([0x93, 0x4e, 0x55, 0x4d, 0x50]),
    new Uint8Array([1, 0, 0, 0, 0, 0, 0, 0]),
    new TextEncoder().encode("a,b\n1,2\n"),
  ];
  for (const bytes of others) assertEquals(sniffTensorFile(bytes), undefined);
});

Deno.test("readTensorFile() reads either format into the same tensor", () => {
  for (const bytes of [encodeNpy(T), writePaddleTensor(T)]) {
    const { tensor, lod } = readTensorFile(bytes);
    assertEquals([tensor.dtype, tensor.toNested(), lod], [
      "int32",
      [[1, 2], [3, 4]],
      [],
    ]);
  }
  assertEquals(readTensorFile(encodeNpy(T)).format, "npy");
  assertEquals(readTensorFile(writePaddleTensor(T)).format, "paddle");
});

Deno.test("readTensorFile() keeps a Paddle file's LoD", () => {
  const bytes = writePaddleTensor(T, [[0n, 1n, 2n]]);
  assertEquals(readTensorFile(bytes).lod, [[0n, 1n, 2n]]);
});

Deno.test("readTensorFile() rejects bytes after a Paddle record", () => {
  const bytes = writePaddleTensor(T);
  const e = assertThrows(
    () => readTensorFile(new Uint8Array([...bytes, 0, 0, 0, 0])),
    RangeError,
  );
  assertStringIncludes(e.message, `4 bytes left at byte ${bytes.length}`);
  assertStringIncludes(e.message, "dims [2, 2] of int32");
});

Deno.test("readTensorFile() rejects a file of neither format, showing its first bytes", () => {
  const e = assertThrows(
    () => readTensorFile(new TextEncoder().encode("not a tensor")),
    TypeError,
  );
  assertStringIncludes(e.message, "it starts 6e 6f 74 20 61 20 74 65");
  assertThrows(
    () => readTensorFile(new Uint8Array()),
    TypeError,
    "the file is empty",
  );
});
