// Numbers as 8-byte float64s (always inline in a value area), for the
// shared channel tests and benchmarks.

import type { SharedHeap } from "../../../scheduler/shared/heap.ts";
import type { SharedCodec } from "../../../scheduler/shared/shared_channel.ts";

/** Numbers as 8 bytes. */
export const numberCodec: SharedCodec<number> = {
  byteLength: () => 8,
  write(heap: SharedHeap, off: number, value: number) {
    heap.f64[off >> 3] = value;
  },
  read(heap: SharedHeap, off: number): number {
    // A channel's zero value is a blob another worker may have made in
    // memory it grew.
    return heap.f64To(off + 8)[off >> 3];
  },
};
