/**
 * A time limit for tests that would hang if the runtime were wrong.
 *
 * @module
 */

/**
 * Settles like `promise`, or rejects if it has not settled after `ms`.
 *
 * @param ms The limit in milliseconds.
 * @param promise What to wait for.
 * @returns The promise's value.
 */
export async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, limit]);
  } finally {
    clearTimeout(timer);
  }
}
