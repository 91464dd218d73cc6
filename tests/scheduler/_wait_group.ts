// Go's sync.WaitGroup on channels, so that a test waiting for its threads
// parks like any green thread (and a bug shows up as a deadlock).

import { Channel } from "../../scheduler/mod.ts";

/** Waits for a number of green threads to call `done()`. */
export class WaitGroup {
  #count = 0;
  #zero = new Channel<void>();

  /**
   * Adds `n` to the count.
   *
   * @param n How many more `done()` calls to wait for.
   */
  add(n: number): void {
    this.#count += n;
  }

  /** Counts one thread as finished. */
  done(): void {
    if (--this.#count === 0) this.#zero.close();
  }

  /**
   * Parks until the count reaches zero.
   *
   * @returns Undefined at once if it is zero, else a promise.
   */
  wait(): void | Promise<void> {
    if (this.#count === 0) return;
    return this.#zero.recv();
  }
}
