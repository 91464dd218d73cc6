// A Web Worker for wake_ring_test.ts: maps the heap, posts "asleep",
// sleeps in place (WakeRing.block) and posts what it woke to: whether the
// doorbell rang, and the tokens.

/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
import { SharedHeap } from "../../../scheduler/shared/heap.ts";
import { WakeRing } from "../../../scheduler/shared/wake_ring.ts";

/** What the worker is told: the memory and which worker's ring is its. */
export interface DoorbellTask {
  memory: WebAssembly.Memory;
  worker: number;
}

/** What the worker answers once it woke. */
export interface DoorbellAnswer {
  rang: boolean;
  tokens: number[];
}

self.onmessage = (event: MessageEvent<DoorbellTask>) => {
  const { memory, worker } = event.data;
  const ring = new WakeRing(new SharedHeap(memory), worker);
  const seen = ring.doorbell();
  self.postMessage("asleep");
  // Long enough that only the ring ends it in a test that passes.
  const rang = ring.block(seen, 60_000);
  self.postMessage({ rang, tokens: ring.drain() } as DoorbellAnswer);
};
