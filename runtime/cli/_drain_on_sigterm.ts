/**
 * What a worker process does on SIGTERM, the signal Kubernetes sends a pod
 * before it kills it (terminationGracePeriodSeconds later): it turns
 * NOT_SERVING, refuses new calls with `unavailable`, lets the calls in
 * flight finish within `--drain-timeout`, and ends with one line on
 * stderr and exit 0 (docs/architecture.md §5).
 *
 * @module
 */
import type { WorkerLifecycle } from "../cluster/worker_lifecycle.ts";
import type { CliIO, CliResult } from "./_command_line.ts";

/** A SIGTERM handler in force, until disposed. */
export interface SigtermDrain extends Disposable {
  /** Resolves with exit 0 once a SIGTERM's drain has finished. */
  readonly stopped: Promise<CliResult>;
}

/**
 * Drains `lifecycle`'s servers on SIGTERM, each call in flight given
 * `drainMs`, then says how it went. A second SIGTERM changes nothing.
 *
 * @param lifecycle The process's servers.
 * @param drainMs The grace of the calls in flight.
 * @param io Where the closing line goes (stderr).
 * @returns The handler; dispose it to remove it.
 *
 * @example Usage
 * ```ts
 * import { drainOnSigterm } from "./_drain_on_sigterm.ts";
 * import { WorkerLifecycle } from "../cluster/worker_lifecycle.ts";
 *
 * const io = { stdout: () => {}, stderr: () => {} };
 * using _drain = drainOnSigterm(new WorkerLifecycle(), 20_000, io);
 * ```
 */
export function drainOnSigterm(
  lifecycle: WorkerLifecycle,
  drainMs: number,
  io: CliIO,
): SigtermDrain {
  const stopped = Promise.withResolvers<CliResult>();
  let started = false;
  const onSignal = (): void => {
    if (started) return;
    started = true;
    lifecycle.drain(drainMs).then(({ drained, cut }) => {
      const calls = (n: number) => `${n} call${n === 1 ? "" : "s"}`;
      const left = cut === 0
        ? ""
        : `, cut ${calls(cut)} still running after --drain-timeout`;
      io.stderr(`worker: drained ${calls(drained)}${left}, exiting\n`);
      stopped.resolve({ code: 0 });
    }, stopped.reject);
  };
  // Deno has no SIGTERM on Windows: there the process just ends.
  const listening = Deno.build.os !== "windows";
  if (listening) Deno.addSignalListener("SIGTERM", onSignal);
  return {
    stopped: stopped.promise,
    [Symbol.dispose]() {
      if (listening) Deno.removeSignalListener("SIGTERM", onSignal);
    },
  };
}
