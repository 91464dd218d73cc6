// The other side of bench/handoff_model.ts: sends on "data", then waits
// on "back", `trips` times per round.

/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
import { recvBySlot, sendBySlot } from "./_handoff_slot.ts";

self.onmessage = (event: MessageEvent) => {
  const { words, trips, rounds, DATA, BACK, WORKER } = event.data as {
    words: Int32Array;
    trips: number;
    rounds: number;
    DATA: number;
    BACK: number;
    WORKER: number;
  };
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < trips; i++) {
      sendBySlot(words, DATA, i);
      recvBySlot(words, BACK, WORKER);
    }
  }
};
