/**
 * A time limit for tests that would hang if the runtime were wrong.
 *
 * A limit only catches a hang; it never judges speed. On a machine whose
 * cores are busy (CI beside other jobs, a `yes > /dev/null`, a loaded VM)
 * starting a Worker or a process alone can take seconds, so no limit is
 * shorter than {@linkcode FLOOR_MS}: a test that names 2 s says what a quiet
 * machine needs, and fails only when it takes many times that.
 *
 * @module
 */

/** The shortest limit within() applies, in milliseconds. */
export const FLOOR_MS = 30_000;

/**
 * Settles like `promise`, or rejects if it has not settled after `ms`
 * (at least {@linkcode FLOOR_MS}).
 *
 * @param ms The limit in milliseconds on a quiet machine.
 * @param promise What to wait for.
 * @returns The promise's value.
 */
export async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  const limit = Math.max(ms, FLOOR_MS);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Timed out after ${limit} ms`)),
      limit,
    );
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}
