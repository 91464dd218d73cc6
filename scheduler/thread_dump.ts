// The goroutine dump printed with a deadlock or a panic, in Go's layout.

import type { GreenThread } from "./green_thread.ts";

/**
 * Formats a dump of green threads the way Go prints goroutines.
 *
 * Each thread that is not done gets a header `goroutine <id> [<reason>]:`,
 * where the reason is its wait reason or `runnable`; then, each on its own
 * line indented by a tab, its name, its `where` and `created at <createdAt>`,
 * when set. Threads are separated by a blank line.
 *
 * @param threads The threads to list, usually in id order.
 * @returns The dump, without a trailing newline; empty for no threads.
 *
 * @example Usage
 * ```ts
 * import { formatThreadDump, makeChannel, Scheduler, sleep } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const s = new Scheduler({ seed: 1 });
 * await s.run(async () => {
 *   const ch = makeChannel<number>();
 *   const t = s.go(() => ch.recv(), { createdAt: "main.ts:6" });
 *   await sleep(1);
 *   assertEquals(
 *     formatThreadDump([t]),
 *     "goroutine 2 [chan receive]:\n\tcreated at main.ts:6",
 *   );
 * });
 * ```
 */
export function formatThreadDump(threads: Iterable<GreenThread>): string {
  const parts: string[] = [];
  for (const t of threads) {
    if (t.state === "done") continue;
    let text = `goroutine ${t.id} [${t.waitReason ?? "runnable"}]:`;
    if (t.name !== undefined) text += `\n\t${t.name}`;
    if (t.where !== undefined) text += `\n\t${t.where}`;
    if (t.createdAt !== undefined) text += `\n\tcreated at ${t.createdAt}`;
    parts.push(text);
  }
  return parts.join("\n\n");
}
