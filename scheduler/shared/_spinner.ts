// When a thread that must wait for another worker polls, and for how long,
// before it parks; and the same for a worker whose threads all wait, before
// it sleeps. The policy for every wait on a shared channel or select.
//
// Why poll at all: another worker often answers within a microsecond or
// two, and while both sides poll a hand-off costs about 0.15 µs; once one
// side sleeps it costs a park, a wake-up through the event loop and the
// kernel, about 55 µs here (../shared/anchors/workers/RESULTS.md). Why not
// poll long: a core that polls for an answer that does not come is taken
// from every other thread on the machine, the peer's included.
//
// The policy, per channel handle (so per channel and worker) and per worker
// for its idle wait:
//   1. Poll only while someone else could answer: the run's activity
//      (heap Global.Active: the run's threads that are not blocked, on
//      every worker, plus pending work) counts someone besides the poller,
//      which is not blocked while it polls. A peer that parked, or sleeps,
//      is not counted, so nobody polls for it; this is checked before
//      polling and again at every look at the clock.
//   2. Poll for at most the budget, MIN_MICROS .. MAX_MICROS, and stop
//      at once if the poller itself was descheduled for a while (two looks
//      at the clock far apart): the machine has more runnable threads than
//      cores, the peer is likely one of those waiting for a core, and
//      polling would only keep it waiting. That halves the budget.
//   3. The budget follows how long answers take. An answer that comes
//      while polling changes nothing. A wait that outlived its polling is
//      timed until its answer (`answered`, or the next poll if nobody
//      calls it): if the answer came within MAX_MICROS, a longer poll
//      would have saved the park and the wake-up, so the budget becomes
//      twice that wait (capped); if it came later, the budget halves. A
//      wait that polled not at all (rule 1) teaches nothing.
// So a peer that answers within tens of microseconds (a wake-up, a short
// computation) is polled for and no wait parks twice in a row for it,
// while a peer that is busy elsewhere, or descheduled by the kernel, soon
// costs MIN_MICROS a wait, and a parked one nothing.
//
// Invariants:
//   MIN_MICROS <= budget <= MAX_MICROS.
//   #since is the clock when the last lost poll began, while its wait has
//   not been answered; else -1. It changes nothing but the budget: every
//   rule here decides only how long to poll, never what a wait returns.

import { Global } from "./heap.ts";

const MIN_MICROS = 2;
const MAX_MICROS = 100;
const START_MICROS = 20;
// Two looks at the clock this far apart: the poller was descheduled.
const PREEMPTED_MICROS = 30;
// Polls between two looks at the clock and the activity (a look costs
// about 0.1 µs here, a poll about 5 ns), and before the first: a hand-off
// from another worker takes about a microsecond, and most come before that
// first look.
const POLLS_PER_CHECK = 64;
const POLLS_FIRST = 256;
const NOT_WAITING = -1;

/**
 * Whether another thread of the run could answer a poller: the run's
 * activity counts more than the poller itself.
 *
 * @param i32 The heap's words (the global words are in the first page).
 * @param self How much of the activity is the poller's own: 1 for a
 * thread that polls, 0 for a worker whose threads all wait.
 * @returns True if someone else is runnable or has pending work.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap, Global } from "./heap.ts";
 * import { othersActive } from "./_spinner.ts";
 * import { assert } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.i32[Global.Active] = 1; // the poller alone
 * assert(!othersActive(heap.i32));
 * heap.i32[Global.Active] = 2;
 * assert(othersActive(heap.i32));
 * ```
 */
export function othersActive(i32: Int32Array, self = 1): boolean {
  return Atomics.load(i32, Global.Active) > self;
}

/**
 * One adaptive polling budget (see the top of the file).
 *
 * @example Usage
 * ```ts
 * import { SharedHeap, Global } from "./heap.ts";
 * import { Spinner } from "./_spinner.ts";
 * import { assert } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.i32[Global.Active] = 2; // a peer that could answer
 * const words = new Int32Array(new SharedArrayBuffer(8));
 * const spinner = new Spinner(heap.i32);
 * assert(!spinner.whileEquals(words, 0, 0)); // nobody changes it: gives up
 * spinner.answered(); // the wait that followed got its answer
 * words[0] = 1;
 * assert(spinner.whileEquals(words, 0, 0));
 * ```
 */
export class Spinner {
  // The heap's words, for the activity (first page: never outgrown).
  readonly #i32: Int32Array;
  readonly #self: number;
  #micros = START_MICROS;
  #since = NOT_WAITING;

  /**
   * @param i32 The run's heap words.
   * @param self How much of the run's activity the poller is (see
   * `othersActive`): 1 for a thread, 0 for a worker whose threads all wait.
   */
  constructor(i32: Int32Array, self = 1) {
    this.#i32 = i32;
    this.#self = self;
  }

  /**
   * Whether a poll ran out and its wait has not been answered yet: the
   * wait is still on, and polling for it again would be as vain.
   *
   * @returns True between a lost poll and `answered`.
   */
  get waiting(): boolean {
    return this.#since !== NOT_WAITING;
  }

  /**
   * The budget now, in microseconds.
   *
   * @returns The budget.
   */
  get micros(): number {
    return this.#micros;
  }

  /**
   * Polls until `ready()` returns true, the budget runs out or nobody else
   * could answer.
   *
   * @param ready The condition.
   * @returns True if it became true: else wait some other way, and call
   * `answered` once the wait ends.
   */
  until(ready: () => boolean): boolean {
    this.#settleStale();
    for (let i = 0; i < POLLS_FIRST; i++) if (ready()) return true;
    if (!othersActive(this.#i32, this.#self)) return false;
    const start = performance.now();
    for (let last = start;;) {
      for (let i = 0; i < POLLS_PER_CHECK; i++) if (ready()) return true;
      last = this.#look(start, last);
      if (last < 0) return false;
    }
  }

  /**
   * Polls word `index` of `i32` until it differs from `value`, as `until`.
   *
   * @param i32 Shared words.
   * @param index The word.
   * @param value The value it has now.
   * @returns True if it changed.
   */
  whileEquals(i32: Int32Array, index: number, value: number): boolean {
    this.#settleStale();
    for (let i = 0; i < POLLS_FIRST; i++) {
      if (Atomics.load(i32, index) !== value) return true;
    }
    if (!othersActive(this.#i32, this.#self)) return false;
    const start = performance.now();
    for (let last = start;;) {
      for (let i = 0; i < POLLS_PER_CHECK; i++) {
        if (Atomics.load(i32, index) !== value) return true;
      }
      last = this.#look(start, last);
      if (last < 0) return false;
    }
  }

  /**
   * Ends the wait whose polling ran out: the budget learns how long the
   * answer took. A no-op when no such wait is pending.
   */
  answered(): void {
    if (this.#since === NOT_WAITING) return;
    this.#learn((performance.now() - this.#since) * 1000);
  }

  // A look at the clock while polling since `start`, the last at `last`:
  // the time now, or -1 to give up: nobody else could answer (the wait is
  // not timed), the poller was descheduled (the budget halves), or the
  // budget ran out (the wait is timed from `start`).
  #look(start: number, last: number): number {
    if (!othersActive(this.#i32, this.#self)) return -1;
    const now = performance.now();
    if ((now - last) * 1000 > PREEMPTED_MICROS) {
      this.#learn(Infinity);
      return -1;
    }
    if ((now - start) * 1000 < this.#micros) return now;
    this.#since = start;
    return -1;
  }

  // A new poll while a lost one was never answered: its wait was long.
  #settleStale(): void {
    if (this.#since !== NOT_WAITING) this.#learn(Infinity);
  }

  #learn(waitedMicros: number): void {
    this.#since = NOT_WAITING;
    this.#micros = waitedMicros <= MAX_MICROS
      ? Math.min(MAX_MICROS, Math.max(this.#micros, 2 * waitedMicros))
      : Math.max(MIN_MICROS, this.#micros / 2);
  }
}
