/**
 * Tensors as blobs in a run's shared heap, for channels and arrays that
 * several workers share. A blob is its dtype, rank, dims and element bytes;
 * reading one back copies the elements into a new tensor, which the reader
 * then owns (tensors stay immutable on every worker).
 *
 * @module
 */
import { allocate } from "../../kernels/allocate.ts";
import { DTYPES, itemSize } from "../../kernels/dtype.ts";
import { Tensor } from "../../kernels/tensor.ts";
import type { SharedHeap } from "../../scheduler/shared/heap.ts";
import type { SharedCodec } from "../../scheduler/shared/shared_channel.ts";

// Words before the elements: dtype index, rank, then one per dim; the
// elements start 8-aligned.
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
 * const blob = heap.allocData(tensorCodec.byteLength(t));
 * tensorCodec.write(heap, blob, t);
 * heap.unlock();
 * assertEquals(tensorCodec.read(heap, blob).toNested(), [[1n, 2n], [3n, 4n]]);
 * ```
 */
export const tensorCodec: SharedCodec<Tensor> = {
  byteLength(t: Tensor): number {
    return headerBytes(t.rank) + t.data.byteLength;
  },
  write(heap: SharedHeap, off: number, t: Tensor): void {
    const i32 = heap.i32;
    const w = off >> 2;
    i32[w] = DTYPES.indexOf(t.dtype);
    i32[w + 1] = t.rank;
    for (let d = 0; d < t.rank; d++) i32[w + 2 + d] = t.shape[d];
    const data = t.data;
    heap.u8.set(
      new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      off + headerBytes(t.rank),
    );
  },
  read(heap: SharedHeap, off: number): Tensor {
    // Another worker may have grown the memory to make this blob.
    heap.cover(off + 8);
    const w = off >> 2;
    const rank = heap.i32[w + 1];
    heap.cover(off + headerBytes(rank));
    const i32 = heap.i32;
    const dtype = DTYPES[i32[w]];
    const shape = Array.from({ length: rank }, (_, d) => i32[w + 2 + d]);
    let size = 1;
    for (const d of shape) size *= d;
    const data = allocate(dtype, size);
    const start = off + headerBytes(rank);
    const end = start + size * itemSize(dtype);
    heap.cover(end);
    new Uint8Array(data.buffer, data.byteOffset, data.byteLength).set(
      heap.u8.subarray(start, end),
    );
    return new Tensor(dtype, shape, data);
  },
};
