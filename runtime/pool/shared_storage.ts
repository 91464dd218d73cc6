/**
 * Tensor storage in a run's shared heap, so that large tensors cross
 * workers without a copy of their elements and split kernels compute in
 * place.
 *
 * In a pooled run every worker installs its SharedStorage as the kernels'
 * source of large arrays (`setLargeArraySource`): arrays of at least
 * LARGE_ELEMENTS elements become typed-array views on the shared memory. A
 * blob that carries such a tensor holds the storage's offset instead of its
 * elements (tensor_codec.ts).
 *
 * A storage block is a header of holds and bytes, then the elements
 * (_storage_block.ts, which argues its invariants). A typed array's hold
 * ends when it is garbage collected (a FinalizationRegistry); a blob's when
 * the blob is freed.
 *
 * Why ballast: V8 counts a private ArrayBuffer's bytes toward its next
 * collection, but knows nothing of views on shared memory, so a loop that
 * makes large tensors would take fresh heap pages for each before a
 * finalizer runs, and a fresh page is expensive (on this VM filling a
 * fresh 4 MiB costs 12–27 ms, the same pages again under 1 ms:
 * bench/fresh_pages.ts). So each shared typed array carries, for as long
 * as it lives, a private ArrayBuffer of its byte size that is never
 * touched: a resizable one, whose pages V8 reserves and maps itself (no
 * memory of its own until written, about 20 µs) yet counts in full. A
 * collection then comes after about as many bytes of shared tensors as of
 * private ones, and the finalizers it queues run when the worker next
 * yields to the event loop (a time slice's end); the next arrays reuse
 * the blocks they free, whose pages are warm. Past BUDGET_BYTES live, new
 * arrays are private again.
 *
 * @module
 */
import {
  type LargeArraySource,
  setLargeArraySource,
} from "../../kernels/allocate.ts";
import type { DType, TypedArray } from "../../kernels/dtype.ts";
import { itemSize } from "../../kernels/dtype.ts";
import { Global, SharedMemoryExhausted } from "../../scheduler/shared/heap.ts";
import type { PoolMember } from "../../scheduler/shared/pool_member.ts";
import {
  elementsOf,
  initStorageBlock,
  releaseBlock,
  retainBlock,
  storageBlockSize,
} from "./_storage_block.ts";

const BUDGET_BYTES = 128 * 1024 * 1024;

type Holder = { readonly storage: SharedStorage; readonly block: number };

// Which storage block each shared typed array views, on this worker.
const homes = new WeakMap<TypedArray, Holder>();
// The ballast each shared typed array carries (see the top of this file).
const ballasts = new WeakMap<TypedArray, ArrayBuffer>();
const collected = new FinalizationRegistry<Holder>((h) =>
  h.storage.release(h.block)
);
// The SharedArrayBuffers each memory has shown this worker (a grown
// memory gives a new one; views on the old one stay valid).
const buffersOf = new WeakMap<WebAssembly.Memory, WeakSet<ArrayBufferLike>>();
// Each live run's storage on this worker, by its memory.
const byMemory = new Map<WebAssembly.Memory, SharedStorage>();

const VIEWS: Record<
  DType,
  new (b: SharedArrayBuffer, o: number, n: number) => TypedArray
> = {
  float16: Float16Array,
  float32: Float32Array,
  float64: Float64Array,
  int8: Int8Array,
  int16: Int16Array,
  int32: Int32Array,
  int64: BigInt64Array,
  uint8: Uint8Array,
  bool: Uint8Array,
};

/**
 * One worker's view of the tensor storage in a run's shared heap.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../../scheduler/scheduler.ts";
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { PoolMember } from "../../scheduler/shared/pool_member.ts";
 * import { createWakeRings } from "../../scheduler/shared/wake_ring.ts";
 * import { allocate, LARGE_ELEMENTS } from "../../kernels/allocate.ts";
 * import { SharedStorage } from "./shared_storage.ts";
 * import { assert, assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const member = new PoolMember(heap, 0, new Scheduler({ threadContext: false }));
 * const storage = SharedStorage.install(member);
 * const data = allocate("float32", LARGE_ELEMENTS);
 * assert(data.buffer instanceof SharedArrayBuffer);
 * const block = SharedStorage.blockOf(heap.memory, data)!;
 * assertEquals(storage.view(block, "float32", data.length)[0], 0);
 * storage.uninstall();
 * member.close();
 * ```
 */
export class SharedStorage {
  readonly #member: PoolMember;
  #previous: LargeArraySource | undefined;
  // The array the next large allocation of its dtype and length returns.
  #target: TypedArray | undefined;
  #installed = false;

  private constructor(member: PoolMember) {
    this.#member = member;
  }

  /**
   * Makes this worker's large arrays come from the run's heap until
   * `uninstall`.
   *
   * @param member This worker.
   * @returns The storage.
   */
  static install(member: PoolMember): SharedStorage {
    const storage = new SharedStorage(member);
    byMemory.set(member.heap.memory, storage);
    storage.#previous = setLargeArraySource((dtype, length) => {
      const target = storage.#target;
      if (target?.length === length && target.constructor === VIEWS[dtype]) {
        storage.#target = undefined;
        return target.fill(0 as never);
      }
      return storage.allocate(dtype, length);
    });
    storage.#installed = true;
    return storage;
  }

  /** Gives large arrays private buffers again (the run has ended). */
  uninstall(): void {
    if (!this.#installed) return;
    this.#installed = false;
    setLargeArraySource(this.#previous);
    byMemory.delete(this.#member.heap.memory);
  }

  /**
   * This worker's storage for a run's memory, while that run is installed.
   *
   * @param memory The run's memory.
   * @returns The storage, or `undefined`.
   */
  static of(memory: WebAssembly.Memory): SharedStorage | undefined {
    return byMemory.get(memory);
  }

  /**
   * The storage block that `data` views, if it lives in `memory`.
   *
   * @param memory A run's memory.
   * @param data A tensor's elements.
   * @returns The block's offset, or `undefined` for any other array.
   */
  static blockOf(
    memory: WebAssembly.Memory,
    data: TypedArray,
  ): number | undefined {
    const holder = homes.get(data);
    if (holder === undefined) return undefined;
    return holder.storage.#member.heap.memory === memory
      ? holder.block
      : undefined;
  }

  /**
   * Where `array` starts in `memory`, if it is a view on it (a shared
   * tensor's elements, or part of them).
   *
   * @param memory A run's memory.
   * @param array Any typed array.
   * @returns Its byte offset in the memory, or `undefined`.
   */
  static offsetIn(
    memory: WebAssembly.Memory,
    array: TypedArray,
  ): number | undefined {
    return buffersOf.get(memory)?.has(array.buffer)
      ? array.byteOffset
      : undefined;
  }

  /**
   * Calls `fn`, letting the first large array it allocates with the dtype
   * and length of `target` be `target` itself (zero-filled), so that a
   * kernel called on part of a split operator writes its result in place.
   *
   * @param target Where the result should go.
   * @param fn The kernel call.
   * @returns What `fn` returns.
   */
  into<R>(target: TypedArray, fn: () => R): R {
    this.#target = target;
    try {
      return fn();
    } finally {
      this.#target = undefined;
    }
  }

  /**
   * A typed array over `memory` at a byte offset, for use while its owner
   * keeps the storage alive (it takes no hold).
   *
   * @param memory A run's memory.
   * @param dtype The element type.
   * @param at The byte offset.
   * @param length The element count.
   * @returns The view.
   */
  static viewIn(
    memory: WebAssembly.Memory,
    dtype: DType,
    at: number,
    length: number,
  ): TypedArray {
    return new VIEWS[dtype](memory.buffer as SharedArrayBuffer, at, length);
  }

  /**
   * A new array in the heap, held by this worker, or `undefined` when the
   * budget or the memory is used up.
   *
   * @param dtype The element type.
   * @param length The element count.
   * @param zeroed Whether to zero it (`allocate`'s contract); a caller that
   * writes every element says false and saves a pass over it.
   * @returns The array, or `undefined`.
   */
  allocate(
    dtype: DType,
    length: number,
    zeroed = true,
  ): TypedArray | undefined {
    const bytes = length * itemSize(dtype);
    const member = this.#member;
    const heap = member.heap;
    if (Atomics.load(heap.i32, Global.StorageBytes) + bytes > BUDGET_BYTES) {
      return undefined;
    }
    let block: number;
    let fresh: boolean;
    member.lock();
    try {
      block = heap.allocData(storageBlockSize(bytes));
      fresh = heap.lastDataFresh;
    } catch (error) {
      if (error instanceof SharedMemoryExhausted) return undefined;
      throw error;
    } finally {
      member.unlock();
    }
    initStorageBlock(heap, block, bytes);
    // A reused block holds an earlier tensor's elements. A fresh one is
    // left untouched: the kernel that fills it maps its pages, split over
    // the workers when the kernel is.
    if (zeroed && !fresh) {
      const at = elementsOf(block);
      heap.u8To(at + bytes).fill(0, at, at + bytes);
    }
    return this.#hold(block, dtype, length);
  }

  /**
   * A typed array over an existing block, for a reader on this worker; it
   * takes a hold of its own.
   *
   * @param block The block.
   * @param dtype The element type.
   * @param length The element count.
   * @returns The array.
   */
  view(block: number, dtype: DType, length: number): TypedArray {
    retainBlock(this.#member.heap, block);
    return this.#hold(block, dtype, length);
  }

  /**
   * Adds a holder (a blob that refers to the block).
   *
   * @param block The block.
   */
  retain(block: number): void {
    retainBlock(this.#member.heap, block);
  }

  /**
   * Ends a hold; the last frees the block.
   *
   * @param block The block.
   */
  release(block: number): void {
    if (releaseBlock(this.#member.heap, block)) {
      this.#member.freeDataLater(block);
    }
  }

  #hold(block: number, dtype: DType, length: number): TypedArray {
    const memory = this.#member.heap.memory;
    const buffer = memory.buffer as SharedArrayBuffer;
    let buffers = buffersOf.get(memory);
    if (buffers === undefined) buffersOf.set(memory, buffers = new WeakSet());
    buffers.add(buffer);
    // Made over the memory's current buffer: it reaches the block even
    // when this worker's views of the heap do not.
    const data = new VIEWS[dtype](buffer, elementsOf(block), length);
    const holder = { storage: this, block };
    homes.set(data, holder);
    const bytes = data.byteLength;
    ballasts.set(data, new ArrayBuffer(bytes, { maxByteLength: bytes }));
    collected.register(data, holder);
    return data;
  }
}
