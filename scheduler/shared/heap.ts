// The memory that the workers of one run share: one shared
// WebAssembly.Memory that every worker maps, a lock that guards every
// shared object in it, and two allocators.
//
// Why one lock for everything: a select over channels of several workers
// must fire exactly one case and leave no waiter behind. Under one lock,
// a waker completes a case and unlinks the select's other waiters in one
// step, as the single-worker channels do; per-channel locks would need
// Go's lock ordering and lazy removal of stale waiters. Critical sections
// are a few dozen loads and stores. The one exception is a buffered
// channel's ring, which senders and receivers use without this lock while
// nobody waits on the channel (see _ring.ts).
//
// Layout: the first page holds the lock and the run's global words (below);
// the control arena [CONTROL_START, CONTROL_END) holds channels, waiters,
// selects, wake rings and arrays, and never moves beyond the memory's
// initial size, so every worker's views always cover it; blobs (values in
// transit) and the rings of buffered channels come from the data arena
// above it, which grows the memory on demand. A block is an 8-byte header
// (its size class) and then the caller's bytes; a free block's first word
// links its free list, so a block's first word is lost once it is freed.
//
// The layouts in the heap. Each is declared once, in the module named
// here, whose top argues it: what each word means, who writes it, under
// what lock or ordering. Offsets are byte offsets; a layout names its
// words as indices from its first word, `off >> 2`. C: in the control
// arena; D: in the data arena.
//
//   the global words, the block header      heap.ts (Global)           -
//   the worker table and its wake rings     wake_ring.ts               C
//   channel, waiter and select records      _records.ts                C
//   value areas (in waiters, ring slots     _values.ts                 C D
//     and each worker's scratch area)
//   a buffered channel's ring               _ring.ts                   D
//   an unbuffered channel's rendezvous      _rendezvous.ts (C_SLOT)    C
//     slot
//   and the runtime's, in runtime/pool/:
//   byte blobs (raw values, split plans)    _byte_blob.ts              D
//   the print log (Global.LogHead, LogTail) _print_log.ts              D
//   spawn blobs                             _spawn_blob.ts             D
//   parallel_for iteration queues           _iteration_queue.ts        D
//   tensor blobs                            _tensor_blob.ts            C D
//   storage blocks (Global.StorageBytes)    _storage_block.ts          D
//   shared tensor array records and slots   _array_record.ts           C
//   row-split tickets, and the words of     row_split.ts,              C
//     their jobs (a split product, a        parallel_gemm.ts,
//     split elementwise call)               parallel_kernels.ts
//
// Growth: a block in the data arena that another worker allocated may lie
// past this worker's views, if that worker grew the memory to make it. A
// write through views that end before the block is lost without an error,
// a read gives undefined, an Atomics operation throws. So a layout's
// helpers reach such a block through `i32To`, `u8To` and `f64To`, which
// cover it first, and callers never cover by hand; a layout in the control
// arena needs no cover, and its header says so.
//
// Invariants:
//   The lock word is 0 (free), 1 (held) or 2 (held, maybe with waiters).
//   Every allocation and free, and every read or write of a shared object's
//   words, happens with the lock held, except where a comment says why not
//   (the rings of buffered channels, the wake rings' doorbells, the global
//   counters, which are Atomics).
//   A free block is on exactly one free list (its size class's); a live
//   block is on none. Blocks never move and never merge.

/** Word indices (Int32) of the run's global words, in the first page. */
export const Global = {
  /**
   * The lock: 0 free, 1 held, 2 held with possible waiters. Alone on its
   * cache line (bytes 1024..1087), away from the counters that every
   * worker updates without it.
   */
  Lock: 256,
  /** Live threads that are not blocked, plus pending work, on all workers. */
  Active: 1,
  /** How many times Active went from 0 to 1. */
  Epoch: 2,
  /** The next green thread id of the run. */
  NextThreadId: 3,
  /** The next shared object's id (channels in dumps). */
  NextObjectId: 4,
  /** The bump pointer of the control arena (bytes). */
  ControlTop: 5,
  /** The bump pointer of the data arena (bytes). */
  DataTop: 6,
  /** 1 once the run has ended: workers stop. */
  Ended: 7,
  /** The offset of the worker table (see wake_ring.ts). */
  Workers: 8,
  /** The head and tail of the run's print log (runtime/pool/_print_log.ts). */
  LogHead: 9,
  LogTail: 10,
  /**
   * Bytes of tensor storage live in the data arena
   * (runtime/pool/_storage_block.ts).
   */
  StorageBytes: 11,
  /**
   * Rows of split operators that a worker computed for another worker's
   * call (runtime/pool/row_split.ts): zero while no operator has really
   * been split.
   */
  HelpedRows: 12,
  /** The first of the size classes' free-list heads, control then data. */
  FreeLists: 16,
} as const;

const PAGE = 65536;
const CLASS_COUNT = 96;
/** Where the control arena starts and ends (bytes). */
const CONTROL_START = PAGE * 2;
// 128 MiB: room for a million parked threads' waiters (80 bytes each).
const CONTROL_END = 128 * 1024 * 1024;
/** The memory's initial size: the control arena plus room for data. */
const INITIAL_PAGES = 4096; // 256 MiB of address space, touched lazily
const MAXIMUM_PAGES = 65536; // 4 GiB
// A block's header: its size class, 8 bytes so that data stays 8-aligned.
const HEADER = 8;

// Block sizes (header included): 16, 24, 32, 48, 64, then steps of about
// 1/4 of the size, multiples of 16, so no block wastes more than ~25%.
const CLASS_SIZES: readonly number[] = (() => {
  const sizes = [16, 24, 32, 48, 64];
  while (sizes.length < CLASS_COUNT) {
    const last = sizes[sizes.length - 1];
    sizes.push(Math.ceil((last * 1.25) / 16) * 16);
  }
  return sizes;
})();

function classOf(bytes: number): number {
  let lo = 0;
  let hi = CLASS_COUNT - 1;
  if (bytes > CLASS_SIZES[hi]) {
    throw new RangeError(`shared heap: ${bytes} bytes is too large`);
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (CLASS_SIZES[mid] >= bytes) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Thrown when a shared arena is full: the run cannot go on. */
export class SharedMemoryExhausted extends RangeError {}

/**
 * One run's shared memory, as seen from one worker: the lock, the global
 * words, and allocation of control records and data blobs.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "./heap.ts";
 * import { assert, assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const a = heap.allocControl(40);
 * heap.freeControl(a);
 * assertEquals(heap.allocControl(40), a); // reused
 * heap.i32[a >> 2] = 7;
 * heap.unlock();
 * // Another worker maps the same memory.
 * const other = new SharedHeap(heap.memory);
 * assert(other.i32[a >> 2] === 7);
 * ```
 */
export class SharedHeap {
  /** The shared memory. */
  readonly memory: WebAssembly.Memory;
  /** The memory as 32-bit words; refreshed when the memory grows. */
  i32: Int32Array;
  /** The memory as bytes; refreshed with `i32`. */
  u8: Uint8Array;
  /** The memory as 64-bit floats; refreshed with `i32`. */
  f64: Float64Array;
  #lastDataFresh = false;

  /**
   * Maps an existing shared memory (made by `SharedHeap.create`).
   *
   * @param memory The run's memory.
   */
  constructor(memory: WebAssembly.Memory) {
    this.memory = memory;
    this.i32 = new Int32Array(memory.buffer);
    this.u8 = new Uint8Array(memory.buffer);
    this.f64 = new Float64Array(memory.buffer);
  }

  /**
   * Makes a new run's shared memory.
   *
   * @returns The heap over it.
   */
  static create(): SharedHeap {
    const memory = new WebAssembly.Memory({
      initial: INITIAL_PAGES,
      maximum: MAXIMUM_PAGES,
      shared: true,
    });
    const heap = new SharedHeap(memory);
    heap.i32[Global.ControlTop] = CONTROL_START;
    heap.i32[Global.DataTop] = CONTROL_END;
    heap.i32[Global.NextThreadId] = 2; // the main thread is 1
    heap.i32[Global.NextObjectId] = 1;
    return heap;
  }

  /**
   * Takes the lock, spinning briefly, then sleeping (Atomics.wait, which
   * Deno allows on the main thread too) until it is released.
   */
  lock(): void {
    const i32 = this.i32;
    if (Atomics.compareExchange(i32, Global.Lock, 0, 1) === 0) return;
    for (let spin = 0; spin < 1000; spin++) {
      if (
        Atomics.load(i32, Global.Lock) === 0 &&
        Atomics.compareExchange(i32, Global.Lock, 0, 1) === 0
      ) return;
    }
    // Mark the lock contended; whoever releases it then wakes a sleeper.
    while (Atomics.exchange(i32, Global.Lock, 2) !== 0) {
      Atomics.wait(i32, Global.Lock, 2);
    }
  }

  /** Releases the lock. Precondition: held by this worker. */
  unlock(): void {
    const i32 = this.i32;
    if (Atomics.sub(i32, Global.Lock, 1) !== 1) {
      Atomics.store(i32, Global.Lock, 0);
      Atomics.notify(i32, Global.Lock, 1);
    }
  }

  /**
   * Allocates a zeroed control record of `bytes` bytes. Precondition: the
   * lock is held.
   *
   * @param bytes The size.
   * @returns Its byte offset, 8-aligned.
   * @throws {SharedMemoryExhausted} When the control arena is full.
   */
  allocControl(bytes: number): number {
    const off = this.#alloc(bytes, 0, Global.ControlTop, CONTROL_END);
    this.u8.fill(0, off, off + bytes);
    return off;
  }

  /**
   * Frees a control record. Precondition: the lock is held.
   *
   * @param off Its offset, from `allocControl`.
   */
  freeControl(off: number): void {
    this.#free(off, 0);
  }

  /**
   * Allocates a data blob of `bytes` bytes (not zeroed), growing the memory
   * when needed. Precondition: the lock is held.
   *
   * @param bytes The size.
   * @returns Its byte offset, 8-aligned.
   * @throws {SharedMemoryExhausted} When the memory cannot grow.
   */
  allocData(bytes: number): number {
    const top = this.i32[Global.DataTop];
    const off = this.#alloc(
      bytes,
      CLASS_COUNT,
      Global.DataTop,
      MAXIMUM_PAGES * PAGE,
    );
    this.#lastDataFresh = off - HEADER === top;
    return off;
  }

  /**
   * Whether the block that this worker's last `allocData` returned lay in
   * memory no block had used before: it reads as zeros without a fill, and
   * its pages may not be mapped yet, so whoever writes it first pays for
   * them. Read it before releasing the lock.
   */
  get lastDataFresh(): boolean {
    return this.#lastDataFresh;
  }

  /**
   * Frees a data blob. Precondition: the lock is held.
   *
   * @param off Its offset, from `allocData`.
   */
  freeData(off: number): void {
    this.#free(off, CLASS_COUNT);
  }

  /**
   * Makes sure this worker's views cover `[0, end)`: another worker may
   * have grown the memory. A layout's helpers use `i32To` and its kin,
   * which cover and hand back the view in one step.
   *
   * @param end A byte offset.
   */
  cover(end: number): void {
    if (end > this.u8.length) this.#refresh();
  }

  /**
   * The memory as 32-bit words, covering `[0, end)`: `i32`, refreshed
   * first if another worker grew the memory past it. How a layout's
   * helpers reach a block that another worker may have allocated (see the
   * index at the top of this file).
   *
   * @param end A byte offset: the end of what the caller reads or writes.
   * @returns The words.
   *
   * @example Usage
   * ```ts
   * import { SharedHeap } from "./heap.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const heap = SharedHeap.create();
   * const other = new SharedHeap(heap.memory); // another worker's views
   * heap.lock();
   * const blob = heap.allocData(8);
   * heap.unlock();
   * heap.i32To(blob + 8)[blob >> 2] = 5;
   * assertEquals(other.i32To(blob + 8)[blob >> 2], 5);
   * ```
   */
  i32To(end: number): Int32Array {
    if (end > this.u8.length) this.#refresh();
    return this.i32;
  }

  /**
   * The memory as bytes, covering `[0, end)` (as `i32To`).
   *
   * @param end A byte offset: the end of what the caller reads or writes.
   * @returns The bytes.
   *
   * @example Usage
   * ```ts
   * import { SharedHeap } from "./heap.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const heap = SharedHeap.create();
   * heap.lock();
   * const blob = heap.allocData(3);
   * heap.unlock();
   * heap.u8To(blob + 3).set([1, 2, 3], blob);
   * assertEquals([...heap.u8To(blob + 3).subarray(blob, blob + 3)], [1, 2, 3]);
   * ```
   */
  u8To(end: number): Uint8Array {
    if (end > this.u8.length) this.#refresh();
    return this.u8;
  }

  /**
   * The memory as 64-bit floats, covering `[0, end)` (as `i32To`).
   *
   * @param end A byte offset: the end of what the caller reads or writes.
   * @returns The floats.
   *
   * @example Usage
   * ```ts
   * import { SharedHeap } from "./heap.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const heap = SharedHeap.create();
   * heap.lock();
   * const blob = heap.allocData(8);
   * heap.unlock();
   * heap.f64To(blob + 8)[blob >> 3] = 0.5;
   * assertEquals(heap.f64To(blob + 8)[blob >> 3], 0.5);
   * ```
   */
  f64To(end: number): Float64Array {
    if (end > this.u8.length) this.#refresh();
    return this.f64;
  }

  // A block may lie in memory that another worker grew since this worker's
  // views were made: a write through a view that does not reach it is lost
  // without an error, and a read gives undefined. So #alloc and #free cover
  // the block before touching it, and a block #alloc returns is covered
  // whole, for the caller's writes.
  #alloc(bytes: number, lists: number, topWord: number, limit: number): number {
    const c = classOf(bytes + HEADER);
    const listWord = Global.FreeLists + lists + c;
    let block = this.i32[listWord];
    if (block !== 0) {
      this.cover(block + CLASS_SIZES[c]);
      this.i32[listWord] = this.i32[(block + HEADER) >> 2]; // the next free one
    } else {
      block = this.i32[topWord];
      const end = block + CLASS_SIZES[c];
      if (end > limit) {
        throw new SharedMemoryExhausted(
          `shared memory exhausted: no room for ${bytes} bytes`,
        );
      }
      if (end > this.memory.buffer.byteLength) this.#grow(end);
      else this.cover(end);
      this.i32[topWord] = end;
    }
    this.i32[block >> 2] = c;
    return block + HEADER;
  }

  #free(off: number, lists: number): void {
    this.cover(off + 4);
    const i32 = this.i32;
    const block = off - HEADER;
    const listWord = Global.FreeLists + lists + i32[block >> 2];
    i32[off >> 2] = i32[listWord];
    i32[listWord] = block;
  }

  #grow(end: number): void {
    const have = this.memory.buffer.byteLength;
    // Grow by at least a quarter, so that growing stays rare.
    const want = Math.max(end - have, have >> 2);
    const pages = Math.min(
      Math.ceil(want / PAGE),
      MAXIMUM_PAGES - have / PAGE,
    );
    try {
      this.memory.grow(pages);
    } catch {
      throw new SharedMemoryExhausted(
        `shared memory exhausted: cannot grow past ${have} bytes`,
      );
    }
    this.#refresh();
  }

  #refresh(): void {
    const buffer = this.memory.buffer;
    this.i32 = new Int32Array(buffer);
    this.u8 = new Uint8Array(buffer);
    this.f64 = new Float64Array(buffer);
  }
}
