// How long a thread polls for what it waits for before it parks, when its
// worker has nothing else to run. Another worker often answers within a
// microsecond or two, while a park and a wake-up cost far more once the
// worker sleeps (../shared/anchors/workers/RESULTS.md: a hand-off takes
// 0.15 µs while the other side polls, about 55 µs once it sleeps).
//
// The budget adapts, per worker: it doubles (up to MAX_MICROS) each time a
// poll sees its answer and halves (down to MIN_MICROS) each time one runs
// out, so a worker whose peers answer slowly soon stops burning its core.

const MIN_MICROS = 2;
const MAX_MICROS = 50;
const START_MICROS = 20;
// Polls between two reads of the clock (a read costs about 0.1 µs here, a
// poll about 5 ns), and before the first: a hand-off from another worker
// takes about a microsecond, and most come before that first read.
const POLLS_PER_CHECK = 64;
const POLLS_FIRST = 256;

/**
 * One worker's adaptive polling budget.
 *
 * @example Usage
 * ```ts
 * import { Spinner } from "./_spinner.ts";
 * import { assert } from "@std/assert";
 *
 * const words = new Int32Array(new SharedArrayBuffer(8));
 * const spinner = new Spinner();
 * assert(!spinner.whileEquals(words, 0, 0)); // nobody changes it: gives up
 * words[0] = 1;
 * assert(spinner.whileEquals(words, 0, 0));
 * ```
 */
export class Spinner {
  #micros = START_MICROS;

  /**
   * Polls until `ready()` returns true or the budget runs out.
   *
   * @param ready The condition.
   * @returns True if it became true.
   */
  until(ready: () => boolean): boolean {
    for (let i = 0; i < POLLS_FIRST; i++) if (ready()) return true;
    const end = performance.now() + this.#micros / 1000;
    for (;;) {
      for (let i = 0; i < POLLS_PER_CHECK; i++) {
        if (ready()) return this.#won();
      }
      if (performance.now() >= end) return this.#lost();
    }
  }

  /**
   * Polls word `index` of `i32` until it differs from `value` or the
   * budget runs out.
   *
   * @param i32 Shared words.
   * @param index The word.
   * @param value The value it has now.
   * @returns True if it changed.
   */
  whileEquals(i32: Int32Array, index: number, value: number): boolean {
    for (let i = 0; i < POLLS_FIRST; i++) {
      if (Atomics.load(i32, index) !== value) return true;
    }
    const end = performance.now() + this.#micros / 1000;
    for (;;) {
      for (let i = 0; i < POLLS_PER_CHECK; i++) {
        if (Atomics.load(i32, index) !== value) return this.#won();
      }
      if (performance.now() >= end) return this.#lost();
    }
  }

  #won(): true {
    this.#micros = Math.min(MAX_MICROS, this.#micros * 2);
    return true;
  }

  #lost(): false {
    this.#micros = Math.max(MIN_MICROS, this.#micros / 2);
    return false;
  }
}
