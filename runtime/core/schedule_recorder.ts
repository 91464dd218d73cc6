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
// each worker notes its own entries (record_entries.ts), each attempt
// with the next sequence number of its channel, taken where the channel
// orders its attempts: inside the shared channel's own critical section,
// under the heap's lock (scheduler/shared/pool_member.ts's attemptHook,
// `attempted` here), so a recording costs no lock of its own. While the
// hook is set, shared channel operations skip their lock-free paths,
// whose order among a channel's attempts no lock would fix. Every
// worker's entries are in shared memory: as the run ends the main thread
// reads what each has published, with the heap's lock held
// (`publishedWords`), and builds the record from it
// (record_building.ts), whether or not the workers are still busy.
//
// Invariants:
//   A channel's index is given once, by its creator, before the channel
//   is shared (schedule_channels.ts).
//   On a pool, an attempt's sequence number is taken with the heap's lock
//   held and the channel frozen, between `enter` and `leave` (or
//   `enterSelect` and `leaveSelect`) of the one attempt under way on this
//   worker, and its entry is appended and published there, under the
//   same lock: so the entries published when the main thread takes the
//   lock hold every attempt numbered before, and each channel's
//   sequence numbers are dense up to there. An attempt that never
//   reached the lock (it failed before) takes the next number at `leave`
//   and is appended there.

import type { Channel } from "../../scheduler/channel.ts";
import type { GreenThread } from "../../scheduler/green_thread.ts";
import type { SharedChannel } from "../../scheduler/shared/shared_channel.ts";
import { ProgramError } from "./errors.ts";
import { buildRecord } from "./record_building.ts";
import { ATTEMPT, CHOICE, MADE, RecordEntries } from "./record_entries.ts";
import { RecordLog } from "./record_log.ts";
import { indexOfTag, ScheduleChannels } from "./schedule_channels.ts";
import {
  CHANNEL_WORDS,
  grownCounters,
  HEADER,
  MAX_CHANNELS,
  NEXT_CHANNEL,
  RECORDED,
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
  readonly #workers: number;
  // Shared (fixed size) on a pool; else private, grown by copying.
  #counters: Int32Array;
  readonly #sites = new ScheduleSites();
  readonly #channels = new ScheduleChannels();
  // On a pool: this worker's entries; on the main thread, also the other
  // workers' (`adopt`) and where its own end (`publishedWords`).
  readonly #entries: RecordEntries | undefined;
  #post: ((chunk: Int32Array) => void) | undefined = undefined;
  readonly #adopted: Int32Array[] = [];
  #ownEnd = -1;
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
  // On a pool, the attempt between `enter` and `leave`: its channel, its
  // sequence number once the channel's lock gave it one (-1 before), its
  // thread's lineage key, and its site's kind (a select's: unused), block
  // and op.
  #pending = -1;
  #pendingSeq = -1;
  #pendingKey = 0;
  #pendingKind = 0;
  #pendingBlock = 0;
  #pendingOp = 0;
  // On a pool, the select between `enterSelect` and `leaveSelect`: its
  // cases' channels, each case's sequence number (-1 before), its ordinal.
  #selectChannels: readonly number[] | undefined = undefined;
  readonly #selectSeqs: number[] = [];
  #selectOrdinal = 0;
  /** Unused: a recording never waits for a turn (a pool sets it). */
  spinner: { until(ready: () => boolean): boolean } | undefined = undefined;
  /** Unused: a recording never wakes other workers (a pool sets it). */
  wakeWorkers: ((workers: number[]) => void) | undefined = undefined;

  /**
   * A recorder for one worker of a run.
   *
   * @param worker This worker's index (0: the main thread).
   * @param workers The run's worker count.
   * @param shared The main thread's shared memory (on a worker).
   */
  constructor(worker: number, workers: number, shared?: ScheduleShared) {
    this.#pooled = workers > 1;
    this.#workers = workers;
    // On a pool, a fixed size: a view of a growable SharedArrayBuffer
    // costs ~30 times as much per access.
    this.#counters = scheduleCounters(
      this.#pooled ? MAX_CHANNELS : 64,
      this.#pooled,
      shared,
    );
    this.#entries = this.#pooled
      ? new RecordEntries({
        counters: this.#counters,
        word: RECORDED + worker,
        post: (chunk) => this.#post?.(chunk),
      })
      : undefined;
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
   * On a pool worker: where each new chunk of this worker's entries goes
   * (to the main thread), as it is allocated (record_entries.ts).
   *
   * @param post Sends a chunk.
   */
  postChunksTo(post: (chunk: Int32Array) => void): void {
    this.#post = post;
  }

  /**
   * On a pool, on the main thread, once the run's main program has ended,
   * with the heap's lock held: the words of entries each worker has
   * published, where the record ends (record_entries.ts). This thread's
   * own entries end there too.
   *
   * @returns One count per worker, this one first.
   */
  publishedWords(): number[] {
    const words: number[] = [];
    for (let w = 0; w < this.#workers; w++) {
      words.push(Atomics.load(this.#counters, RECORDED + w));
    }
    this.#ownEnd = words[0];
    return words;
  }

  /**
   * On a pool, on the main thread: takes in the other workers' entries
   * up to their `publishedWords`.
   *
   * @param chunks The entries (views of their chunks).
   */
  adopt(chunks: readonly Int32Array[]): void {
    this.#adopted.push(...chunks);
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
    if (this.#entries !== undefined) {
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
   * Before a plain channel op's attempt: on one worker, records it; on a
   * pool, notes it for `attempted` (or `leave`) to record.
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
    this.#entries!.reserve(1);
    this.#pending = c;
    this.#pendingKey = thread.lineageKey >>> 0;
    this.#pendingKind = sites.kind(site);
    this.#pendingBlock = sites.block(site);
    this.#pendingOp = sites.op(site);
  }

  /**
   * After the attempt `enter` noted, on a pool: when it never reached a
   * shared channel's lock (`attempted` recorded it there), records it
   * with its channel's next sequence number.
   *
   * @param c The channel's index.
   */
  leave(c: number): void {
    if (!this.#pooled) return;
    if (this.#pendingSeq < 0) {
      this.#appendAttempt(c, this.#nextSeq(c), this.#pendingKind, -1);
    }
    this.#pending = -1;
    this.#pendingSeq = -1;
  }

  /**
   * Before a select's attempt: on one worker, records the attempt on
   * every case's channel (the case it takes is kept); on a pool, notes it
   * for `attempted` (or `leaveSelect`) to record.
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
    const first = sites[0];
    this.#entries!.reserve(channels.length);
    this.#selectChannels = channels;
    this.#selectSeqs.length = channels.length;
    this.#selectSeqs.fill(-1);
    this.#pendingKey = key;
    this.#pendingBlock = this.#sites.block(first);
    this.#pendingOp = this.#sites.op(first);
    this.#selectOrdinal = ordinal;
    return -2;
  }

  /**
   * After a select's attempt, on a pool: records its attempt on every
   * case's channel that never reached a shared channel's lock
   * (`attempted` recorded the others there), each with its channel's
   * next sequence number.
   *
   * @param channels As given to `enterSelect`.
   * @param _forced What `enterSelect` returned.
   */
  leaveSelect(channels: readonly number[], _forced: number): void {
    if (!this.#pooled) return;
    const seqs = this.#selectSeqs;
    for (let i = 0; i < channels.length; i++) {
      const c = channels[i];
      if (c >= 0 && seqs[i] < 0) {
        this.#appendAttempt(
          c,
          this.#nextSeq(c),
          CASE_BASE + i,
          this.#selectOrdinal,
        );
      }
    }
    this.#selectChannels = undefined;
  }

  /**
   * On a pool, the hook every shared channel's attempt calls with the
   * heap's lock held (scheduler/shared/pool_member.ts's attemptHook):
   * gives the attempt `enter` or `enterSelect` noted on that channel its
   * sequence number, in the order the lock takes them, and records it
   * there (see the invariants). Other channel operations (of the
   * runtime's own) pass.
   *
   * @param tag The channel's tag.
   */
  readonly attempted = (tag: number): void => {
    const c = indexOfTag(tag);
    if (c < 0) return;
    const channels = this.#selectChannels;
    if (channels !== undefined) {
      const seqs = this.#selectSeqs;
      for (let i = 0; i < channels.length; i++) {
        if (channels[i] === c && seqs[i] < 0) {
          seqs[i] = this.#nextSeq(c);
          this.#appendAttempt(c, seqs[i], CASE_BASE + i, this.#selectOrdinal);
        }
      }
    } else if (c === this.#pending && this.#pendingSeq < 0) {
      this.#pendingSeq = this.#nextSeq(c);
      this.#appendAttempt(c, this.#pendingSeq, this.#pendingKind, -1);
    }
  };

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
    if (this.#entries !== undefined) {
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
    const entries = this.#entries;
    if (entries !== undefined) {
      // Without `publishedWords` (no pool ran), everything recorded here.
      const own = entries.chunks(this.#ownEnd < 0 ? Infinity : this.#ownEnd);
      return encodeSchedule(
        buildRecord([...own, ...this.#adopted], fingerprint, seed),
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

  // Records an attempt of the op `enter` or `enterSelect` noted, on
  // channel c with number seq: a plain one (`#pendingKind`, ordinal -1) or
  // a select's case (CASE_BASE + its index, the select's ordinal).
  #appendAttempt(c: number, seq: number, kind: number, ordinal: number): void {
    this.#entries!.append(
      ATTEMPT,
      c,
      seq,
      this.#pendingKey,
      this.#pendingBlock,
      this.#pendingOp,
      kind,
      ordinal,
    );
  }

  // Channel c's next sequence number: atomic, as an attempt that never
  // reached the lock takes one outside it.
  #nextSeq(c: number): number {
    return Atomics.add(this.#counters, HEADER + c * CHANNEL_WORDS + SEQ, 1);
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
