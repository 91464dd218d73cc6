// The goroutine dump printed with a deadlock or a panic, in Go's layout.

import type { ThreadState, WaitReason } from "./green_thread.ts";

/**
 * What a dump shows of a green thread: a `GreenThread` is one, and so is a
 * plain snapshot sent from another worker of the run.
 */
export interface ThreadInfo {
  /** The thread's id in its run. */
  readonly id: number;
  /** Runnable, blocked or done. */
  readonly state: ThreadState;
  /** Why it is blocked, if it is. */
  readonly waitReason: WaitReason | undefined;
  /** Its name, if any. */
  readonly name: string | undefined;
  /** The op it is at, if known. */
  readonly where: string | undefined;
  /** Where it was spawned, if known. */
  readonly createdAt: string | undefined;
  /** The worker it runs on, in a run that spans workers. */
  readonly worker?: number;
}

/**
 * A plain copy of what a dump shows of a thread, to send to another worker.
 *
 * @param t The thread.
 * @param worker The worker it runs on.
 * @returns The snapshot.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "./mod.ts";
 * import { threadSnapshot } from "./thread_dump.ts";
 * import { assertEquals } from "@std/assert";
 *
 * await new Scheduler({ seed: 1 }).run((main) => {
 *   assertEquals(threadSnapshot(main, 2).worker, 2);
 * });
 * ```
 */
export function threadSnapshot(t: ThreadInfo, worker: number): ThreadInfo {
  return {
    id: t.id,
    state: t.state,
    waitReason: t.waitReason,
    name: t.name,
    where: t.where,
    createdAt: t.createdAt,
    worker,
  };
}

/**
 * Formats a dump of green threads the way Go prints goroutines.
 *
 * Each thread that is not done gets a header `goroutine <id> [<reason>]:`,
 * where the reason is its wait reason or `runnable`; then, each on its own
 * line indented by a tab, its name, its `where` and `created at <createdAt>`,
 * when set, and in a run that spans workers `on worker <n>`. Threads are
 * separated by a blank line.
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
export function formatThreadDump(threads: Iterable<ThreadInfo>): string {
  const parts: string[] = [];
  for (const t of threads) {
    if (t.state === "done") continue;
    let text = `goroutine ${t.id} [${t.waitReason ?? "runnable"}]:`;
    if (t.name !== undefined) text += `\n\t${t.name}`;
    if (t.where !== undefined) text += `\n\t${t.where}`;
    if (t.createdAt !== undefined) text += `\n\tcreated at ${t.createdAt}`;
    if (t.worker !== undefined) text += `\n\ton worker ${t.worker}`;
    parts.push(text);
  }
  return parts.join("\n\n");
}
