/**
 * Tensors as blobs in a run's shared heap, for channels and arrays that
 * several workers share. A blob is its dtype, rank and dims, then either
 * the elements or, for a tensor whose storage is already in the heap
 * (shared_storage.ts), that storage's block (_tensor_blob.ts): such a
 * tensor crosses workers without a copy of its elements. Reading a blob of elements
 * copies them into a new tensor, which the reader then owns; reading a
 * blob by reference makes a view that holds the storage. Either way
 * tensors stay immutable on every worker.
 *
 * @module
 */
import { allocate } from "../../kernels/allocate.ts";
import { arrayType, type DType, type TypedArray } from "../../kernels/dtype.ts";
import { Tensor } from "../../kernels/tensor.ts";
import type { SharedHeap } from "../../scheduler/shared/heap.ts";
import type { SharedCodec } from "../../scheduler/shared/shared_channel.ts";
import { SharedStorage } from "./shared_storage.ts";
import {
  copyTensorElements,
  readTensorBlob,
  storageOfBlob,
  tensorBlobBytes,
  writeTensorBlob,
} from "./_tensor_blob.ts";

/**
 * The codec of tensor values.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { tensorCodec } from "./tensor_codec.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * const t = Tensor.fromArray([[1n, 2n], [3n, 4n]], "int64");
 * heap.lock();
 * const blob = heap.allocData(tensorCodec.byteLength(heap, t));
 * tensorCodec.write(heap, blob, t);
 * heap.unlock();
 * assertEquals(tensorCodec.read(heap, blob).toNested(), [[1n, 2n], [3n, 4n]]);
 * ```
 */
export const tensorCodec: Required<SharedCodec<Tensor>> = {
  byteLength(heap: SharedHeap, t: Tensor): number {
    const shared = SharedStorage.blockOf(heap.memory, t.data) !== undefined;
    return tensorBlobBytes(t, shared);
  },
  write(heap: SharedHeap, off: number, t: Tensor): void {
    const block = SharedStorage.blockOf(heap.memory, t.data);
    if (block !== undefined) SharedStorage.of(heap.memory)!.retain(block);
    writeTensorBlob(heap, off, t, block ?? 0);
  },
  read(heap: SharedHeap, off: number): Tensor {
    return readTensor(heap, off, allocate);
  },
  discard(heap: SharedHeap, off: number): void {
    const block = storageOfBlob(heap, off);
    if (block !== 0) SharedStorage.of(heap.memory)?.release(block);
  },
};

/**
 * Reads a tensor blob while the caller holds the heap's lock (a shared
 * tensor array's slot): as `tensorCodec.read`, except that a blob of
 * elements is copied into a private array. `allocate` could take a large
 * one from the heap's storage, whose allocation takes that same lock, and
 * the lock is not reentrant: the worker would wait for itself for ever.
 *
 * @param heap The run's heap; its lock is held.
 * @param off The blob.
 * @returns The tensor: a view of shared storage, or a private copy.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { Tensor } from "../../kernels/tensor.ts";
 * import { readTensorHeld, tensorCodec } from "./tensor_codec.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * const t = Tensor.fromArray([1, 2, 3], "float32");
 * heap.lock();
 * const blob = heap.allocData(tensorCodec.byteLength(heap, t));
 * tensorCodec.write(heap, blob, t);
 * assertEquals(readTensorHeld(heap, blob).toNested(), [1, 2, 3]);
 * heap.unlock();
 * ```
 */
export function readTensorHeld(heap: SharedHeap, off: number): Tensor {
  return readTensor(heap, off, privateArray);
}

function privateArray(dtype: DType, length: number): TypedArray {
  return new (arrayType(dtype))(length);
}

// A blob's tensor; a blob of elements is copied into `allocate`'s array.
function readTensor(
  heap: SharedHeap,
  off: number,
  allocate: (dtype: DType, length: number) => TypedArray,
): Tensor {
  const header = readTensorBlob(heap, off);
  const { dtype, shape, size } = header;
  if (header.block !== 0) {
    const storage = SharedStorage.of(heap.memory)!;
    return new Tensor(dtype, shape, storage.view(header.block, dtype, size));
  }
  const data = allocate(dtype, size);
  copyTensorElements(heap, header, data);
  return new Tensor(dtype, shape, data);
}
