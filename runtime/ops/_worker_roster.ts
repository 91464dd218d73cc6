/**
 * The workers a run's `send`s may turn to: those its endpoint lists name,
 * less the ones it has lost, plus any a later discovery found.
 *
 * Invariants:
 *   An address in #lost is never a candidate, until a discovery lists it
 *   again (discovery lists only Ready pods: a pod restarted in place is
 *   back).
 *   At most one discovery runs at a time per run; every `send` that lost
 *   a worker while it runs shares it.
 *   A failed discovery changes nothing: the run goes on with what it has.
 *
 * @module
 */
import type { RunServices } from "../core/thread_context.ts";

/** Finds the workers again (the run's `kube_get_workers_addrs`). */
export type Rediscover = () => Promise<readonly string[]>;

/**
 * One run's view of its workers: which it lost, which discovery added,
 * and how to discover them again.
 *
 * @example Usage
 * ```ts
 * import { WorkerRoster } from "./_worker_roster.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const roster = new WorkerRoster();
 * roster.lose("a:1");
 * assertEquals(roster.candidates(["a:1", "b:2"]), ["b:2"]);
 * ```
 */
export class WorkerRoster {
  /** Addresses a call found unavailable, in this run. */
  #lost = new Set<string>();
  /** Addresses a rediscovery found that no endpoint list names. */
  #found: string[] = [];
  /** Set by the run's discovery op when discovery can find new workers. */
  #rediscover: Rediscover | undefined;
  /** The rediscovery in flight, if any. */
  #pending: Promise<void> | undefined;

  /**
   * Says how to find the workers again; a worker lost from now on starts
   * a rediscovery.
   *
   * @param rediscover Returns the workers' addresses.
   */
  setRediscovery(rediscover: Rediscover): void {
    this.#rediscover = rediscover;
  }

  /**
   * Marks `addr` lost, and starts a rediscovery if there is a way and none
   * is running.
   *
   * @param addr The worker's `host:port`.
   */
  lose(addr: string): void {
    this.#lost.add(addr);
    if (this.#rediscover !== undefined && this.#pending === undefined) {
      this.#pending = this.#discover(this.#rediscover).finally(() => {
        this.#pending = undefined;
      });
    }
  }

  /**
   * Whether `addr` was lost in this run.
   *
   * @param addr The worker's `host:port`.
   * @returns True once a call to it failed for want of the worker.
   */
  isLost(addr: string): boolean {
    return this.#lost.has(addr);
  }

  /**
   * The workers a call may go to: `endpoints` in order, then those a
   * rediscovery added, none of them lost.
   *
   * @param endpoints The `send`'s endpoint list.
   * @returns The candidates.
   */
  candidates(endpoints: readonly string[]): string[] {
    const all = [...new Set([...endpoints, ...this.#found])];
    return all.filter((addr) => !this.#lost.has(addr));
  }

  /**
   * Waits for the rediscovery in flight, if any.
   *
   * @returns Once it has ended (found workers or not).
   */
  async settled(): Promise<void> {
    await this.#pending;
  }

  async #discover(rediscover: Rediscover): Promise<void> {
    let addrs: readonly string[];
    try {
      addrs = await rediscover();
    } catch {
      return; // see the invariants: the run goes on with what it has
    }
    for (const addr of addrs) {
      this.#lost.delete(addr);
      if (!this.#found.includes(addr)) this.#found.push(addr);
    }
  }
}

const rosters = new WeakMap<RunServices, WorkerRoster>();

/**
 * The roster of a run, made on first use.
 *
 * @param run The run.
 * @returns Its roster.
 *
 * @example Usage
 * ```ts
 * import { rosterOf } from "./_worker_roster.ts";
 * import type { RunServices } from "../core/thread_context.ts";
 * import { assertStrictEquals } from "@std/assert";
 *
 * const run = {} as RunServices;
 * assertStrictEquals(rosterOf(run), rosterOf(run));
 * ```
 */
export function rosterOf(run: RunServices): WorkerRoster {
  let roster = rosters.get(run);
  if (roster === undefined) rosters.set(run, roster = new WorkerRoster());
  return roster;
}
