/**
 * The workers a run's `send`s may turn to: those its endpoint lists name,
 * less the ones it has lost, plus any a later discovery found.
 *
 * A lost worker comes back in one of two ways. Where the workers came
 * from Kubernetes, the run discovers them again (a pod restarted in place
 * is listed Ready again). Where they came from a fixed list
 * (`--worker-addrs`, `RILL_WORKERS`), nothing would ever list it again, so
 * the roster re-dials the address itself, with backoff, for a bounded time
 * ({@linkcode DEFAULT_REDIAL_WINDOW_MS}): a worker restarted at the same
 * address is used again; one that stays down is given up.
 *
 * Invariants:
 *   An address in #lost is never a candidate, until a discovery lists it
 *   again or a re-dial finds it serving.
 *   At most one discovery runs at a time per run; every `send` that lost
 *   a worker while it runs shares it. At most one re-dial runs per
 *   address; each ends by the window's end.
 *   A failed discovery changes nothing: the run goes on with what it has.
 *   `settled()` returns once no discovery is in flight and either a
 *   re-dial brought a worker back or none is in flight.
 *
 * @module
 */
import type { RunServices } from "../core/thread_context.ts";

/** Finds the workers again (the run's `kube_get_workers_addrs`). */
export type Rediscover = () => Promise<readonly string[]>;

/**
 * Asks whether the worker at an address serves again: true if it does,
 * false if it does not answer or refuses; never throws.
 */
export type Redial = (addr: string) => Promise<boolean>;

/**
 * How long a lost worker of a fixed list is re-dialled: 10 s, room for a
 * process manager to restart it (a Deno worker starts in 1–3 s here),
 * while a run whose every worker is gone still fails within seconds.
 */
export const DEFAULT_REDIAL_WINDOW_MS = 10_000;
/** The wait before the first re-dial, doubled for each next one. */
const REDIAL_FIRST_MS = 250;
/** The longest wait between two re-dials. */
const REDIAL_MAX_MS = 4_000;

/** Options for {@linkcode WorkerRoster}. */
export interface WorkerRosterOptions {
  /**
   * How long a lost worker is re-dialled, in milliseconds; 0 for never.
   *
   * @default {10000}
   */
  redialWindowMs?: number;
}

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
  /** Addresses being re-dialled. */
  #redialing = new Set<string>();
  /** Callers of settled() waiting on re-dials. */
  #waiters: (() => void)[] = [];
  #redialWindowMs: number;

  /**
   * Makes an empty roster.
   *
   * @param options How long to re-dial a lost worker.
   */
  constructor(options: WorkerRosterOptions = {}) {
    this.#redialWindowMs = options.redialWindowMs ?? DEFAULT_REDIAL_WINDOW_MS;
  }

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
   * is running; without one, starts re-dialling `addr` with `redial`, if
   * given and not doing so already.
   *
   * @param addr The worker's `host:port`.
   * @param redial Asks whether the worker serves again.
   */
  lose(addr: string, redial?: Redial): void {
    this.#lost.add(addr);
    if (this.#rediscover !== undefined) {
      this.#pending ??= this.#discover(this.#rediscover).finally(() => {
        this.#pending = undefined;
      });
    } else if (
      redial !== undefined && this.#redialWindowMs > 0 &&
      !this.#redialing.has(addr)
    ) {
      this.#redialing.add(addr);
      this.#redial(addr, redial).finally(() => {
        this.#redialing.delete(addr);
        if (this.#redialing.size === 0 || !this.#lost.has(addr)) this.#wake();
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
   * Waits for the rediscovery in flight, if any, then for a re-dial in
   * flight to bring a worker back or for every one to give up.
   *
   * @returns Once candidates may have changed for good.
   */
  async settled(): Promise<void> {
    await this.#pending;
    if (this.#redialing.size === 0) return;
    await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  // Asks `redial` after REDIAL_FIRST_MS, then after twice as long each
  // time (at most REDIAL_MAX_MS), until it says yes or the window ends.
  async #redial(addr: string, redial: Redial): Promise<void> {
    const end = Date.now() + this.#redialWindowMs;
    for (
      let wait = REDIAL_FIRST_MS;;
      wait = Math.min(2 * wait, REDIAL_MAX_MS)
    ) {
      const left = end - Date.now();
      if (left <= 0) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(wait, left)));
      if (await redial(addr)) {
        this.#lost.delete(addr);
        return;
      }
    }
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
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
  if (roster === undefined) {
    const redialWindowMs = run.cluster?.workerRedialMs;
    rosters.set(run, roster = new WorkerRoster({ redialWindowMs }));
  }
  return roster;
}
