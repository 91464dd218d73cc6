// Recording and replaying the order of a run's channel operations
// (`--record`, `--replay`; docs/architecture.md §4, Record and replay).
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
// Recording: a select's attempt is noted on every case's channel and its
// choice once it is made; the file keeps only the chosen case's attempt
// (the others never took a value, or the select would have chosen them).
// On a pool of workers, attempts on one channel are put in order by a
// spin lock per channel, held from before the attempt's sequence number
// is taken until the attempt returns, so the numbers follow the order in
// which the channel's own lock (or its lock-free path) took them.
//
// Replay: a thread about to attempt checks the channel's cursor. If the
// event there is its own, it attempts and moves the cursor on; if the
// event is its own but another op or kind, the replay has diverged (a
// ProgramError naming both); otherwise it parks on a bell (a local
// channel, so a stall is a deadlock the scheduler sees) and tries again
// when woken (on a pool it first polls for its turn a while). A cursor
// that moves wakes this worker's bells of that channel and, when bells
// wait on it anywhere, posts a turn message to every other worker with
// bells. Once the main thread's program ends, it waits for the record's
// last attempts (`drain`); a run that stalls first ended before its record.
//
// Shared state lives in one fixed-size SharedArrayBuffer that every worker
// of a run maps: `counters` (header, then CHANNEL_WORDS per channel). What
// a recording notes stays on the worker that noted it: on one worker, one
// log of every attempt (channel, thread, site); on a pool, each worker's
// entries (attempts, choices and channels, 8 words each, in chunks), which
// the main thread gathers as the run ends (`entries`, `adopt`).
//
// Invariants:
//   A channel's index is given once, by its creator, before the channel
//   is shared; a shared channel carries it in its tag's high bits.
//   A bell is registered before the cursor is read again, and a cursor
//   moves before bells are rung: no wake-up is lost.

import { Channel } from "../../scheduler/channel.ts";
import type { GreenThread } from "../../scheduler/green_thread.ts";
import { SharedChannel } from "../../scheduler/shared/shared_channel.ts";
import {
  channelTag,
  setChannelTag,
} from "../../scheduler/shared/_channel_handle.ts";
import { ProgramError } from "./errors.ts";
import {
  CASE_BASE,
  encodePackedSchedule,
  encodeSchedule,
  EVENT_WORDS,
  eventAt,
  type PackedSchedule,
  type ScheduleEvent,
  type ScheduleRecord,
  ThreadNumbers,
} from "./schedule_file.ts";

/** The memory a run's workers share for recording or replay. */
export interface ScheduleShared {
  /** Header and per-channel words. */
  readonly counters: SharedArrayBuffer;
}

/**
 * Thrown by an op whose thread must wait for its turn: the block runner
 * awaits `promise`, then runs the op again.
 */
export class TurnWait {
  /** @param promise Settles when the thread's turn may have come. */
  constructor(readonly promise: Promise<unknown>) {}
}

// Header words of `counters`.
const NEXT_CHANNEL = 0;
const WAITING = 1; // one word per worker: bells parked there
const DRAINING = 258; // bells of a main thread waiting for the record's end
const HEADER = 260;
// Per channel: sequence (recording) or cursor (replay), lock, the last
// thread that waited there (its record index, kind, block, op), and the
// bells parked for its cursor on every worker (so a cursor move that
// nobody waits for posts no turn message).
const CHANNEL_WORDS = 7;
const SEQ = 0;
const LOCK = 1;
const W_THREAD = 2;
const W_KIND = 3;
const W_BLOCK = 4;
const W_OP = 5;
const BELLS = 6;
// A pool's entries, in chunks of CHUNK words: word 0 counts the words used.
const ENTRY = 8;
const ATTEMPT = 1;
const CHOICE = 2;
const MADE = 3;
const CHUNK = 65536;
// A pool's recording has room for at most 2^18 channels (7 MiB of shared
// counters; V8 counts a shared buffer's whole size as external memory,
// and larger ones make it collect garbage more often in every run that
// records). A replay's counters have one slot per recorded channel.
const MAX_CHANNELS = 1 << 18;
// A select's recorded choice when it panicked instead of choosing.
const PANICKED = -2;
// Tag bits below this are the runtime's own (a channel's dtype).
const TAG_SHIFT = 8;
// The bells of a main thread that waits for the record to be used up.
const DRAIN = -1;
// Words per chunk of a one-worker recording's log: 5461 attempts.
const LOG_CHUNK = 3 * 5461;
// Full chunks of encoded recordings, for the next recording of this
// process to fill (at most 4 MiB): a process that records run after run
// (a test suite, a server, a benchmark) then does not churn 64 KiB
// buffers, whose memory V8 counts toward its next full collection.
const spareLogs: Int32Array[] = [];
const MAX_SPARE_LOGS = 64;

/** The message a worker posts to wake another worker's bells. */
export const TURN_MESSAGE = 2;

// Per thread: channels made, selects started, the select waiting for
// its turn; recording on one worker, also its lineage key, each select's
// choice, and where the latest select's attempts sit in the channel logs
// (per case: channel, then the attempt's place; -1 for none).
interface ThreadMarks {
  readonly key: number;
  made: number;
  selects: number;
  pending: number;
  readonly choices: number[];
  readonly slots: number[];
}

/**
 * One worker's recorder or replayer of the run's channel order.
 *
 * @example Usage
 * ```ts
 * import { ScheduleGate } from "./schedule_gate.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const gate = ScheduleGate.recorder(0, 1);
 * assertEquals(gate.mode, "record");
 * ```
 */
export class ScheduleGate {
  /** Recording or replaying. */
  readonly mode: "record" | "replay";
  readonly #worker: number;
  readonly #workers: number;
  readonly #pooled: boolean;
  // Shared (fixed size) on a pool; else private, grown by copying.
  #counters: Int32Array;
  // Recording on a pool: this worker's entries (attempts, choices,
  // channels), the chunk being filled and the full ones before it.
  #events: Int32Array;
  readonly #full: Int32Array[] = [];
  // The sites of channel attempts: kind, block and op, three words each,
  // so that an attempt is noted as one number (`site`).
  readonly #sites: number[] = [];
  readonly #siteIndex = new Map<string, number>();
  // Recording on one worker, where a channel's attempts come in the order
  // it takes them: every attempt in the order made, three words each (the
  // channel, the thread's lineage key, its record index after `#pack`,
  // and the site), in chunks of LOG_CHUNK words: the full ones, then the
  // one being filled up to #logAt. A select's attempts have their site
  // complemented (~site) until it chooses, so the cases it did not take
  // are dropped at the end. Chunks stay small (64 KiB), as the allocator
  // then reuses memory instead of mapping fresh pages, whose faults cost
  // more than anything else a recording does.
  readonly #logs: Int32Array[] = [];
  #log_: Int32Array = new Int32Array(0);
  #logAt = 0;
  // Each channel's creator (lineage key) and ordinal, two words a channel.
  readonly #made: number[] = [];
  // Every thread's marks, for their choices at the end.
  readonly #threads: ThreadMarks[] = [];
  // The thread of the latest select and its marks: a select that chooses
  // at once reports its choice before any other thread runs.
  #lastThread: GreenThread | undefined = undefined;
  #lastMarks: ThreadMarks | undefined = undefined;
  /** The record being replayed; undefined when recording. */
  readonly record: ScheduleRecord | undefined;
  readonly #threadIndex = new Map<number, number>();
  readonly #channelIndex = new Map<string, number>();
  readonly #local = new WeakMap<Channel<unknown>, number>();
  readonly #marks = new WeakMap<GreenThread, ThreadMarks>();
  readonly #bells = new Map<number, Channel<boolean>[]>();
  // Replaying: whether the main thread waits for the record's last
  // attempts (`drain`).
  #draining = false;
  /**
   * On a pool, how long a thread polls for its turn before it parks (the
   * pool sets it; see scheduler/shared/_spinner.ts).
   */
  spinner: { until(ready: () => boolean): boolean } | undefined = undefined;
  /** Wakes another worker's bells (a pool sets it). */
  wakeWorkers: ((workers: number[]) => void) | undefined = undefined;

  private constructor(
    mode: "record" | "replay",
    worker: number,
    workers: number,
    record: ScheduleRecord | undefined,
    shared: ScheduleShared | undefined,
  ) {
    this.mode = mode;
    this.#worker = worker;
    this.#workers = workers;
    this.#pooled = workers > 1;
    // On a pool, a fixed size: a view of a growable SharedArrayBuffer
    // costs ~30 times as much per access, and the OS commits a fixed one's
    // pages only when touched. On one worker, private, grown by copying.
    const channels = record === undefined
      ? (this.#pooled ? MAX_CHANNELS : 64)
      : Math.max(64, record.channels.length);
    const bytes = (HEADER + channels * CHANNEL_WORDS) * 4;
    this.#counters = new Int32Array(
      shared?.counters ??
        (this.#pooled ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes)),
    );
    this.#events = new Int32Array(this.#pooled && !record ? CHUNK : ENTRY);
    this.#events[0] = ENTRY;
    this.record = record;
    record?.threads.forEach((key, i) => this.#threadIndex.set(key, i));
    record?.channels.forEach((c, i) =>
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

  /**
   * Recording on a pool: this worker's entries, for the main thread to
   * `adopt` as the run ends.
   *
   * @returns The chunks of entries.
   */
  entries(): Int32Array[] {
    return [...this.#full, this.#events];
  }

  /**
   * Recording on a pool, on the main thread: takes in another worker's
   * `entries`.
   *
   * @param chunks The entries.
   */
  adopt(chunks: readonly Int32Array[]): void {
    this.#full.push(...chunks);
  }

  /**
   * A recorder.
   *
   * @param worker This worker's index.
   * @param workers The run's worker count.
   * @param shared The main thread's shared memory (on a worker).
   * @returns The gate.
   */
  static recorder(
    worker: number,
    workers: number,
    shared?: ScheduleShared,
  ): ScheduleGate {
    return new ScheduleGate("record", worker, workers, undefined, shared);
  }

  /**
   * A replayer of `record`.
   *
   * @param record The decoded record.
   * @param worker This worker's index.
   * @param workers The run's worker count.
   * @param shared The main thread's shared memory (on a worker).
   * @returns The gate.
   */
  static replayer(
    record: ScheduleRecord,
    worker: number,
    workers: number,
    shared?: ScheduleShared,
  ): ScheduleGate {
    return new ScheduleGate("replay", worker, workers, record, shared);
  }

  /**
   * Gives a channel `thread` just made its index (`channel_create`).
   *
   * @param ch The channel.
   * @param thread Its creator.
   */
  made(
    ch: Channel<unknown> | SharedChannel<unknown>,
    thread: GreenThread,
  ): void {
    const marks = this.#marks_(thread);
    const ordinal = marks.made++;
    const key = thread.lineageKey >>> 0;
    let index: number;
    if (this.mode === "record") {
      index = Atomics.add(this.#counters, NEXT_CHANNEL, 1);
      const need = HEADER + (index + 1) * CHANNEL_WORDS;
      if (need > this.#counters.length) {
        if (this.#pooled) {
          throw new ProgramError(
            `--record: more than ${MAX_CHANNELS} channels made`,
          );
        }
        this.#counters = doubled(this.#counters, need);
      }
      if (this.#pooled) this.#append(MADE, index, key, ordinal, 0, 0, 0, 0);
      else {
        this.#made.push(key, ordinal);
      }
    } else {
      index = this.#channelIndex.get(`${key}:${ordinal}`) ?? -1;
    }
    if (index < 0) return;
    if (ch instanceof SharedChannel) {
      setChannelTag(ch, (channelTag(ch) & 0xff) | ((index + 1) << TAG_SHIFT));
    } else this.#local.set(ch, index);
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
    const key = `${kind} ${block} ${op}`;
    let site = this.#siteIndex.get(key);
    if (site === undefined) {
      site = this.#sites.length / 3;
      this.#sites.push(kind, block, op);
      this.#siteIndex.set(key, site);
    }
    return site;
  }

  /**
   * A channel's index, or -1 for one no `channel_create` made (a timer's).
   *
   * @param ch The channel.
   * @returns Its index.
   */
  indexOf(ch: Channel<unknown> | SharedChannel<unknown>): number {
    const local = this.#local.get(ch as Channel<unknown>);
    if (local !== undefined) return local;
    if (ch instanceof SharedChannel) return (channelTag(ch) >>> TAG_SHIFT) - 1;
    return -1;
  }

  /**
   * Before a plain channel op's attempt: records it (taking the channel's
   * order lock on a pool) or, replaying, waits for its turn.
   *
   * @param c The channel's index (not -1).
   * @param thread The thread.
   * @param site The op's site of kind SEND, RECV or CLOSE (`site()`).
   * @throws {TurnWait} Replaying, when it is another thread's turn.
   * @throws {ProgramError} Replaying, when the record expects another op.
   */
  enter(c: number, thread: GreenThread, site: number): void {
    if (!this.#pooled && this.mode === "record") {
      this.#log(c, thread.lineageKey, site);
      return;
    }
    const sites = this.#sites;
    const kind = sites[3 * site];
    const block = sites[3 * site + 1];
    const op = sites[3 * site + 2];
    if (this.mode === "replay") return this.#turn(c, thread, kind, block, op);
    this.#lock(c);
    const seq = this.#counters[HEADER + c * CHANNEL_WORDS + SEQ]++;
    this.#append(ATTEMPT, c, seq, thread.lineageKey >>> 0, block, op, kind, -1);
  }

  /**
   * After the attempt `enter` let through: releases the order lock, or
   * moves the cursor on and wakes whoever waits for it.
   *
   * @param c The channel's index.
   */
  leave(c: number): void {
    if (this.mode === "record") {
      if (this.#pooled) this.#unlock(c);
      return;
    }
    Atomics.add(this.#counters, HEADER + c * CHANNEL_WORDS + SEQ, 1);
    this.#ring(c);
  }

  /**
   * Before a select's attempt: which case it may take. Recording, notes
   * the attempt on every case's channel (`leaveSelect` releases them) and
   * returns -2 (any case). Replaying, returns the case the record says,
   * -1 for one it never chose, after waiting for that case's turn; -2 for
   * one that panicked (it runs free, and panics again).
   *
   * @param channels Each case's channel index (-1: nil, default, timer).
   * @param thread The thread.
   * @param sites Each case's site (kind CASE_BASE + case, `site()`).
   * @returns The case to force, -1, or -2.
   * @throws {TurnWait} Replaying, when it is another thread's turn.
   */
  enterSelect(
    channels: readonly number[],
    thread: GreenThread,
    sites: readonly number[],
  ): number {
    const marks = this.#marks_(thread);
    const block = this.#sites[3 * sites[0] + 1];
    const op = this.#sites[3 * sites[0] + 2];
    if (this.mode === "record") {
      const ordinal = marks.selects++;
      const key = marks.key;
      if (!this.#pooled) {
        const slots = marks.slots;
        slots.length = 0;
        for (let i = 0; i < channels.length; i++) {
          const c = channels[i];
          slots.push(
            c,
            c < 0 ? -1 : this.#log(c, key, ~sites[i]),
          );
        }
        this.#lastThread = thread;
        this.#lastMarks = marks;
        return -2;
      }
      this.#lockAll(channels);
      for (let i = 0; i < channels.length; i++) {
        const c = channels[i];
        if (c < 0) continue;
        const seq = this.#counters[HEADER + c * CHANNEL_WORDS + SEQ]++;
        this.#append(ATTEMPT, c, seq, key, block, op, CASE_BASE + i, ordinal);
      }
      return -2;
    }
    const ordinal = marks.pending >= 0 ? marks.pending : marks.selects++;
    marks.pending = ordinal;
    const t = this.#threadIndex.get(thread.lineageKey >>> 0);
    const choice = t === undefined
      ? -1
      : this.record!.choices[t][ordinal] ?? -1;
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
   * After a select's attempt.
   *
   * @param channels As given to `enterSelect`.
   * @param forced What `enterSelect` returned.
   */
  leaveSelect(channels: readonly number[], forced: number): void {
    if (this.mode === "record") {
      if (this.#pooled) this.#unlockAll(channels);
    } else if (forced >= 0 && channels[forced] >= 0) {
      this.leave(channels[forced]);
    }
  }

  /**
   * Records the case a thread's latest select took (-2: it panicked).
   *
   * @param thread The thread.
   * @param index The case.
   */
  chose(thread: GreenThread, index: number): void {
    if (this.mode !== "record") return;
    const marks = thread === this.#lastThread
      ? this.#lastMarks!
      : this.#marks_(thread);
    const ordinal = marks.selects - 1;
    if (this.#pooled) {
      this.#append(CHOICE, marks.key, ordinal, index, 0, 0, 0, 0);
      return;
    }
    marks.choices[ordinal] = index;
    const slots = marks.slots;
    const c = index >= 0 ? slots[2 * index] : -1;
    if (c >= 0) {
      const place = slots[2 * index + 1];
      const chunk = (place / LOG_CHUNK) | 0;
      const log = chunk < this.#logs.length ? this.#logs[chunk] : this.#log_;
      const at = place - chunk * LOG_CHUNK + 2;
      log[at] = ~log[at];
    }
    slots.length = 0;
  }

  /** Wakes this worker's bells: another worker moved a cursor. */
  turnMessage(): void {
    for (const c of [...this.#bells.keys()]) this.#wakeBells(c);
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
      const chunks = this.entries();
      return encodeSchedule(buildRecord(chunks, fingerprint, seed));
    }
    const bytes = encodePackedSchedule(this.#pack(fingerprint, seed));
    for (const log of [...this.#logs, this.#log_]) {
      if (log.length === LOG_CHUNK && spareLogs.length < MAX_SPARE_LOGS) {
        spareLogs.push(log);
      }
    }
    this.#logs.length = 0;
    this.#log_ = new Int32Array(0);
    this.#logAt = 0;
    return bytes;
  }

  /**
   * The main thread's body: its program, then, replaying, `drain`.
   *
   * @param ran What running block 0 returned.
   * @param thread The main thread.
   * @returns What the main thread's body returns.
   */
  mainEnds(
    ran: void | Promise<void>,
    thread: GreenThread,
  ): void | Promise<void> {
    if (this.mode === "record") return ran;
    if (ran instanceof Promise) return ran.then(() => this.drain(thread));
    return this.drain(thread);
  }

  /**
   * Replaying, once the main thread's program has ended: waits until
   * every recorded attempt has been made, so that threads that still owe
   * some make them before the run ends (as they did in the recording). A
   * run that stalls meanwhile ended before its record did: `stall()` names
   * the first attempt that never came.
   *
   * @param thread The main thread.
   * @returns Undefined when the record is used up, else a promise.
   */
  drain(thread: GreenThread): void | Promise<void> {
    if (this.#unused() < 0) return;
    this.#draining = true;
    return this.#drainLoop(thread);
  }

  async #drainLoop(thread: GreenThread): Promise<void> {
    while (this.#unused() >= 0) {
      // Register the bell, then look again (see the invariants).
      const bell = this.#addBell(DRAIN);
      if (this.#unused() < 0) {
        this.#wakeBells(DRAIN);
        break;
      }
      await bell.recv({ thread });
    }
    this.#draining = false;
  }

  // The first channel whose recorded attempts were not all made, or -1.
  #unused(): number {
    const channels = this.record!.channels;
    for (let c = 0; c < channels.length; c++) {
      const at = Atomics.load(this.#counters, HEADER + c * CHANNEL_WORDS + SEQ);
      if (at * EVENT_WORDS < channels[c].events.length) return c;
    }
    return -1;
  }

  /**
   * Replaying, after the run stalled (every thread blocked): the
   * divergence a thread waiting for its turn shows, or, when the main
   * thread's program had ended, the first recorded attempt never made.
   *
   * @returns The error, or undefined when no thread waited for a turn.
   */
  stall(): ProgramError | undefined {
    const record = this.record!;
    const unused = this.#draining ? this.#unused() : -1;
    if (unused >= 0) {
      const at = Atomics.load(
        this.#counters,
        HEADER + unused * CHANNEL_WORDS + SEQ,
      );
      const events = record.channels[unused].events;
      return new ProgramError(
        `--replay: the run ended before its record: channel ${unused} expected ${
          describe(eventAt(events, at)!)
        } (event ${at + 1} of ${
          events.length / EVENT_WORDS
        }), which never came`,
      );
    }
    for (let c = 0; c < record.channels.length; c++) {
      const w = HEADER + c * CHANNEL_WORDS;
      const t = Atomics.load(this.#counters, w + W_THREAD) - 1;
      if (t < -1) continue; // nobody waited here
      const actual = describe({
        thread: t,
        kind: this.#counters[w + W_KIND],
        block: this.#counters[w + W_BLOCK],
        op: this.#counters[w + W_OP],
      });
      const at = Atomics.load(this.#counters, w + SEQ);
      const next = eventAt(record.channels[c].events, at);
      const expected = next === undefined
        ? "no more events on it"
        : describe(next);
      return new ProgramError(
        `--replay: diverged on channel ${c}: expected ${expected}, actual ${actual} (waiting)`,
      );
    }
    return undefined;
  }

  // Replay: lets the attempt through when the channel's next event is
  // this thread's, else parks on a bell (TurnWait).
  #turn(
    c: number,
    thread: GreenThread,
    kind: number,
    block: number,
    op: number,
  ): void {
    const record = this.record!;
    const t = this.#threadIndex.get(thread.lineageKey >>> 0) ?? -1;
    const events = record.channels[c].events;
    const w = HEADER + c * CHANNEL_WORDS;
    let at = Atomics.load(this.#counters, w + SEQ) * EVENT_WORDS;
    if (at < events.length && events[at] === t) {
      if (
        events[at + 1] === kind && events[at + 2] === block &&
        events[at + 3] === op
      ) return; // this attempt's turn
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
    const counters = this.#counters;
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
    const bell = this.#addBell(c);
    at = Atomics.load(this.#counters, w + SEQ) * EVENT_WORDS;
    if (at < events.length && events[at] === t) {
      const list = this.#bells.get(c)!;
      list.splice(list.indexOf(bell), 1);
      this.#countBells(c, -1);
      return this.#check(
        eventAt(events, at / EVENT_WORDS)!,
        c,
        t,
        kind,
        block,
        op,
      );
    }
    Atomics.store(this.#counters, w + W_THREAD, t + 1);
    this.#counters[w + W_KIND] = kind;
    this.#counters[w + W_BLOCK] = block;
    this.#counters[w + W_OP] = op;
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
      Atomics.store(this.#counters, HEADER + c * CHANNEL_WORDS + W_THREAD, 0);
      return;
    }
    const actual = describe({ thread: t, kind, block, op });
    throw new ProgramError(
      `--replay: diverged on channel ${c}: expected ${
        describe(next)
      }, actual ${actual}`,
    );
  }

  // Wakes the bells of channel `c` here, and every other worker's.
  #ring(c: number): void {
    this.#wakeBells(c);
    this.#wakeBells(DRAIN);
    if (!this.#pooled || this.wakeWorkers === undefined) return;
    const counters = this.#counters;
    if (
      Atomics.load(counters, HEADER + c * CHANNEL_WORDS + BELLS) === 0 &&
      Atomics.load(counters, DRAINING) === 0
    ) return; // nobody waits for this cursor
    let others: number[] | undefined;
    for (let k = 0; k < this.#workers; k++) {
      if (k !== this.#worker && Atomics.load(this.#counters, WAITING + k) > 0) {
        (others ??= []).push(k);
      }
    }
    if (others !== undefined) this.wakeWorkers(others);
  }

  // A bell for a wait on channel c (or DRAIN), counted in this worker's
  // WAITING word so that other workers' cursor moves ring it.
  #addBell(c: number): Channel<boolean> {
    const bell = new Channel<boolean>(1);
    const list = this.#bells.get(c);
    if (list === undefined) this.#bells.set(c, [bell]);
    else list.push(bell);
    this.#countBells(c, 1);
    return bell;
  }

  // Counts n bells more (or fewer) parked on this worker, for channel c
  // or, c being DRAIN, for the record's end.
  #countBells(c: number, n: number): void {
    const counters = this.#counters;
    Atomics.add(counters, WAITING + this.#worker, n);
    Atomics.add(
      counters,
      c === DRAIN ? DRAINING : HEADER + c * CHANNEL_WORDS + BELLS,
      n,
    );
  }

  #wakeBells(c: number): void {
    const list = this.#bells.get(c);
    if (list === undefined) return;
    this.#bells.delete(c);
    this.#countBells(c, -list.length);
    for (const bell of list) bell.trySend(true);
  }

  // Recording on one worker: appends an attempt to the log and returns
  // its place (in words, counted over every chunk).
  #log(c: number, key: number, site: number): number {
    let log = this.#log_;
    let at = this.#logAt;
    if (at === log.length) {
      if (log.length > 0) this.#logs.push(log);
      log = this.#log_ = spareLogs.pop() ?? new Int32Array(LOG_CHUNK);
      at = 0;
    }
    log[at] = c;
    log[at + 1] = key;
    log[at + 2] = site;
    this.#logAt = at + 3;
    return this.#logs.length * LOG_CHUNK + at;
  }

  // A recording on one worker as the file encodes it: the log as it is
  // (attempts of cases no select took keep their complemented site, which
  // the encoder skips), each thread's choices.
  #pack(fingerprint: Uint8Array, seed: number): PackedSchedule {
    const choices: [number, number[]][] = [];
    for (const marks of this.#threads) {
      if (marks.choices.length > 0) choices.push([marks.key, marks.choices]);
    }
    return {
      fingerprint,
      seed,
      made: this.#made,
      sites: this.#sites,
      attempts: [...this.#logs, this.#log_.subarray(0, this.#logAt)],
      choices,
    };
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
    if (!this.#pooled) return;
    const at = HEADER + c * CHANNEL_WORDS + LOCK;
    while (Atomics.compareExchange(this.#counters, at, 0, 1) !== 0) {
      // Another worker's attempt on this channel is under way: it holds
      // the lock only while its attempt runs, which never waits.
    }
  }

  #unlock(c: number): void {
    if (!this.#pooled) return;
    Atomics.store(this.#counters, HEADER + c * CHANNEL_WORDS + LOCK, 0);
  }

  #marks_(thread: GreenThread): ThreadMarks {
    let m = this.#marks.get(thread);
    if (m === undefined) {
      m = {
        key: thread.lineageKey >>> 0,
        made: 0,
        selects: 0,
        pending: -1,
        choices: [],
        slots: [],
      };
      this.#marks.set(thread, m);
      if (this.mode === "record" && !this.#pooled) this.#threads.push(m);
    }
    return m;
  }

  // On a pool: appends one entry of ENTRY words (positional, so no array
  // per call), in a new chunk when this one is full (never copied: a run's
  // entries are written once and read once, at the end).
  #append(
    type: number,
    a: number,
    b: number,
    c: number,
    d: number,
    e: number,
    f: number,
    g: number,
  ): void {
    let ev = this.#events;
    let at = ev[0];
    if (at + ENTRY > ev.length) {
      this.#full.push(ev);
      ev = this.#events = new Int32Array(CHUNK);
      at = ENTRY;
    }
    ev[0] = at + ENTRY;
    ev[at] = type;
    ev[at + 1] = a;
    ev[at + 2] = b;
    ev[at + 3] = c;
    ev[at + 4] = d;
    ev[at + 5] = e;
    ev[at + 6] = f;
    ev[at + 7] = g;
  }
}

// A copy of `words` with room for `need` words (twice its length or more).
function doubled(words: Int32Array, need: number): Int32Array {
  const bigger = new Int32Array(Math.max(need, words.length * 2));
  bigger.set(words);
  return bigger;
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

const KIND_NAMES = ["send", "recv", "close"];

// "recv by thread 2 at block 1 op 3": a thread is named by its index in
// the record (0 is the main thread).
function describe(e: ScheduleEvent): string {
  const what = e.kind < CASE_BASE
    ? KIND_NAMES[e.kind]
    : `select case ${e.kind - CASE_BASE}`;
  const who = e.thread < 0
    ? "a thread not in the record"
    : e.thread === 0
    ? "the main thread"
    : `thread ${e.thread}`;
  return `${what} by ${who} at block ${e.block} op ${e.op}`;
}

// The record from a pool's recorded entries: channels in index order,
// each one's attempts by sequence number, a select's attempts kept only on
// the case it chose. A channel's sequence numbers are dense from 0, so
// each attempt has its slot without a sort.
function buildRecord(
  chunks: readonly Int32Array[],
  fingerprint: Uint8Array,
  seed: number,
): ScheduleRecord {
  const threads = new ThreadNumbers();
  const made: { creator: number; ordinal: number }[] = [];
  const choices: number[][] = [[]];
  const sizes: number[] = [];
  // First pass: channels, choices, and how many attempts each channel saw.
  for (const events of chunks) {
    const used = events[0];
    for (let at = ENTRY; at < used; at += ENTRY) {
      const type = events[at];
      const a = events[at + 1];
      if (type === MADE) {
        made[a] = {
          creator: threads.of(events[at + 2]),
          ordinal: events[at + 3],
        };
      } else if (type === CHOICE) {
        const t = threads.of(a);
        (choices[t] ??= [])[events[at + 2]] = events[at + 3];
      } else if (type === ATTEMPT) {
        sizes[a] = Math.max(sizes[a] ?? 0, events[at + 2] + 1);
      }
    }
  }
  // Each attempt in its slot (thread -1 marks a select's other cases).
  const slots = made.map((_, c) =>
    new Int32Array((sizes[c] ?? 0) * EVENT_WORDS).fill(-1)
  );
  for (const events of chunks) {
    const used = events[0];
    for (let at = ENTRY; at < used; at += ENTRY) {
      if (events[at] !== ATTEMPT) continue;
      const thread = threads.of(events[at + 3]);
      const kind = events[at + 6];
      const sel = events[at + 7];
      if (sel >= 0 && choices[thread]?.[sel] !== kind - CASE_BASE) continue;
      const list = slots[events[at + 1]];
      if (list === undefined) continue;
      const to = events[at + 2] * EVENT_WORDS;
      list[to] = thread;
      list[to + 1] = kind;
      list[to + 2] = events[at + 4];
      list[to + 3] = events[at + 5];
    }
  }
  const keys = threads.keys;
  for (let t = 0; t < keys.length; t++) {
    const list = choices[t] ??= [];
    for (let i = 0; i < list.length; i++) list[i] ??= -1;
  }
  const channels = made.map((m, c) => ({ ...m, events: compact(slots[c]) }));
  return { fingerprint, seed, threads: keys, channels, choices };
}

// A channel's slots without the empty ones.
function compact(slots: Int32Array): Int32Array {
  let to = 0;
  for (let from = 0; from < slots.length; from += EVENT_WORDS) {
    if (slots[from] < 0) continue;
    if (to !== from) slots.copyWithin(to, from, from + EVENT_WORDS);
    to += EVENT_WORDS;
  }
  return to === slots.length ? slots : slots.slice(0, to);
}
