/**
 * The settings a worker process serves with: its limits and the inputs its
 * program's endpoints take. `serveWorker` uses them for whatever its
 * options leave out.
 *
 * Why process-wide: the `worker` command knows its flags and its program,
 * but the server is started by the program's `listen_and_do` op
 * (runtime/ops/rpc.ts), which passes `serveWorker` only a handler and an
 * address. A process serves one worker program, so the command sets these
 * settings around its run and restores the previous ones after.
 *
 * @module
 */

import { DEFAULT_WORKER_LIMITS, type WorkerLimits } from "./worker_limits.ts";
import type { WorkerInputs } from "./worker_inputs.ts";
import type { WorkerLifecycle } from "./worker_lifecycle.ts";

/** What a worker process serves with. */
export interface WorkerSettings {
  /** Its limits. */
  readonly limits: Readonly<WorkerLimits>;
  /**
   * What its endpoints take; undefined to take any endpoint and tensors
   * (the handler decides).
   */
  readonly inputs?: WorkerInputs;
  /**
   * The certificate chain and key (PEM) to serve TLS with; undefined:
   * plain HTTP/2. (Spelled out rather than worker_server.ts's type: this
   * module is loaded by the CLI, which loads no RPC library before a
   * worker serves.)
   */
  readonly tls?: { readonly cert: string; readonly key: string };
  /**
   * The process's lifecycle, which every server joins once it listens, so
   * that a SIGTERM drains them (the `worker` command's); undefined: none.
   */
  readonly lifecycle?: WorkerLifecycle;
}

// The settings in force. Written only by useWorkerSettings, which restores
// the previous value when disposed; read by serveWorker when it starts.
let current: WorkerSettings = { limits: DEFAULT_WORKER_LIMITS };

/**
 * The settings in force: the defaults, unless a
 * {@linkcode useWorkerSettings} scope is open.
 *
 * @returns The settings.
 *
 * @example Usage
 * ```ts
 * import { workerSettings } from "./worker_settings.ts";
 * import { DEFAULT_WORKER_LIMITS } from "./worker_limits.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(workerSettings().limits, DEFAULT_WORKER_LIMITS);
 * ```
 */
export function workerSettings(): WorkerSettings {
  return current;
}

/**
 * Puts `settings` in force until the returned handle is disposed, which
 * restores the settings it replaced. Scopes nest; close them in reverse.
 *
 * @param settings The settings.
 * @returns The handle, for `using`.
 *
 * @example Usage
 * ```ts
 * import { useWorkerSettings, workerSettings } from "./worker_settings.ts";
 * import { DEFAULT_WORKER_LIMITS } from "./worker_limits.ts";
 * import { assertEquals } from "@std/assert";
 *
 * {
 *   using _ = useWorkerSettings({ limits: { ...DEFAULT_WORKER_LIMITS, maxCalls: 1 } });
 *   assertEquals(workerSettings().limits.maxCalls, 1);
 * }
 * assertEquals(workerSettings().limits.maxCalls, DEFAULT_WORKER_LIMITS.maxCalls);
 * ```
 */
export function useWorkerSettings(settings: WorkerSettings): Disposable {
  const previous = current;
  current = settings;
  return {
    [Symbol.dispose]() {
      current = previous;
    },
  };
}
