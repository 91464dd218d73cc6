// A way to let every runnable green thread run.

import { setImmediate } from "node:timers";

/**
 * Lets every runnable green thread run until it parks or finishes: waits
 * for one macrotask, by which time the microtask queue is empty.
 *
 * @returns A promise that fulfils after the macrotask.
 */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
