// Numbers as 8-byte float64 blobs, for the shared channel tests.

import type { SharedHeap } from "../../../scheduler/shared/heap.ts";
import type { SharedCodec } from "../../../scheduler/shared/shared_channel.ts";

/** Numbers as 8-byte blobs. */
export const numberCodec: SharedCodec<number> = {
  byteLength: () => 8,
  write(heap: SharedHeap, off: number, value: number) {
    new Float64Array(heap.memory.buffer, off, 1)[0] = value;
  },
  read(heap: SharedHeap, off: number): number {
    return new Float64Array(heap.memory.buffer, off, 1)[0];
  },
};
