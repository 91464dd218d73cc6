// The bare rendezvous-slot hand-off that bench/handoff_model.ts times: a
// slot word per channel, a state word (then a value word) per waiter, on
// shared memory; both sides spin.

/**
 * Waits in `slot` with waiter word `me` until a sender completes it.
 *
 * @param words The shared words.
 * @param slot The channel's slot word.
 * @param me This side's waiter (state word; the value follows).
 * @returns The value sent.
 */
export function recvBySlot(
  words: Int32Array,
  slot: number,
  me: number,
): number {
  while (Atomics.compareExchange(words, slot, 0, me) !== 0) { /* spin */ }
  while (Atomics.load(words, me) === 0) { /* spin */ }
  const v = words[me + 1];
  Atomics.store(words, me, 0);
  return v;
}

/**
 * Completes the waiter that comes to `slot` with `v`.
 *
 * @param words The shared words.
 * @param slot The channel's slot word.
 * @param v The value.
 */
export function sendBySlot(words: Int32Array, slot: number, v: number): void {
  for (;;) {
    const w = Atomics.load(words, slot);
    if (w !== 0 && Atomics.compareExchange(words, slot, w, 0) === w) {
      words[w + 1] = v;
      Atomics.store(words, w, 1);
      return;
    }
  }
}
