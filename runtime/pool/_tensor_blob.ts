/**
 * A tensor blob: a tensor value in a run's shared heap, as shared channels
 * and arrays carry it (tensor_codec.ts): in a blob of the data arena, or
 * inline in a value area (scheduler/shared/_values.ts).
 *
 *   word TensorBlob.Dtype   the dtype's index in DTYPES, with BY_REFERENCE
 *                           set when the elements are in shared storage
 *   word TensorBlob.Rank    the rank r
 *   words TensorBlob.Dims   the r dims
 *   then, from `tensorHeaderBytes(r)` (the first 8-aligned byte after the
 *   dims): the elements, or, by reference, one word naming their storage
 *   block (_storage_block.ts)
 *
 * Invariants:
 *   A blob is written whole by one worker before it is published (in a
 *   value area, a ring slot, an array's slot, a spawn blob) and never
 *   changes after.
 *   A blob by reference holds one hold on its storage block, taken by its
 *   writer and dropped when the blob is discarded (tensor_codec.ts).
 *   Its readers may be other workers, whose views may end before it (the
 *   writer may have grown the memory to make it): every helper here covers
 *   what it touches, the rank before the dims, the dims before the rest.
 *
 * @module
 */
import { type DType, DTYPES, type TypedArray } from "../../kernels/dtype.ts";
import type { Tensor } from "../../kernels/tensor.ts";
import type { SharedHeap } from "../../scheduler/shared/heap.ts";

/**
 * A tensor blob's words (word indices from the blob's first word).
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { TensorBlob, tensorBlobBytes, writeTensorBlob } from "./_tensor_blob.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * const t = Tensor.zeros([2, 3], "float32");
 * heap.lock();
 * const blob = heap.allocData(tensorBlobBytes(t, false));
 * heap.unlock();
 * writeTensorBlob(heap, blob, t, 0);
 * const w = blob >> 2;
 * assertEquals(heap.i32[w + TensorBlob.Rank], 2);
 * assertEquals(heap.i32[w + TensorBlob.Dims + 1], 3);
 * ```
 */
export const TensorBlob = {
  /** The dtype's index in DTYPES, or'd with BY_REFERENCE. */
  Dtype: 0,
  /** The rank. */
  Rank: 1,
  /** The first dim; the others follow. */
  Dims: 2,
} as const;

/**
 * The Dtype word's flag for a blob whose elements are in shared storage.
 *
 * @example Usage
 * ```ts
 * import { BY_REFERENCE } from "./_tensor_blob.ts";
 * import { DTYPES } from "../../kernels/dtype.ts";
 * import { assert } from "@std/assert";
 *
 * assert(BY_REFERENCE > DTYPES.length); // leaves every dtype index as it is
 * ```
 */
export const BY_REFERENCE = 0x100;

/**
 * Where the elements (or the storage word) of a blob of rank `rank` start,
 * from the blob's start: the first 8-aligned byte after the dims.
 *
 * @param rank The rank.
 * @returns A byte count.
 *
 * @example Usage
 * ```ts
 * import { tensorHeaderBytes } from "./_tensor_blob.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals([0, 1, 2].map(tensorHeaderBytes), [8, 16, 16]);
 * ```
 */
export function tensorHeaderBytes(rank: number): number {
  return ((TensorBlob.Dims + rank) * 4 + 7) & ~7;
}

/**
 * The size of `t`'s blob: with its elements, or by reference to storage.
 *
 * @param t The tensor.
 * @param byReference Whether the blob names `t`'s storage block.
 * @returns The blob's size in bytes.
 *
 * @example Usage
 * ```ts
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { tensorBlobBytes } from "./_tensor_blob.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const t = Tensor.zeros([4], "float64");
 * assertEquals(tensorBlobBytes(t, false), 16 + 32);
 * assertEquals(tensorBlobBytes(t, true), 16 + 8);
 * ```
 */
export function tensorBlobBytes(t: Tensor, byReference: boolean): number {
  return tensorHeaderBytes(t.rank) + (byReference ? 8 : t.data.byteLength);
}

/**
 * Writes `t` as a blob at `off`, of `tensorBlobBytes` bytes: by reference
 * to storage block `block` (whose hold for it the caller takes), or with
 * its elements when `block` is 0.
 *
 * @param heap The heap.
 * @param off The blob.
 * @param t The tensor.
 * @param block Its storage block, or 0 to copy its elements.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { readTensorBlob, tensorBlobBytes, writeTensorBlob } from "./_tensor_blob.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * const t = Tensor.fromArray([1, 2], "int32");
 * heap.lock();
 * const blob = heap.allocData(tensorBlobBytes(t, false));
 * heap.unlock();
 * writeTensorBlob(heap, blob, t, 0);
 * const { dtype, shape, block } = readTensorBlob(heap, blob);
 * assertEquals([dtype, shape, block], ["int32", [2], 0]);
 * ```
 */
export function writeTensorBlob(
  heap: SharedHeap,
  off: number,
  t: Tensor,
  block: number,
): void {
  const at = off + tensorHeaderBytes(t.rank);
  const data = t.data;
  const i32 = heap.i32To(at + (block !== 0 ? 4 : data.byteLength));
  const w = off >> 2;
  i32[w + TensorBlob.Dtype] = DTYPES.indexOf(t.dtype) |
    (block !== 0 ? BY_REFERENCE : 0);
  i32[w + TensorBlob.Rank] = t.rank;
  for (let d = 0; d < t.rank; d++) i32[w + TensorBlob.Dims + d] = t.shape[d];
  if (block !== 0) {
    i32[at >> 2] = block;
    return;
  }
  heap.u8.set(
    new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    at,
  );
}

/**
 * What a tensor blob's header says (`readTensorBlob`).
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import {
 *   readTensorBlob,
 *   type TensorBlobHeader,
 *   tensorBlobBytes,
 *   writeTensorBlob,
 * } from "./_tensor_blob.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * const t = Tensor.zeros([2], "uint8");
 * heap.lock();
 * const blob = heap.allocData(tensorBlobBytes(t, false));
 * heap.unlock();
 * writeTensorBlob(heap, blob, t, 0);
 * const header: TensorBlobHeader = readTensorBlob(heap, blob);
 * assertEquals(header.elements, blob + 16); // after the dtype, rank and dim
 * ```
 */
export interface TensorBlobHeader {
  /** The element type. */
  readonly dtype: DType;
  /** The dims. */
  readonly shape: number[];
  /** The element count. */
  readonly size: number;
  /** The storage block holding the elements, or 0 when the blob does. */
  readonly block: number;
  /** Where the blob's own elements start (when `block` is 0). */
  readonly elements: number;
}

/**
 * Reads a blob's header (and, by reference, its storage block).
 *
 * @param heap The heap.
 * @param off The blob.
 * @returns The header.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { readTensorBlob, tensorBlobBytes, writeTensorBlob } from "./_tensor_blob.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * const t = Tensor.zeros([3, 5], "float32");
 * heap.lock();
 * const blob = heap.allocData(tensorBlobBytes(t, true));
 * heap.unlock();
 * writeTensorBlob(heap, blob, t, 1 << 28); // as if t lived in that block
 * const header = readTensorBlob(heap, blob);
 * assertEquals([header.shape, header.size, header.block], [[3, 5], 15, 1 << 28]);
 * ```
 */
export function readTensorBlob(
  heap: SharedHeap,
  off: number,
): TensorBlobHeader {
  const w = off >> 2;
  const rank = heap.i32To(off + 4 * TensorBlob.Dims)[w + TensorBlob.Rank];
  const at = off + tensorHeaderBytes(rank);
  const i32 = heap.i32To(at);
  const word = i32[w + TensorBlob.Dtype];
  const shape: number[] = new Array(rank);
  let size = 1;
  for (let d = 0; d < rank; d++) {
    shape[d] = i32[w + TensorBlob.Dims + d];
    size *= shape[d];
  }
  const block = (word & BY_REFERENCE) !== 0 ? heap.i32To(at + 4)[at >> 2] : 0;
  return {
    dtype: DTYPES[word & ~BY_REFERENCE],
    shape,
    size,
    block,
    elements: at,
  };
}

/**
 * Copies a blob's own elements into `data`, which has room for them.
 *
 * @param heap The heap.
 * @param header The blob's header, from `readTensorBlob` (`block` 0).
 * @param data Where they go.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import {
 *   copyTensorElements,
 *   readTensorBlob,
 *   tensorBlobBytes,
 *   writeTensorBlob,
 * } from "./_tensor_blob.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * const t = Tensor.fromArray([1.5, 2.5], "float64");
 * heap.lock();
 * const blob = heap.allocData(tensorBlobBytes(t, false));
 * heap.unlock();
 * writeTensorBlob(heap, blob, t, 0);
 * const data = new Float64Array(2);
 * copyTensorElements(heap, readTensorBlob(heap, blob), data);
 * assertEquals([...data], [1.5, 2.5]);
 * ```
 */
export function copyTensorElements(
  heap: SharedHeap,
  header: TensorBlobHeader,
  data: TypedArray,
): void {
  const start = header.elements;
  const end = start + data.byteLength;
  new Uint8Array(data.buffer, data.byteOffset, data.byteLength).set(
    heap.u8To(end).subarray(start, end),
  );
}

/**
 * The storage block a blob refers to, without reading the rest.
 *
 * @param heap The heap.
 * @param off The blob.
 * @returns The block, or 0 when the blob holds its elements.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { storageOfBlob, tensorBlobBytes, writeTensorBlob } from "./_tensor_blob.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * const t = Tensor.zeros([2], "int32");
 * heap.lock();
 * const [a, b] = [true, false].map((r) => heap.allocData(tensorBlobBytes(t, r)));
 * heap.unlock();
 * writeTensorBlob(heap, a, t, 1 << 28);
 * writeTensorBlob(heap, b, t, 0);
 * assertEquals([storageOfBlob(heap, a), storageOfBlob(heap, b)], [1 << 28, 0]);
 * ```
 */
export function storageOfBlob(heap: SharedHeap, off: number): number {
  const w = off >> 2;
  const i32 = heap.i32To(off + 4 * TensorBlob.Dims);
  if ((i32[w + TensorBlob.Dtype] & BY_REFERENCE) === 0) return 0;
  const at = off + tensorHeaderBytes(i32[w + TensorBlob.Rank]);
  return heap.i32To(at + 4)[at >> 2];
}
