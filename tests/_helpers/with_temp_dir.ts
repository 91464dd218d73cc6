/**
 * A temporary directory that lives as long as one test body.
 *
 * @module
 */

/**
 * Runs `body` with a fresh temporary directory, removed afterwards.
 *
 * @param body The work; gets the directory's path.
 * @returns A promise that fulfils when `body` has and the directory is gone.
 */
export async function withTempDir(
  body: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "rill_test_" });
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
