// Arrays of numbers: a count word, then float64s from byte 8. Up to two
// numbers travel inline in a value area (24 bytes), longer ones as blobs.

import type { SharedHeap } from "../../../scheduler/shared/heap.ts";
import type { SharedCodec } from "../../../scheduler/shared/shared_channel.ts";

/** Number arrays, inline or as blobs by length. */
export const vectorCodec: SharedCodec<number[]> = {
  byteLength: (_heap, v) => 8 + 8 * v.length,
  write(heap: SharedHeap, off: number, v: number[]) {
    heap.i32[off >> 2] = v.length;
    for (let i = 0; i < v.length; i++) heap.f64[(off >> 3) + 1 + i] = v[i];
  },
  read(heap: SharedHeap, off: number): number[] {
    const n = heap.i32To(off + 8)[off >> 2];
    const f64 = heap.f64To(off + 8 + 8 * n);
    return Array.from({ length: n }, (_, i) => f64[(off >> 3) + 1 + i]);
  },
};

/**
 * The `i`th vector of a test stream: `[i, i + 1, ..., i + i % 7 - 1]`.
 *
 * @param i The index.
 * @returns The vector.
 */
export function vectorAt(i: number): number[] {
  return Array.from({ length: i % 7 }, (_, k) => i + k);
}
