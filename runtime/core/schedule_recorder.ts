// Recording the order of a run's channel operations (`--record`; docs/
// architecture.md §4, Record and replay; the replayer is
// schedule_replayer.ts).
//
// What is recorded is each green thread's *attempt* on a channel: the
// moment a send, receive, close or select takes the channel's state, in
// the order the channel saw them. A channel's state after a sequence of
// attempts depends only on that sequence (a parked waiter is the attempt
// that queued it; a waker completes it within its own attempt), so
// replaying each channel's attempts in the recorded order, with each
// select forced to the case it took, hands every value to the same
// receiver. Attempts on different channels stay free to interleave.
//
// A select's attempt is noted on every case's channel and its choice once
// it is made; the file keeps only the chosen case's attempt (the others
// never took a value, or the select would have chosen them).
//
// On one worker, a channel's attempts come in the order it takes them:
// one log of every attempt (record_log.ts), encoded as it is. On a pool,
// each worker notes its own entries (record_entries.ts), with a sequence
// number per channel from the shared counters; attempts on one channel
// are put in order by a spin lock per channel, held from before the
// attempt's sequence number is taken until the attempt returns, so the
// numbers follow the order in which the channel's own lock (or its
// lock-free path) took them. The main thread gathers every worker's
// entries as the run ends and builds the record (record_building.ts).
//
// Invariants:
//   A channel's index is given once, by its creator, before the channel
//   is shared (schedule_channels.ts).
//   On a pool, a channel's sequence word moves only under its order lock;
//   a select takes its channels' locks in ascending order, each once.

import type { Channel } from "../../scheduler/channel.ts";
import type { GreenThread } from "../../scheduler/green_thread.ts";
import type { SharedChannel } from "../../scheduler/shared/shared_channel.ts";
import { ProgramError } from "./errors.ts";
import { buildRecord } from "./record_building.ts";
import { ATTEMPT, CHOICE, MADE, RecordEntries } from "./record_entries.ts";
import { RecordLog } from "./record_log.ts";
import { ScheduleChannels } from "./schedule_channels.ts";
import {
  CHANNEL_WORDS,
  grownCounters,
  HEADER,
  LOCK,
  MAX_CHANNELS,
  NEXT_CHANNEL,
  scheduleCounters,
  type ScheduleShared,
  SEQ,
} from "./schedule_counters.ts";
import {
  CASE_BASE,
  encodePackedSchedule,
  encodeSchedule,
} from "./schedule_file.ts";
import { ScheduleSites } from "./schedule_sites.ts";

// Per thread: its lineage key, channels made, selects started; on one
// worker, also each select's choice, and where the latest select's
// attempts sit in the log (per case: channel, then the attempt's place;
// -1 for none).
interface ThreadMarks {
  readonly key: number;
  made: number;
  selects: number;
  readonly choices: number[];
  readonly slots: number[];
}

/**
 * One worker's recorder of the run's channel order.
 *
 * @example Usage
 * ```ts
 * import { ScheduleRecorder } from "./schedule_recorder.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gate = new ScheduleRecorder(0, 1);
 * assertEquals(gate.mode, "record");
 * ```
 */
export class ScheduleRecorder {
  /** Recording. */
  readonly mode = "record";
  /** No record is replayed. */
  readonly record: undefined = undefined;
  readonly #pooled: boolean;
  // Shared (fixed size) on a pool; else private, grown by copying.
  #counters: Int32Array;
  readonly #sites = new ScheduleSites();
  readonly #channels = new ScheduleChannels();
  // On a pool: this worker's entries.
  readonly #entries: RecordEntries;
  // On one worker: the log of attempts, each channel's creator (lineage
  // key) and ordinal (two words a channel), and every thread's marks, for
  // their choices at the end.
  readonly #log = new RecordLog();
  readonly #made: number[] = [];
  readonly #threads: ThreadMarks[] = [];
  readonly #marks = new WeakMap<GreenThread, ThreadMarks>();
  // The thread of the latest select and its marks: a select that chooses
  // at once reports its choice before any other thread runs.
  #lastThread: GreenThread | undefined = undefined;
  #lastMarks: ThreadMarks | undefined = undefined;
  /** Unused: a recording never waits for a turn (a pool sets it). */
  spinner: { until(ready: () => boolean): boolean } | undefined = undefined;
  /** Unused: a recording never wakes other workers (a pool sets it). */
  wakeWorkers: ((workers: number[]) => void) | undefined = undefined;

  /**
   * A recorder for one worker of a run.
   *
   * @param _worker This worker's index (every worker records alike).
   * @param workers The run's worker count.
   * @param shared The main thread's shared memory (on a worker).
   */
  constructor(_worker: number, workers: number, shared?: ScheduleShared) {
    this.#pooled = workers > 1;
    // On a pool, a fixed size: a view of a growable SharedArrayBuffer
    // costs ~30 times as much per access.
    this.#counters = scheduleCounters(
      this.#pooled ? MAX_CHANNELS : 64,
      this.#pooled,
      shared,
    );
    this.#entries = new RecordEntries(this.#pooled ? undefined : 8);
  }

  /**
   * The memory a pooled run's workers share (only on a pool).
   *
   * @returns The buffers.
   */
  get shared(): ScheduleShared {
    return { counters: this.#counters.buffer as SharedArrayBuffer };
  }

  /**
   * On a pool: this worker's entries, for the main thread to `adopt` as
   * the run ends.
   *
   * @returns The chunks of entries.
   */
  entries(): Int32Array[] {
    return this.#entries.chunks();
  }

  /**
   * On a pool, on the main thread: takes in another worker's `entries`.
   *
   * @param chunks The entries.
   */
  adopt(chunks: readonly Int32Array[]): void {
    this.#entries.adopt(chunks);
  }

  /**
   * Gives a channel `thread` just made its index (`channel_create`).
   *
   * @param ch The channel.
   * @param thread Its creator.
   * @throws {ProgramError} On a pool, past MAX_CHANNELS channels.
   */
  made(
    ch: Channel<unknown> | SharedChannel<unknown>,
    thread: GreenThread,
  ): void {
    const ordinal = this.#marks_(thread).made++;
    const key = thread.lineageKey >>> 0;
    const index = Atomics.add(this.#counters, NEXT_CHANNEL, 1);
    const need = HEADER + (index + 1) * CHANNEL_WORDS;
    if (need > this.#counters.length) {
      if (this.#pooled) {
        throw new ProgramError(
          `--record: more than ${MAX_CHANNELS} channels made`,
        );
      }
      this.#counters = grownCounters(this.#counters, need);
    }
    if (this.#pooled) {
      this.#entries.append(MADE, index, key, ordinal, 0, 0, 0, 0);
    } else this.#made.push(key, ordinal);
    this.#channels.give(ch, index);
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
   * Before a plain channel op's attempt: records it (taking the channel's
   * order lock on a pool).
   *
   * @param c The channel's index (not -1).
   * @param thread The thread.
   * @param site The op's site of kind SEND, RECV or CLOSE (`site()`).
   */
  enter(c: number, thread: GreenThread, site: number): void {
    if (!this.#pooled) {
      this.#log.add(c, thread.lineageKey, site);
      return;
    }
    const sites = this.#sites;
    this.#lock(c);
    const seq = this.#counters[HEADER + c * CHANNEL_WORDS + SEQ]++;
    this.#entries.append(
      ATTEMPT,
      c,
      seq,
      thread.lineageKey >>> 0,
      sites.block(site),
      sites.op(site),
      sites.kind(site),
      -1,
    );
  }

  /**
   * After the attempt `enter` recorded: releases the order lock.
   *
   * @param c The channel's index.
   */
  leave(c: number): void {
    if (this.#pooled) this.#unlock(c);
  }

  /**
   * Before a select's attempt: notes the attempt on every case's channel
   * (`leaveSelect` releases them).
   *
   * @param channels Each case's channel index (-1: nil, default, timer).
   * @param thread The thread.
   * @param sites Each case's site (kind CASE_BASE + case, `site()`).
   * @returns -2: any case may be taken.
   */
  enterSelect(
    channels: readonly number[],
    thread: GreenThread,
    sites: readonly number[],
  ): number {
    const marks = this.#marks_(thread);
    const ordinal = marks.selects++;
    const key = marks.key;
    if (!this.#pooled) {
      const slots = marks.slots;
      slots.length = 0;
      for (let i = 0; i < channels.length; i++) {
        const c = channels[i];
        slots.push(c, c < 0 ? -1 : this.#log.add(c, key, ~sites[i]));
      }
      this.#lastThread = thread;
      this.#lastMarks = marks;
      return -2;
    }
    const block = this.#sites.block(sites[0]);
    const op = this.#sites.op(sites[0]);
    this.#lockAll(channels);
    for (let i = 0; i < channels.length; i++) {
      const c = channels[i];
      if (c < 0) continue;
      const seq = this.#counters[HEADER + c * CHANNEL_WORDS + SEQ]++;
      this.#entries.append(
        ATTEMPT,
        c,
        seq,
        key,
        block,
        op,
        CASE_BASE + i,
        ordinal,
      );
    }
    return -2;
  }

  /**
   * After a select's attempt: releases the order locks.
   *
   * @param channels As given to `enterSelect`.
   * @param _forced What `enterSelect` returned.
   */
  leaveSelect(channels: readonly number[], _forced: number): void {
    if (this.#pooled) this.#unlockAll(channels);
  }

  /**
   * Records the case a thread's latest select took (-2: it panicked).
   *
   * @param thread The thread.
   * @param index The case.
   */
  chose(thread: GreenThread, index: number): void {
    const marks = thread === this.#lastThread
      ? this.#lastMarks!
      : this.#marks_(thread);
    const ordinal = marks.selects - 1;
    if (this.#pooled) {
      this.#entries.append(CHOICE, marks.key, ordinal, index, 0, 0, 0, 0);
      return;
    }
    marks.choices[ordinal] = index;
    const slots = marks.slots;
    const c = index >= 0 ? slots[2 * index] : -1;
    if (c >= 0) this.#log.flip(slots[2 * index + 1]);
    slots.length = 0;
  }

  /** Nothing to wake: a recording's threads never wait for a turn. */
  turnMessage(): void {}

  /**
   * The main thread's body: its program, as it is.
   *
   * @param ran What running block 0 returned.
   * @param _thread The main thread.
   * @returns `ran`.
   */
  mainEnds(
    ran: void | Promise<void>,
    _thread: GreenThread,
  ): void | Promise<void> {
    return ran;
  }

  /**
   * The record file of a recorded run (on the main thread, once, after
   * the run).
   *
   * @param fingerprint The program's and feeds' fingerprint.
   * @param seed The run's seed.
   * @returns The file's bytes.
   */
  encode(fingerprint: Uint8Array, seed: number): Uint8Array {
    if (this.#pooled) {
      return encodeSchedule(
        buildRecord(this.#entries.chunks(), fingerprint, seed),
      );
    }
    // The log as it is (attempts of cases no select took keep their
    // complemented site, which the encoder skips), each thread's choices.
    const choices: [number, number[]][] = [];
    for (const marks of this.#threads) {
      if (marks.choices.length > 0) choices.push([marks.key, marks.choices]);
    }
    const bytes = encodePackedSchedule({
      fingerprint,
      seed,
      made: this.#made,
      sites: this.#sites.words,
      attempts: this.#log.chunks(),
      choices,
    });
    this.#log.recycle();
    return bytes;
  }

  // Locks each channel of a select's cases once, in ascending order, so
  // that two selects on the same channels never wait for each other.
  #lockAll(channels: readonly number[]): void {
    for (let c = nextAbove(channels, -1); c >= 0; c = nextAbove(channels, c)) {
      this.#lock(c);
    }
  }

  #unlockAll(channels: readonly number[]): void {
    for (let c = nextAbove(channels, -1); c >= 0; c = nextAbove(channels, c)) {
      this.#unlock(c);
    }
  }

  #lock(c: number): void {
    const at = HEADER + c * CHANNEL_WORDS + LOCK;
    while (Atomics.compareExchange(this.#counters, at, 0, 1) !== 0) {
      // Another worker's attempt on this channel is under way: it holds
      // the lock only while its attempt runs, which never waits.
    }
  }

  #unlock(c: number): void {
    Atomics.store(this.#counters, HEADER + c * CHANNEL_WORDS + LOCK, 0);
  }

  #marks_(thread: GreenThread): ThreadMarks {
    let m = this.#marks.get(thread);
    if (m === undefined) {
      m = {
        key: thread.lineageKey >>> 0,
        made: 0,
        selects: 0,
        choices: [],
        slots: [],
      };
      this.#marks.set(thread, m);
      if (!this.#pooled) this.#threads.push(m);
    }
    return m;
  }
}

// The least channel index in `channels` above `c`, or -1: walking up from
// -1 visits each channel once, in lock order, without allocating.
function nextAbove(channels: readonly number[], c: number): number {
  let next = -1;
  for (let i = 0; i < channels.length; i++) {
    const d = channels[i];
    if (d > c && (next < 0 || d < next)) next = d;
  }
  return next;
}
