// The contract between a shared channel (or array) and the values it
// carries: see SharedCodec.

import type { SharedHeap } from "./heap.ts";

/**
 * How values of a shared channel's type become bytes in the heap, and
 * back: inline in a value area when they take at most 24 bytes
 * (_values.ts), else as a blob.
 *
 * @typeParam T The values.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "./heap.ts";
 * import type { SharedCodec } from "./shared_codec.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const numbers: SharedCodec<number> = {
 *   byteLength: () => 8,
 *   write: (heap, off, v) => void (heap.f64[off >> 3] = v),
 *   read: (heap, off) => heap.f64[off >> 3],
 * };
 * const heap = SharedHeap.create();
 * numbers.write(heap, 65536, 2.5);
 * assertEquals(numbers.read(heap, 65536), 2.5);
 * ```
 */
export interface SharedCodec<T> {
  /**
   * The bytes `value` takes in `heap`: inline in a value area when at most
   * 24, else as a blob. The heap's lock may be held.
   *
   * @param heap The heap.
   * @param value The value.
   * @returns The size.
   */
  byteLength(heap: SharedHeap, value: T): number;
  /**
   * Writes `value` at `off` (8-aligned). The heap's lock may be held: be
   * quick, and take no lock.
   *
   * @param heap The heap.
   * @param off The place, of `byteLength(value)` bytes.
   * @param value The value.
   */
  write(heap: SharedHeap, off: number, value: T): void;
  /**
   * Reads a value back, without the lock (this may take it, to allocate);
   * the bytes are the caller's. A blob may be another worker's, in memory
   * it grew past this worker's views: read it through `heap.i32To` and
   * its kin, which cover it (heap.ts).
   *
   * @param heap The heap.
   * @param off The place.
   * @returns The value.
   */
  read(heap: SharedHeap, off: number): T;
  /**
   * Lets go of what the bytes hold beyond themselves, just before they are
   * dropped, whether or not they were read. Safe with or without the lock.
   * The bytes may lie past this worker's views, as for `read`.
   *
   * @param heap The heap.
   * @param off The place.
   */
  discard?(heap: SharedHeap, off: number): void;
}
