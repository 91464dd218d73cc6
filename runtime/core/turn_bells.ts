// The bells a replay's threads park on while they wait for their turn
// (`--replay`): a bell is a local channel, so a run whose every thread
// waits is a deadlock the scheduler sees (replay_stall.ts then names it).
// A cursor that moves wakes this worker's bells of that channel and, when
// bells wait on it anywhere, has a turn message posted to every other
// worker with bells (`wakeWorkers`, set by the pool).
//
// Invariants:
//   A bell is registered before the cursor is read again, and a cursor
//   moves before bells are rung: no wake-up is lost.
//   WAITING + w counts the bells parked on worker w; a channel's BELLS
//   word (DRAINING for DRAIN) counts those parked for it on every worker.

import { Channel } from "../../scheduler/channel.ts";
import {
  BELLS,
  CHANNEL_WORDS,
  DRAINING,
  HEADER,
  WAITING,
} from "./schedule_counters.ts";

/** The bells of a main thread that waits for the record to be used up. */
export const DRAIN = -1;

/**
 * One worker's bells.
 *
 * @example Usage
 * ```ts
 * import { TurnBells } from "./turn_bells.ts";
 * import { scheduleCounters } from "./schedule_counters.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const bells = new TurnBells(scheduleCounters(64, false), 0, 1);
 * const bell = bells.add(3);
 * bells.ring(3); // channel 3's cursor moved
 * assertEquals(bell.tryRecv(), { state: "ok", value: true });
 * ```
 */
export class TurnBells {
  readonly #counters: Int32Array;
  readonly #worker: number;
  readonly #workers: number;
  readonly #bells = new Map<number, Channel<boolean>[]>();
  /** Wakes other workers' bells (a pool sets it). */
  wakeWorkers: ((workers: number[]) => void) | undefined = undefined;

  /**
   * A worker's bells, counted in the replay's counters.
   *
   * @param counters The replay's counters.
   * @param worker This worker's index.
   * @param workers The run's worker count.
   */
  constructor(counters: Int32Array, worker: number, workers: number) {
    this.#counters = counters;
    this.#worker = worker;
    this.#workers = workers;
  }

  /**
   * A bell for a wait on channel c (or DRAIN), counted in this worker's
   * WAITING word so that other workers' cursor moves ring it.
   *
   * @param c The channel's index, or DRAIN.
   * @returns The bell.
   */
  add(c: number): Channel<boolean> {
    const bell = new Channel<boolean>(1);
    const list = this.#bells.get(c);
    if (list === undefined) this.#bells.set(c, [bell]);
    else list.push(bell);
    this.#count(c, 1);
    return bell;
  }

  /**
   * Takes back a bell `add` gave that will not be waited on.
   *
   * @param c Its channel's index.
   * @param bell The bell.
   */
  remove(c: number, bell: Channel<boolean>): void {
    const list = this.#bells.get(c)!;
    list.splice(list.indexOf(bell), 1);
    this.#count(c, -1);
  }

  /**
   * After channel `c`'s cursor moved: wakes its bells and the drain's
   * here, and has every other worker with bells parked wake its own.
   *
   * @param c The channel's index.
   */
  ring(c: number): void {
    this.wake(c);
    this.wake(DRAIN);
    if (this.#workers < 2 || this.wakeWorkers === undefined) return;
    const counters = this.#counters;
    if (
      Atomics.load(counters, HEADER + c * CHANNEL_WORDS + BELLS) === 0 &&
      Atomics.load(counters, DRAINING) === 0
    ) return; // nobody waits for this cursor
    let others: number[] | undefined;
    for (let k = 0; k < this.#workers; k++) {
      if (k !== this.#worker && Atomics.load(counters, WAITING + k) > 0) {
        (others ??= []).push(k);
      }
    }
    if (others !== undefined) this.wakeWorkers(others);
  }

  /**
   * Wakes this worker's bells of channel `c` (or DRAIN).
   *
   * @param c The channel's index, or DRAIN.
   */
  wake(c: number): void {
    const list = this.#bells.get(c);
    if (list === undefined) return;
    this.#bells.delete(c);
    this.#count(c, -list.length);
    for (const bell of list) bell.trySend(true);
  }

  /** Wakes every bell of this worker's: another worker moved a cursor. */
  wakeAll(): void {
    for (const c of [...this.#bells.keys()]) this.wake(c);
  }

  // Counts n bells more (or fewer) parked on this worker, for channel c
  // or, c being DRAIN, for the record's end.
  #count(c: number, n: number): void {
    const counters = this.#counters;
    Atomics.add(counters, WAITING + this.#worker, n);
    Atomics.add(
      counters,
      c === DRAIN ? DRAINING : HEADER + c * CHANNEL_WORDS + BELLS,
      n,
    );
  }
}
