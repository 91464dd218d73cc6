// Replaying a recorded run's channel order (`--replay`; docs/
// architecture.md §4, Record and replay; the recorder is
// schedule_recorder.ts).
//
// A thread about to attempt checks the channel's cursor. If the event
// there is its own, it attempts and moves the cursor on; if the event is
// its own but another op or kind, the replay has diverged (a ProgramError
// naming both); otherwise it parks on a bell (turn_bells.ts) and tries
// again when woken (on a pool it first polls for its turn a while). A
// select is forced to the case it took. Once the main thread's program
// ends, it waits for the record's last attempts (`drain`); a run that
// stalls first ended before its record (replay_stall.ts).
//
// Invariants:
//   A channel's cursor moves only after the attempt it let through has
//   returned, by the thread that made it.
//   A bell is registered before the cursor is read again (turn_bells.ts).

import type { Channel } from "../../scheduler/channel.ts";
import type { GreenThread } from "../../scheduler/green_thread.ts";
import type { SharedChannel } from "../../scheduler/shared/shared_channel.ts";
import { ProgramError } from "./errors.ts";
import { describeAttempt, stallError, unusedChannel } from "./replay_stall.ts";
import { ScheduleChannels } from "./schedule_channels.ts";
import {
  CHANNEL_WORDS,
  HEADER,
  scheduleCounters,
  type ScheduleShared,
  SEQ,
  W_BLOCK,
  W_KIND,
  W_OP,
  W_THREAD,
} from "./schedule_counters.ts";
import {
  CASE_BASE,
  EVENT_WORDS,
  eventAt,
  type ScheduleEvent,
  type ScheduleRecord,
} from "./schedule_file.ts";
import { TurnWait } from "./schedule_gate.ts";
import { ScheduleSites } from "./schedule_sites.ts";
import { DRAIN, TurnBells } from "./turn_bells.ts";

// A select's recorded choice when it panicked instead of choosing.
const PANICKED = -2;

// Per thread: channels made, selects started, the select waiting for its
// turn.
interface ThreadMarks {
  made: number;
  selects: number;
  pending: number;
}

/**
 * One worker's replayer of a recorded run's channel order.
 *
 * @example Usage
 * ```ts
 * import { ScheduleReplayer } from "./schedule_replayer.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const record = {
 *   fingerprint: new Uint8Array(32),
 *   seed: 1,
 *   threads: [0],
 *   channels: [],
 *   choices: [[]],
 * };
 * const gate = new ScheduleReplayer(record, 0, 1);
 * assertEquals(gate.mode, "replay");
 * ```
 */
export class ScheduleReplayer {
  /** Replaying. */
  readonly mode = "replay";
  /** The record being replayed. */
  readonly record: ScheduleRecord;
  // Shared on a pool (fixed size: one slot per recorded channel).
  readonly #counters: Int32Array;
  readonly #sites = new ScheduleSites();
  readonly #channels = new ScheduleChannels();
  readonly #bells: TurnBells;
  readonly #threadIndex = new Map<number, number>();
  readonly #channelIndex = new Map<string, number>();
  readonly #marks = new WeakMap<GreenThread, ThreadMarks>();
  // Whether the main thread waits for the record's last attempts.
  #draining = false;
  /**
   * On a pool, how long a thread polls for its turn before it parks (the
   * pool sets it; see scheduler/shared/_spinner.ts).
   */
  spinner: { until(ready: () => boolean): boolean } | undefined = undefined;

  /**
   * A replayer of `record` for one worker of a run.
   *
   * @param record The decoded record.
   * @param worker This worker's index.
   * @param workers The run's worker count.
   * @param shared The main thread's shared memory (on a worker).
   */
  constructor(
    record: ScheduleRecord,
    worker: number,
    workers: number,
    shared?: ScheduleShared,
  ) {
    this.record = record;
    this.#counters = scheduleCounters(
      Math.max(64, record.channels.length),
      workers > 1,
      shared,
    );
    this.#bells = new TurnBells(this.#counters, worker, workers);
    record.threads.forEach((key, i) => this.#threadIndex.set(key, i));
    record.channels.forEach((c, i) =>
      this.#channelIndex.set(`${record.threads[c.creator]}:${c.ordinal}`, i)
    );
  }

  /**
   * The memory a pooled run's workers share (only on a pool).
   *
   * @returns The buffers.
   */
  get shared(): ScheduleShared {
    return { counters: this.#counters.buffer as SharedArrayBuffer };
  }

  /** Wakes another worker's bells (a pool sets it). */
  get wakeWorkers(): ((workers: number[]) => void) | undefined {
    return this.#bells.wakeWorkers;
  }

  set wakeWorkers(wake: ((workers: number[]) => void) | undefined) {
    this.#bells.wakeWorkers = wake;
  }

  /**
   * Gives a channel `thread` just made the index the record has for it
   * (`channel_create`); one the record lacks gets none.
   *
   * @param ch The channel.
   * @param thread Its creator.
   */
  made(
    ch: Channel<unknown> | SharedChannel<unknown>,
    thread: GreenThread,
  ): void {
    const ordinal = this.#marks_(thread).made++;
    const key = thread.lineageKey >>> 0;
    const index = this.#channelIndex.get(`${key}:${ordinal}`) ?? -1;
    if (index >= 0) this.#channels.give(ch, index);
  }

  /**
   * The number this gate gives the attempts of kind `kind` at an op: a
   * wrapped op asks once per run and passes it to `enter`.
   *
   * @param kind SEND, RECV, CLOSE, or CASE_BASE + a select's case.
   * @param block The op's block.
   * @param op The op's index.
   * @returns The site.
   */
  site(kind: number, block: number, op: number): number {
    return this.#sites.site(kind, block, op);
  }

  /**
   * A channel's index, or -1 for one no `channel_create` made (a timer's).
   *
   * @param ch The channel.
   * @returns Its index.
   */
  indexOf(ch: Channel<unknown> | SharedChannel<unknown>): number {
    return this.#channels.indexOf(ch);
  }

  /**
   * Before a plain channel op's attempt: waits for its turn.
   *
   * @param c The channel's index (not -1).
   * @param thread The thread.
   * @param site The op's site of kind SEND, RECV or CLOSE (`site()`).
   * @throws {TurnWait} When it is another thread's turn.
   * @throws {ProgramError} When the record expects another op.
   */
  enter(c: number, thread: GreenThread, site: number): void {
    const sites = this.#sites;
    this.#turn(c, thread, sites.kind(site), sites.block(site), sites.op(site));
  }

  /**
   * After the attempt `enter` let through: moves the cursor on and wakes
   * whoever waits for it.
   *
   * @param c The channel's index.
   */
  leave(c: number): void {
    Atomics.add(this.#counters, HEADER + c * CHANNEL_WORDS + SEQ, 1);
    this.#bells.ring(c);
  }

  /**
   * Before a select's attempt: the case the record says it took, after
   * waiting for that case's turn; -1 for a select it never made (or one
   * whose case had no channel), -2 for one that panicked (it runs free,
   * and panics again).
   *
   * @param channels Each case's channel index (-1: nil, default, timer).
   * @param thread The thread.
   * @param sites Each case's site (kind CASE_BASE + case, `site()`).
   * @returns The case to force, -1, or -2.
   * @throws {TurnWait} When it is another thread's turn.
   */
  enterSelect(
    channels: readonly number[],
    thread: GreenThread,
    sites: readonly number[],
  ): number {
    const marks = this.#marks_(thread);
    const block = this.#sites.block(sites[0]);
    const op = this.#sites.op(sites[0]);
    const ordinal = marks.pending >= 0 ? marks.pending : marks.selects++;
    marks.pending = ordinal;
    const t = this.#threadIndex.get(thread.lineageKey >>> 0);
    const choice = t === undefined ? -1 : this.record.choices[t][ordinal] ?? -1;
    if (choice === PANICKED) {
      marks.pending = -1;
      return -2;
    }
    const c = choice < 0 ? -1 : channels[choice];
    if (c >= 0) this.#turn(c, thread, CASE_BASE + choice, block, op);
    marks.pending = -1;
    return choice;
  }

  /**
   * After a select's attempt: moves the forced case's cursor on.
   *
   * @param channels As given to `enterSelect`.
   * @param forced What `enterSelect` returned.
   */
  leaveSelect(channels: readonly number[], forced: number): void {
    if (forced >= 0 && channels[forced] >= 0) this.leave(channels[forced]);
  }

  /**
   * A select's choice (nothing to do: it was forced).
   *
   * @param _thread The thread.
   * @param _index The case.
   */
  chose(_thread: GreenThread, _index: number): void {}

  /** Wakes this worker's bells: another worker moved a cursor. */
  turnMessage(): void {
    this.#bells.wakeAll();
  }

  /**
   * The main thread's body: its program, then `drain`.
   *
   * @param ran What running block 0 returned.
   * @param thread The main thread.
   * @returns What the main thread's body returns.
   */
  mainEnds(
    ran: void | Promise<void>,
    thread: GreenThread,
  ): void | Promise<void> {
    if (ran instanceof Promise) return ran.then(() => this.drain(thread));
    return this.drain(thread);
  }

  /**
   * Once the main thread's program has ended: waits until every recorded
   * attempt has been made, so that threads that still owe some make them
   * before the run ends (as they did in the recording). A run that stalls
   * meanwhile ended before its record did: `stall()` names the first
   * attempt that never came.
   *
   * @param thread The main thread.
   * @returns Undefined when the record is used up, else a promise.
   */
  drain(thread: GreenThread): void | Promise<void> {
    if (unusedChannel(this.record, this.#counters) < 0) return;
    this.#draining = true;
    return this.#drainLoop(thread);
  }

  /**
   * After the run stalled (every thread blocked): the divergence a thread
   * waiting for its turn shows, or, when the main thread's program had
   * ended, the first recorded attempt never made.
   *
   * @returns The error, or undefined when no thread waited for a turn.
   */
  stall(): ProgramError | undefined {
    return stallError(this.record, this.#counters, this.#draining);
  }

  async #drainLoop(thread: GreenThread): Promise<void> {
    while (unusedChannel(this.record, this.#counters) >= 0) {
      // Register the bell, then look again (see the invariants).
      const bell = this.#bells.add(DRAIN);
      if (unusedChannel(this.record, this.#counters) < 0) {
        this.#bells.wake(DRAIN);
        break;
      }
      await bell.recv({ thread });
    }
    this.#draining = false;
  }

  // Lets the attempt through when the channel's next event is this
  // thread's, else parks on a bell (TurnWait).
  #turn(
    c: number,
    thread: GreenThread,
    kind: number,
    block: number,
    op: number,
  ): void {
    const record = this.record;
    const t = this.#threadIndex.get(thread.lineageKey >>> 0) ?? -1;
    const events = record.channels[c].events;
    const counters = this.#counters;
    const w = HEADER + c * CHANNEL_WORDS;
    let at = Atomics.load(counters, w + SEQ) * EVENT_WORDS;
    if (at < events.length && events[at] === t) {
      if (
        events[at + 1] === kind && events[at + 2] === block &&
        events[at + 3] === op
      ) { // this attempt's turn
        if (counters[w + W_THREAD] !== 0) this.#unmark(w, t);
        return;
      }
      return this.#check(
        eventAt(events, at / EVENT_WORDS)!,
        c,
        t,
        kind,
        block,
        op,
      );
    }
    // On a pool, the turn is often another worker's attempt under way:
    // poll for it a while (_spinner.ts) before parking, which costs a turn
    // message through the wake ring and a wake-up of this worker.
    const spinner = this.spinner;
    if (
      spinner !== undefined &&
      spinner.until(() => {
        const next = Atomics.load(counters, w + SEQ) * EVENT_WORDS;
        return next < events.length && events[next] === t;
      })
    ) {
      at = Atomics.load(counters, w + SEQ) * EVENT_WORDS;
      return this.#check(
        eventAt(events, at / EVENT_WORDS)!,
        c,
        t,
        kind,
        block,
        op,
      );
    }
    // Register the bell, then look again (see the invariants).
    const bell = this.#bells.add(c);
    at = Atomics.load(counters, w + SEQ) * EVENT_WORDS;
    if (at < events.length && events[at] === t) {
      this.#bells.remove(c, bell);
      return this.#check(
        eventAt(events, at / EVENT_WORDS)!,
        c,
        t,
        kind,
        block,
        op,
      );
    }
    Atomics.store(counters, w + W_THREAD, t + 2);
    counters[w + W_KIND] = kind;
    counters[w + W_BLOCK] = block;
    counters[w + W_OP] = op;
    throw new TurnWait(bell.recv({ thread }) as Promise<unknown>);
  }

  // The event at the cursor is this thread's: it must be this attempt.
  #check(
    next: ScheduleEvent,
    c: number,
    t: number,
    kind: number,
    block: number,
    op: number,
  ): void {
    if (next.kind === kind && next.block === block && next.op === op) {
      this.#unmark(HEADER + c * CHANNEL_WORDS, t);
      return;
    }
    const actual = describeAttempt({ thread: t, kind, block, op });
    throw new ProgramError(
      `--replay: diverged on channel ${c}: expected ${
        describeAttempt(next)
      }, actual ${actual}`,
    );
  }

  // A thread whose wait ended clears its mark, unless another thread's
  // wait on the channel has replaced it since.
  #unmark(w: number, t: number): void {
    Atomics.compareExchange(this.#counters, w + W_THREAD, t + 2, 0);
  }

  #marks_(thread: GreenThread): ThreadMarks {
    let m = this.#marks.get(thread);
    if (m === undefined) {
      m = { made: 0, selects: 0, pending: -1 };
      this.#marks.set(thread, m);
    }
    return m;
  }
}
