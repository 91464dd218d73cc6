/**
 * How many workers the program tests run with: `RILL_TEST_WORKERS`, else
 * 1. `deno task test` runs the concurrency suites a second time with 2, so
 * that each program prints the same on one worker and on a pool.
 *
 * @module
 */

/** The `workers` option of the executors the program tests make. */
export const TEST_WORKERS: number = Number(
  Deno.env.get("RILL_TEST_WORKERS") ?? "1",
);
