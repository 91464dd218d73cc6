/**
 * Whether a worker takes calls, as one flag that others can wait on: the
 * standard health service (health_service.ts) reports it, and its `Watch`
 * streams wake when it changes.
 *
 * Invariants: `#waiters` holds only the wakers of `changed()` promises
 * still pending; `set()` with the value already held wakes no one.
 *
 * This module imports no RPC library: the `worker` command makes one
 * before any server starts (docs/architecture.md §5).
 *
 * @module
 */

/**
 * A flag saying whether a worker takes calls, with a wait for its next
 * change.
 *
 * @example Usage
 * ```ts
 * import { Readiness } from "./readiness.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const readiness = new Readiness(true);
 * const changed = readiness.changed();
 * readiness.set(false);
 * await changed;
 * assertEquals(readiness.ready, false);
 * ```
 */
export class Readiness {
  #ready: boolean;
  // The wakers of pending changed() promises; each removes itself.
  #waiters = new Set<() => void>();

  /**
   * Makes the flag.
   *
   * @param ready Whether calls are taken at first.
   */
  constructor(ready: boolean) {
    this.#ready = ready;
  }

  /** Whether calls are taken now. */
  get ready(): boolean {
    return this.#ready;
  }

  /**
   * Sets the flag; a change wakes every {@linkcode Readiness.changed}
   * waiting.
   *
   * @param ready Whether calls are taken from now on.
   */
  set(ready: boolean): void {
    if (ready === this.#ready) return;
    this.#ready = ready;
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
  }

  /**
   * Resolves at the flag's next change.
   *
   * @param signal Ends the wait: the promise then rejects with its reason.
   * @returns When the flag has changed.
   */
  changed(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const cancel = (): void => {
        this.#waiters.delete(wake);
        reject(signal?.reason);
      };
      const wake = (): void => {
        signal?.removeEventListener("abort", cancel);
        resolve();
      };
      this.#waiters.add(wake);
      signal?.addEventListener("abort", cancel, { once: true });
    });
  }
}
