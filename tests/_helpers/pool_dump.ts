/**
 * Thread dumps compared across worker counts. On a pool, thread ids follow
 * the order threads were made on their workers, and each thread's entry
 * names its worker; what else a dump says must not change. These keep
 * exactly that.
 *
 * @module
 */
import { assertEquals } from "@std/assert";
import type { ThreadInfo } from "../../scheduler/mod.ts";
import { TEST_WORKERS } from "./test_workers.ts";

/**
 * A dump's entries without ids or worker lines, sorted.
 *
 * @param dump A thread dump.
 * @returns Its entries, comparable across worker counts.
 */
export function dumpEntries(dump: string): string[] {
  return dump.split("\n\n")
    .map((entry) =>
      entry.replace(/^goroutine \d+ /, "goroutine ")
        .replace(/\n\ton worker \d+/, "")
    )
    .sort();
}

/**
 * Threads as [wait reason, where, created at], sorted.
 *
 * @param threads Threads of a dump.
 * @returns The triples, comparable across worker counts.
 */
export function threadEntries(
  threads: readonly ThreadInfo[],
): (string | undefined)[][] {
  return threads.map((t) => [t.waitReason, t.where, t.createdAt])
    .sort((a, b) => String(a).localeCompare(String(b)));
}

/**
 * Asserts that a dump is the one expected: exactly on one worker, as
 * {@linkcode dumpEntries} on a pool.
 *
 * @param actual The dump a run gave.
 * @param expected The one-worker dump.
 */
export function assertSameDump(actual: string, expected: string): void {
  if (TEST_WORKERS === 1) assertEquals(actual, expected);
  else assertEquals(dumpEntries(actual), dumpEntries(expected));
}

/**
 * Asserts that a dump's threads are as expected, given as
 * [id, wait reason, where, created at]: exactly on one worker, without
 * ids and in any order on a pool.
 *
 * @param actual The threads a run's dump gave.
 * @param expected The one-worker threads.
 */
export function assertSameThreads(
  actual: readonly ThreadInfo[],
  expected: readonly (readonly [
    number,
    string | undefined,
    string | undefined,
    string | undefined,
  ])[],
): void {
  if (TEST_WORKERS === 1) {
    assertEquals(
      actual.map((t) => [t.id, t.waitReason, t.where, t.createdAt]),
      expected,
    );
    return;
  }
  const key = (e: readonly unknown[]) => JSON.stringify(e.slice(1));
  assertEquals(
    actual.map((t) => key([t.id, t.waitReason, t.where, t.createdAt])).sort(),
    expected.map(key).sort(),
  );
}
