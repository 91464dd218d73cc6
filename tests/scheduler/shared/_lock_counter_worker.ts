// A Web Worker for heap_test.ts: maps the heap, waits for the start word
// to become 1, then `count` times increments a plain (non-atomic) word
// under the heap's lock, and posts "done".

/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
import { SharedHeap } from "../../../scheduler/shared/heap.ts";

/** What the worker is told: the memory and the words it uses. */
export interface LockCounterTask {
  memory: WebAssembly.Memory;
  /** Word index of the start flag (0 until the test says go). */
  start: number;
  /** Word index of the counter. */
  counter: number;
  count: number;
}

self.onmessage = (event: MessageEvent<LockCounterTask>) => {
  const { memory, start, counter, count } = event.data;
  const heap = new SharedHeap(memory);
  self.postMessage("ready");
  Atomics.wait(heap.i32, start, 0);
  for (let i = 0; i < count; i++) {
    heap.lock();
    heap.i32[counter] = heap.i32[counter] + 1;
    heap.unlock();
  }
  self.postMessage("done");
};
