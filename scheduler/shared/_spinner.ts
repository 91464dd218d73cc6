// When a thread that must wait for another worker polls, and for how long,
// before it parks; and the same for a worker whose threads all wait, before
// it sleeps. The policy for every wait on a shared channel or select.
//
// Why poll at all: another worker often answers within a microsecond or
// two, and while both sides poll a hand-off costs about 0.15 µs; once one
// side sleeps it costs a park, a wake-up through the event loop and the
// kernel, about 55 µs here (../shared/anchors/workers/RESULTS.md), or 7 to
// 20 when the sleeper sleeps in place (pool_member.ts), plus the wait for
// a core on a loaded machine. Why not poll long: a core that polls for an
// answer that does not come is taken from every other thread on the
// machine, the peer's included.
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
//   3. The budget doubles when an answer comes while polling (after the
//      first look at the clock: earlier ones say nothing of the budget)
//      and halves when the budget runs out. A wait that polled not at all
//      (rule 1) changes nothing.
//   4. A wait polls once: after its polling ran out it parks (or sleeps)
//      until answered (`waiting` until `answered`), however many steps it
//      takes on the way (a fast path, then the locked one).
//   5. A receiver polling an empty ring paces its polls (`until`'s
//      `paced`): a few hundred nanoseconds of its own work between two
//      looks. Each look takes the cache line of the ring's tail from the
//      sender, which then waits for it at its next send; looking once per
//      few sends, the receiver takes the line once for all of them and
//      finds them there together. A lone value is seen that much later.
//      (Pacing a sender's polls of a full ring measured worse: the sender
//      is then the faster side, and only waits longer.)
// So a peer that answers within microseconds is polled for, while a peer
// that is busy elsewhere, or descheduled by the kernel, soon costs
// MIN_MICROS a wait, and a parked one nothing. (A budget that grew to
// cover how long a parked wait took, up to 100 µs, measured worse on this
// loaded machine: a peer that answers late is mostly one waiting for a
// core, and a longer poll keeps it waiting.)
//
// Invariants:
//   MIN_MICROS <= budget <= MAX_MICROS.
//   #waiting is true from a poll that ran out until its wait is answered
//   (or the next poll). Every rule here decides only how long to poll,
//   never what a wait returns.

import { Global } from "./heap.ts";

const MIN_MICROS = 2;
const MAX_MICROS = 50;
const START_MICROS = 20;
// Two looks at the clock this far apart: the poller was descheduled.
const PREEMPTED_MICROS = 30;
// Polls between two looks at the clock and the activity (a look costs
// about 0.1 µs here, a poll about 5 ns), and before the first: a hand-off
// from another worker takes about a microsecond, and most come before that
// first look.
const POLLS_PER_CHECK = 64;
const POLLS_FIRST = 256;
// A paced poll (rule 5) first works PACE_LOOPS steps, about 200 ns here,
// as long as PACE_POLLS plain polls: so paced polling looks at the clock
// and the activity as often.
const PACE_LOOPS = 128;
const PACE_POLLS = 8;
// What the pause computes, kept so that the compiler keeps the pause.
let paceSink = 0;

// Works a few hundred nanoseconds without touching shared memory.
function pause(): void {
  let x = paceSink;
  for (let i = 0; i < PACE_LOOPS; i++) x = (Math.imul(x, 31) + i) | 0;
  paceSink = x;
}

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
  #waiting = false;

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
    return this.#waiting;
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
   * @param paced Whether to pause between two polls (rule 5 at the top of
   * the file): for a receiver polling a ring.
   * @returns True if it became true: else wait some other way, and call
   * `answered` once the wait ends.
   */
  until(ready: () => boolean, paced = false): boolean {
    this.#waiting = false;
    const first = paced ? POLLS_FIRST / PACE_POLLS : POLLS_FIRST;
    const perCheck = paced ? POLLS_PER_CHECK / PACE_POLLS : POLLS_PER_CHECK;
    for (let i = 0; i < first; i++) {
      if (paced) pause();
      if (ready()) return true;
    }
    if (!othersActive(this.#i32, this.#self)) return false;
    const start = performance.now();
    for (let last = start;;) {
      for (let i = 0; i < perCheck; i++) {
        if (paced) pause();
        if (ready()) return this.#won();
      }
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
    this.#waiting = false;
    for (let i = 0; i < POLLS_FIRST; i++) {
      if (Atomics.load(i32, index) !== value) return true;
    }
    if (!othersActive(this.#i32, this.#self)) return false;
    const start = performance.now();
    for (let last = start;;) {
      for (let i = 0; i < POLLS_PER_CHECK; i++) {
        if (Atomics.load(i32, index) !== value) return this.#won();
      }
      last = this.#look(start, last);
      if (last < 0) return false;
    }
  }

  /**
   * Ends the wait whose polling ran out (a no-op if none is on): the next
   * wait polls again.
   */
  answered(): void {
    this.#waiting = false;
  }

  // A look at the clock while polling since `start`, the last at `last`:
  // the time now, or -1 to give up: nobody else could answer (nothing to
  // learn), or the poller was descheduled or the budget ran out (the
  // budget halves, and the wait is on).
  #look(start: number, last: number): number {
    if (!othersActive(this.#i32, this.#self)) return -1;
    const now = performance.now();
    const preempted = (now - last) * 1000 > PREEMPTED_MICROS;
    if (!preempted && (now - start) * 1000 < this.#micros) return now;
    this.#micros = Math.max(MIN_MICROS, this.#micros / 2);
    this.#waiting = true;
    return -1;
  }

  #won(): true {
    this.#micros = Math.min(MAX_MICROS, this.#micros * 2);
    return true;
  }
}
