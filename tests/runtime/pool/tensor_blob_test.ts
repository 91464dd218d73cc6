// Tensor blobs: the dtype word, rank and dims, then the elements or a
// storage block, read by workers whose views end before the blob.

import { assertEquals } from "@std/assert";
import {
  BY_REFERENCE,
  copyTensorElements,
  readTensorBlob,
  storageOfBlob,
  TensorBlob,
  tensorBlobBytes,
  tensorHeaderBytes,
  writeTensorBlob,
} from "../../../runtime/pool/_tensor_blob.ts";
import { DTYPES } from "../../../kernels/dtype.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import { SharedHeap } from "../../../scheduler/shared/heap.ts";
import {
  assertBeyondViews,
  grownHeap,
} from "../../scheduler/shared/_grown_heap.ts";

const t = Tensor.fromArray([[1, 2, 3], [4, 5, 6]], "int32");
const BLOCK = 1 << 28; // a storage block's offset, for blobs by reference

function written(heap: SharedHeap, x: Tensor, block: number): number {
  heap.lock();
  const blob = heap.allocData(tensorBlobBytes(x, block !== 0));
  heap.unlock();
  writeTensorBlob(heap, blob, x, block);
  return blob;
}

function readBack(heap: SharedHeap, blob: number): Tensor {
  const header = readTensorBlob(heap, blob);
  const data = new Int32Array(header.size);
  copyTensorElements(heap, header, data);
  return new Tensor(header.dtype, header.shape, data);
}

Deno.test("writeTensorBlob() puts dtype, rank and dims at their TensorBlob words, the elements after the header", () => {
  const heap = SharedHeap.create();
  const blob = written(heap, t, 0);
  const w = blob >> 2;
  assertEquals(heap.i32[w + TensorBlob.Dtype], DTYPES.indexOf("int32"));
  assertEquals(heap.i32[w + TensorBlob.Rank], 2);
  assertEquals(
    [heap.i32[w + TensorBlob.Dims], heap.i32[w + TensorBlob.Dims + 1]],
    [2, 3],
  );
  const at = blob + tensorHeaderBytes(2);
  assertEquals(at % 8, 0);
  assertEquals([...heap.i32.subarray(at >> 2, (at >> 2) + 6)], [
    1,
    2,
    3,
    4,
    5,
    6,
  ]);
  assertEquals(tensorBlobBytes(t, false), at + 24 - blob);
});

Deno.test("writeTensorBlob() by reference sets BY_REFERENCE and names the block after the header", () => {
  const heap = SharedHeap.create();
  const blob = written(heap, t, BLOCK);
  const w = blob >> 2;
  assertEquals(
    heap.i32[w + TensorBlob.Dtype],
    DTYPES.indexOf("int32") | BY_REFERENCE,
  );
  assertEquals(heap.i32[(blob + tensorHeaderBytes(2)) >> 2], BLOCK);
  const header = readTensorBlob(heap, blob);
  assertEquals([header.dtype, header.shape, header.size], ["int32", [2, 3], 6]);
  assertEquals(header.block, BLOCK);
  assertEquals(storageOfBlob(heap, blob), BLOCK);
});

Deno.test("readTensorBlob() and copyTensorElements() read back every rank, scalars included", () => {
  const heap = SharedHeap.create();
  for (
    const x of [
      Tensor.scalar(7, "int32"),
      Tensor.fromArray([1, 2], "int32"),
      t,
      Tensor.zeros([0, 4], "int32"),
    ]
  ) {
    const back = readBack(heap, written(heap, x, 0));
    assertEquals(back.shape, x.shape);
    assertEquals(back.toNested(), x.toNested());
    assertEquals(storageOfBlob(heap, written(heap, x, 0)), 0);
  }
});

Deno.test("readTensorBlob(), copyTensorElements() and storageOfBlob() read a blob beyond this worker's views", () => {
  const { heap, stale } = grownHeap();
  const own = written(heap, t, 0);
  const byRef = written(heap, t, BLOCK);
  assertBeyondViews(stale, own);
  assertEquals(storageOfBlob(stale, byRef), BLOCK);
  const other = grownHeap();
  const blob = written(other.heap, t, 0);
  assertBeyondViews(other.stale, blob);
  assertEquals(readBack(other.stale, blob).toNested(), t.toNested());
  assertEquals(readBack(stale, own).toNested(), t.toNested());
});

Deno.test("writeTensorBlob() covers a blob beyond this worker's views", () => {
  const { heap, stale } = grownHeap();
  heap.lock();
  const blob = heap.allocData(tensorBlobBytes(t, false));
  heap.unlock();
  assertBeyondViews(stale, blob);
  writeTensorBlob(stale, blob, t, 0);
  assertEquals(readBack(heap, blob).toNested(), t.toNested());
});
