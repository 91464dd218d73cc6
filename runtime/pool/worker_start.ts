/**
 * Pool workers started before the run needs them. A Web Worker spends most
 * of its start-up loading its modules (about 150–300 ms on the 2-core
 * bench machine, against a few ms for the rest); started while the main
 * thread reads, decodes, validates and plans the program, that time
 * overlaps the main thread's instead of following it. A started worker only
 * loads `worker_main.ts` and waits: nothing of a run reaches it until the
 * pool sends it the `init` message, which the worker receives once its
 * modules are loaded (messages to a worker queue until then).
 *
 * Invariants:
 *   Every worker started here is either taken (its owner then terminates
 *   it) or terminated by `release()`; none is left running.
 *   An error a worker raised before it was taken (a module that failed to
 *   load) is kept and handed over with it, so the pool reports it as that
 *   worker's death rather than losing it.
 *
 * This module imports nothing, so the CLI can evaluate it before the rest
 * of Rill (see runtime/cli/_early_workers.ts).
 *
 * @module
 */

/** The module every pool worker runs. */
const WORKER_MAIN = new URL("./worker_main.ts", import.meta.url);

/** A started worker, as {@linkcode StartedWorkers.take} hands it over. */
export interface StartedWorker {
  /** The Web Worker, loading or loaded. */
  readonly worker: Worker;
  /** The message of an error it raised before it was taken, if any. */
  readonly failed: string | undefined;
}

/**
 * Web Workers of `worker_main.ts`, started now and handed to a run's pool
 * later.
 *
 * @example Usage
 * ```ts
 * import { StartedWorkers } from "./worker_start.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const started = new StartedWorkers(2);
 * const first = started.take();
 * assertEquals(started.waiting, 1);
 * first?.worker.terminate();
 * started.release(); // terminates the one not taken
 * assertEquals(started.waiting, 0);
 * ```
 */
export class StartedWorkers {
  // Workers not taken yet, oldest first, each with its early error.
  readonly #waiting: { worker: Worker; failed: string | undefined }[] = [];

  /**
   * Starts `count` workers.
   *
   * @param count How many (0 starts none).
   */
  constructor(count: number) {
    for (let i = 0; i < count; i++) {
      const worker = new Worker(WORKER_MAIN, { type: "module" });
      const entry = { worker, failed: undefined as string | undefined };
      // Until taken, an error is kept; the pool's own handler replaces
      // this one (the worker is then the pool's).
      worker.onerror = (e) => {
        e.preventDefault();
        entry.failed ??= e.message;
      };
      this.#waiting.push(entry);
    }
  }

  /** How many started workers are not taken yet. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * Takes the oldest started worker: the caller now owns it and must
   * terminate it.
   *
   * @returns It, or `undefined` when none is left.
   */
  take(): StartedWorker | undefined {
    return this.#waiting.shift();
  }

  /** Terminates every worker not taken (a run that needs fewer, or none). */
  release(): void {
    for (const { worker } of this.#waiting.splice(0)) worker.terminate();
  }
}

/**
 * A pool worker, started now, with the handlers its pool sets.
 *
 * @returns The Web Worker.
 *
 * @example Usage
 * ```ts
 * import { newPoolWorker } from "./worker_start.ts";
 *
 * newPoolWorker().terminate();
 * ```
 */
export function newPoolWorker(): Worker {
  return new Worker(WORKER_MAIN, { type: "module" });
}
