/**
 * A worker process's life as Kubernetes sees it: not ready while its
 * program loads, ready once a server serves, and, on SIGTERM, draining:
 * not ready, refusing new calls, finishing those in flight, then gone.
 *
 * The `worker` command makes one and puts it in the worker settings
 * (worker_settings.ts): the servers its program's `listen_and_do` ops
 * start join it, a SIGTERM drains them all, and its readiness is what the
 * worker's health service reports on `--health-listen`.
 *
 * Invariants: once `drain()` has been called the readiness stays false
 * and a server that joins later is drained at once; `#servers` holds the
 * servers joined and not yet left.
 *
 * This module imports no RPC library (the CLI loads it before any server).
 *
 * @module
 */

import { Readiness } from "./readiness.ts";

/** What a drain did. */
export interface DrainReport {
  /** Calls that finished within the grace. */
  readonly drained: number;
  /** Calls still running at its end, cut with `unavailable`. */
  readonly cut: number;
}

/** A server that can be drained (worker_server.ts's `WorkerServer`). */
export interface DrainableServer {
  /**
   * Refuses new calls, lets those in flight finish within `timeoutMs`,
   * then closes.
   */
  drain(options: { timeoutMs: number }): Promise<DrainReport>;
}

/**
 * The servers of one worker process, drained together.
 *
 * @example Usage
 * ```ts
 * import { WorkerLifecycle } from "./worker_lifecycle.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const life = new WorkerLifecycle();
 * assertEquals(life.readiness.ready, false);
 * life.join({ drain: () => Promise.resolve({ drained: 2, cut: 0 }) });
 * assertEquals(life.readiness.ready, true);
 * assertEquals(await life.drain(1000), { drained: 2, cut: 0 });
 * assertEquals(life.readiness.ready, false);
 * ```
 */
export class WorkerLifecycle {
  /** Whether the process takes calls: a server serves, none drains. */
  readonly readiness: Readiness = new Readiness(false);
  readonly #servers = new Set<DrainableServer>();
  #drain: { timeoutMs: number } | undefined;
  readonly #late: Promise<DrainReport>[] = [];

  /**
   * Adds a serving server.
   *
   * @param server The server, listening.
   * @returns Call it when the server has closed by itself.
   */
  join(server: DrainableServer): () => void {
    if (this.#drain !== undefined) {
      // SIGTERM came while this server was starting: it serves nothing.
      this.#late.push(server.drain(this.#drain));
      return () => {};
    }
    this.#servers.add(server);
    this.readiness.set(true);
    return () => {
      this.#servers.delete(server);
      if (this.#servers.size === 0) this.readiness.set(false);
    };
  }

  /**
   * Drains every server at once, each with `timeoutMs` of grace.
   *
   * @param timeoutMs The grace calls in flight get.
   * @returns The calls drained and cut, summed over the servers.
   */
  async drain(timeoutMs: number): Promise<DrainReport> {
    this.#drain = { timeoutMs };
    this.readiness.set(false);
    const servers = [...this.#servers];
    this.#servers.clear();
    const reports = await Promise.all([
      ...servers.map((s) => s.drain({ timeoutMs })),
      ...this.#late,
    ]);
    return {
      drained: reports.reduce((n, r) => n + r.drained, 0),
      cut: reports.reduce((n, r) => n + r.cut, 0),
    };
  }
}
