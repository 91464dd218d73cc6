/**
 * Tensors as blobs in a run's shared heap, for channels and arrays that
 * several workers share. A blob is its dtype, rank and dims, then either
 * the elements or, for a tensor whose storage is already in the heap
 * (shared_storage.ts), that storage's offset: such a tensor crosses
 * workers without a copy of its elements. Reading a blob of elements
 * copies them into a new tensor, which the reader then owns; reading a
 * blob by reference makes a view that holds the storage. Either way
 * tensors stay immutable on every worker.
 *
 * @module
 */
import { allocate } from "../../kernels/allocate.ts";
import {
  arrayType,
  type DType,
  DTYPES,
  itemSize,
  type TypedArray,
} from "../../kernels/dtype.ts";
import { Tensor } from "../../kernels/tensor.ts";
import type { SharedHeap } from "../../scheduler/shared/heap.ts";
import type { SharedCodec } from "../../scheduler/shared/shared_channel.ts";
import { SharedStorage } from "./shared_storage.ts";

// Words before the elements: dtype index, rank, then one per dim; the
// elements start 8-aligned.
// The dtype word's flag for a blob that refers to shared storage.
const BY_REFERENCE = 0x100;

function headerBytes(rank: number): number {
  return ((2 + rank) * 4 + 7) & ~7;
}

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
    return headerBytes(t.rank) + (shared ? 8 : t.data.byteLength);
  },
  write(heap: SharedHeap, off: number, t: Tensor): void {
    const i32 = heap.i32;
    const w = off >> 2;
    const block = SharedStorage.blockOf(heap.memory, t.data);
    i32[w] = DTYPES.indexOf(t.dtype) | (block === undefined ? 0 : BY_REFERENCE);
    i32[w + 1] = t.rank;
    for (let d = 0; d < t.rank; d++) i32[w + 2 + d] = t.shape[d];
    const at = off + headerBytes(t.rank);
    if (block !== undefined) {
      SharedStorage.of(heap.memory)!.retain(block);
      i32[at >> 2] = block;
      return;
    }
    const data = t.data;
    heap.u8.set(
      new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      at,
    );
  },
  read(heap: SharedHeap, off: number): Tensor {
    return readTensor(heap, off, allocate);
  },
  discard(heap: SharedHeap, off: number): void {
    heap.cover(off + 8); // a blob another worker made, maybe past our views
    const w = off >> 2;
    if ((heap.i32[w] & BY_REFERENCE) === 0) return;
    const at = off + headerBytes(heap.i32[w + 1]);
    heap.cover(at + 4);
    SharedStorage.of(heap.memory)?.release(heap.i32[at >> 2]);
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
  // Another worker may have grown the memory to make this blob.
  heap.cover(off + 8);
  const w = off >> 2;
  const rank = heap.i32[w + 1];
  heap.cover(off + headerBytes(rank) + 8);
  const i32 = heap.i32;
  const dtype = DTYPES[i32[w] & ~BY_REFERENCE];
  const shape = Array.from({ length: rank }, (_, d) => i32[w + 2 + d]);
  let size = 1;
  for (const d of shape) size *= d;
  const start = off + headerBytes(rank);
  if ((i32[w] & BY_REFERENCE) !== 0) {
    const storage = SharedStorage.of(heap.memory)!;
    return new Tensor(
      dtype,
      shape,
      storage.view(i32[start >> 2], dtype, size),
    );
  }
  const data = allocate(dtype, size);
  const end = start + size * itemSize(dtype);
  heap.cover(end);
  new Uint8Array(data.buffer, data.byteOffset, data.byteLength).set(
    heap.u8.subarray(start, end),
  );
  return new Tensor(dtype, shape, data);
}
