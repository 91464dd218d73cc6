// The other side of bench/handoff_model.ts: sends on "data", then waits
// on "back", `trips` times per round.

/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />

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
      for (;;) {
        const w = Atomics.load(words, DATA);
        if (w !== 0 && Atomics.compareExchange(words, DATA, w, 0) === w) {
          words[w + 1] = i;
          Atomics.store(words, w, 1);
          break;
        }
      }
      while (Atomics.compareExchange(words, BACK, 0, WORKER) !== 0) {
        /* spin */
      }
      while (Atomics.load(words, WORKER) === 0) {
        /* spin */
      }
      Atomics.store(words, WORKER, 0);
    }
  }
};
