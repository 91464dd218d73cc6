// The record file of `--record` / `--replay`: what a run's green threads
// did on each channel, in order, and which case each select took.
//
// Layout (every number an unsigned LEB128 varint unless said otherwise):
//   "RILLSCHD"                  8 bytes of magic
//   version                     one byte, SCHEDULE_VERSION
//   fingerprint                 32 bytes: SHA-256 of the program and feeds
//   seed
//   threads: n, then n lineage keys (a thread's stream key, which names
//     it the same way on any worker count; index 0 is the main thread)
//   channels: n, then per channel its creator's thread index and its
//     ordinal among the channels that thread made
//   per channel: n events, then per event: thread index, kind (0 send,
//     1 recv, 2 close, 3 + i case i of a select), block, op
//   per thread: n select choices, then each choice + 2 (0: panicked,
//     1: never chose)
//
// Invariants: indices in events name entries of the tables above; the
// decoder checks each, so a replay never indexes past a table.

import { ProgramError } from "./errors.ts";

/** The record format's version; a file of another one is refused. */
export const SCHEDULE_VERSION = 1;
const MAGIC = "RILLSCHD";
const FINGERPRINT_BYTES = 32;

/** Event kinds; a select's case i is `CASE_BASE + i`. */
export const SEND = 0;
/** A receive. */
export const RECV = 1;
/** A close. */
export const CLOSE = 2;
/** The first select case's kind. */
export const CASE_BASE = 3;

/** One attempt of a green thread on a channel. */
export interface ScheduleEvent {
  /** Index into `threads`. */
  readonly thread: number;
  /** SEND, RECV, CLOSE or CASE_BASE + case. */
  readonly kind: number;
  /** The op's block. */
  readonly block: number;
  /** The op's index in its block. */
  readonly op: number;
}

/** Words per event in `ScheduleChannel.events`: thread, kind, block, op. */
export const EVENT_WORDS = 4;

/** A channel made by a program's `channel_create`. */
export interface ScheduleChannel {
  /** Index into `threads` of the thread that made it. */
  readonly creator: number;
  /** How many channels that thread had made before it. */
  readonly ordinal: number;
  /**
   * Its attempts in the order they took the channel, EVENT_WORDS each
   * (packed: a record of a long run holds millions).
   */
  readonly events: Int32Array;
}

/**
 * Event `i` of a channel, or undefined past its last.
 *
 * @param events A channel's packed events.
 * @param i The event's place.
 * @returns The event.
 *
 * @example Usage
 * ```ts
 * import { eventAt } from "./schedule_file.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const events = Int32Array.of(1, 0, 2, 3);
 * assertEquals(eventAt(events, 0), { thread: 1, kind: 0, block: 2, op: 3 });
 * assertEquals(eventAt(events, 1), undefined);
 * ```
 */
export function eventAt(
  events: Int32Array,
  i: number,
): ScheduleEvent | undefined {
  const at = i * EVENT_WORDS;
  if (at >= events.length) return undefined;
  return {
    thread: events[at],
    kind: events[at + 1],
    block: events[at + 2],
    op: events[at + 3],
  };
}

/** A decoded record. */
export interface ScheduleRecord {
  /** SHA-256 of the program and its feeds. */
  readonly fingerprint: Uint8Array;
  /** The run's seed. */
  readonly seed: number;
  /** Lineage keys of the threads, main first. */
  readonly threads: readonly number[];
  /** The channels by index. */
  readonly channels: readonly ScheduleChannel[];
  /**
   * Per thread, each select's chosen case in order (-1: never chose, -2:
   * panicked choosing, as a send on a closed channel does).
   */
  readonly choices: readonly (readonly number[])[];
}

/**
 * Encodes a record.
 *
 * @param record The record.
 * @returns Its bytes.
 *
 * @example Usage
 * ```ts
 * import { decodeSchedule, encodeSchedule } from "./schedule_file.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const record = {
 *   fingerprint: new Uint8Array(32),
 *   seed: 7,
 *   threads: [0, 12345],
 *   channels: [{ creator: 0, ordinal: 0, events: Int32Array.of(1, 0, 1, 0) }],
 *   choices: [[], [2, -1]],
 * };
 * assertEquals(decodeSchedule(encodeSchedule(record), "r.bin"), record);
 * ```
 */
export function encodeSchedule(record: ScheduleRecord): Uint8Array {
  const out = new VarintWriter(
    64 + record.channels.reduce((n, c) => n + c.events.length * 5 + 10, 0),
  );
  out.head(record.fingerprint, record.seed, record.threads);
  out.uint(record.channels.length);
  for (const c of record.channels) {
    out.uint(c.creator);
    out.uint(c.ordinal);
  }
  for (const c of record.channels) {
    out.uint(c.events.length / EVENT_WORDS);
    out.words(c.events);
  }
  out.choices(record.choices);
  return out.done();
}

/**
 * A recording as the schedule gate keeps it on one worker, encoded as is
 * rather than built into a `ScheduleRecord` first: every attempt in the
 * order made, as channel, thread and site (a kind, block and op in
 * `sites`), threads named by lineage key and numbered as the encoder
 * meets them (creators, attempts, then choosers).
 */
export interface PackedSchedule {
  /** SHA-256 of the program and its feeds. */
  readonly fingerprint: Uint8Array;
  /** The run's seed. */
  readonly seed: number;
  /** Per channel, its creator's lineage key and its ordinal. */
  readonly made: readonly number[];
  /** Per site, its kind, block and op. */
  readonly sites: readonly number[];
  /**
   * The attempts, three words each (channel, thread's lineage key, site),
   * in chunks; an attempt whose site is negative is left out (a case its
   * select did not take). Encoding writes each thread's number over its
   * key.
   */
  readonly attempts: readonly Int32Array[];
  /** Each thread's lineage key and its selects' choices. */
  readonly choices: readonly (readonly [number, readonly number[]])[];
}

/**
 * Encodes a packed recording: the same bytes as `encodeSchedule` gives
 * for the record it holds. Two passes over the attempts: the first sizes
 * each channel's part of the file, the second writes each attempt into
 * its channel's part, so no per-channel list is ever built.
 *
 * @param packed The recording.
 * @returns Its bytes.
 *
 * @example Usage
 * ```ts
 * import { decodeSchedule, encodePackedSchedule } from "./schedule_file.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const bytes = encodePackedSchedule({
 *   fingerprint: new Uint8Array(32),
 *   seed: 7,
 *   made: [0, 0],
 *   sites: [1, 0, 4, 0, 1, 2],
 *   attempts: [Int32Array.of(0, 12345, 1, 0, 0, ~0, 0, 0, 0)],
 *   choices: [],
 * });
 * const record = decodeSchedule(bytes, "r.bin");
 * assertEquals(record.channels[0].events, Int32Array.of(1, 0, 1, 2, 0, 1, 0, 4));
 * ```
 */
export function encodePackedSchedule(packed: PackedSchedule): Uint8Array {
  const { sites, attempts } = packed;
  const channels = packed.made.length / 2;
  // Each site's three numbers, encoded once: site i's bytes are
  // siteCode[siteAt[i] .. siteAt[i + 1]].
  const siteAt = new Int32Array(sites.length / 3 + 1);
  const siteCode = new Uint8Array(15 * (siteAt.length - 1));
  for (let i = 0; i + 1 < siteAt.length; i++) {
    let to = putVarint(siteCode, siteAt[i], sites[3 * i]);
    to = putVarint(siteCode, to, sites[3 * i + 1]);
    siteAt[i + 1] = putVarint(siteCode, to, sites[3 * i + 2]);
  }
  const threads = new ThreadNumbers();
  const made: number[] = [];
  for (let i = 0; i < packed.made.length; i += 2) {
    made.push(threads.of(packed.made[i]), packed.made[i + 1]);
  }
  // First pass: each thread's number over its key, and each channel's
  // count and bytes (a small function per chunk: see numberAttempts).
  const counts = new Int32Array(channels);
  const sizes = new Float64Array(channels);
  const recent = new Int32Array(4);
  for (let i = 0; i < attempts.length; i++) {
    numberAttempts(attempts[i], threads, recent, counts, sizes, siteAt);
  }
  const choices: number[][] = [];
  for (const [key, list] of packed.choices) {
    choices[threads.of(key)] = Array.from(list, (choice) => choice ?? -1);
  }
  const keys = threads.keys;
  for (let t = 0; t < keys.length; t++) choices[t] ??= [];
  let size = 64 + 5 * (keys.length + made.length + 1);
  for (let c = 0; c < channels; c++) size += 5 + sizes[c];
  for (const list of choices) size += 5 * (list.length + 1);
  const out = new VarintWriter(size);
  out.head(packed.fingerprint, packed.seed, keys);
  out.uint(channels);
  for (const word of made) out.uint(word);
  // Each channel's count, then room for its attempts at `ends[c]`.
  const ends = new Float64Array(channels);
  for (let c = 0; c < channels; c++) {
    out.uint(counts[c]);
    ends[c] = out.skip(sizes[c]);
  }
  // Second pass: each attempt into its channel's part.
  const buf = out.buffer;
  for (let i = 0; i < attempts.length; i++) {
    writeAttempts(attempts[i], buf, ends, siteAt, siteCode);
  }
  out.choices(choices);
  return out.view();
}

// The first pass over one chunk of a packed log: writes each kept
// attempt's thread number over its key, and adds its bytes to its
// channel's count and size. A small function called per chunk rather
// than a loop in encodePackedSchedule: it runs once per recording, and V8
// optimizes a small function after a few calls at little cost, where it
// compiled the whole encoder (OSR) at great cost, and deoptimized it on
// code after the loops that had not run yet. The two keys met last and
// their numbers (threads mostly take turns) are `recent`: key0,
// number0, key1, number1.
function numberAttempts(
  log: Int32Array,
  threads: ThreadNumbers,
  recent: Int32Array,
  counts: Int32Array,
  sizes: Float64Array,
  siteAt: Int32Array,
): void {
  let key0 = recent[0], number0 = recent[1];
  let key1 = recent[2], number1 = recent[3];
  const end = log.length;
  for (let at = 0; at < end; at += 3) {
    const site = log[at + 2];
    if (site < 0) continue;
    const key = log[at + 1];
    let t = number0;
    if (key !== key0) {
      t = key === key1 ? number1 : threads.of(key);
      key1 = key0;
      number1 = number0;
      key0 = key;
      number0 = t;
    }
    log[at + 1] = t;
    const c = log[at];
    counts[c]++;
    sizes[c] += (t < 0x80 ? 1 : varintLength(t)) + siteAt[site + 1] -
      siteAt[site];
  }
  recent[0] = key0;
  recent[1] = number0;
  recent[2] = key1;
  recent[3] = number1;
}

// The second pass over one chunk: each kept attempt's bytes at its
// channel's end, which moves on.
function writeAttempts(
  log: Int32Array,
  buf: Uint8Array,
  ends: Float64Array,
  siteAt: Int32Array,
  siteCode: Uint8Array,
): void {
  const end = log.length;
  for (let at = 0; at < end; at += 3) {
    const site = log[at + 2];
    if (site < 0) continue;
    const c = log[at];
    const t = log[at + 1];
    let to = ends[c];
    if (t < 0x80) buf[to++] = t;
    else to = putVarint(buf, to, t);
    for (let k = siteAt[site]; k < siteAt[site + 1]; k++) {
      buf[to++] = siteCode[k];
    }
    ends[c] = to;
  }
}

// Writes n in [0, 2^32) as a varint at `at`; returns where it ends.
function putVarint(buf: Uint8Array, at: number, n: number): number {
  while (n > 0x7f) {
    buf[at++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  buf[at++] = n;
  return at;
}

/**
 * A record's numbers of threads, given in the order threads are first
 * asked for (the main thread, key 0, is 0). Asked once per attempt as a
 * recording is encoded, so a small table keyed by a key's low bits (keys
 * are hashes) answers most before the map does.
 *
 * @example Usage
 * ```ts
 * import { ThreadNumbers } from "./schedule_file.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const threads = new ThreadNumbers();
 * assertEquals([threads.of(77), threads.of(0), threads.of(77)], [1, 0, 1]);
 * assertEquals(threads.keys, [0, 77]);
 * ```
 */
export class ThreadNumbers {
  /** The lineage keys by number. */
  readonly keys: number[] = [0];
  readonly #index = new Map<number, number>([[0, 0]]);
  readonly #cachedKeys = new Int32Array(256);
  // Number + 1 of the key cached in each slot; 0 for none.
  readonly #cached = new Int32Array(256);

  /**
   * The number of a thread.
   *
   * @param key Its lineage key (signed or unsigned 32-bit).
   * @returns Its number.
   */
  of(key: number): number {
    const slot = key & 255;
    if (this.#cached[slot] !== 0 && this.#cachedKeys[slot] === (key | 0)) {
      return this.#cached[slot] - 1;
    }
    key >>>= 0;
    let i = this.#index.get(key);
    if (i === undefined) {
      i = this.keys.length;
      this.keys.push(key);
      this.#index.set(key, i);
    }
    this.#cachedKeys[slot] = key;
    this.#cached[slot] = i + 1;
    return i;
  }
}

// Bytes of n in [0, 2^32) as an unsigned LEB128 varint.
function varintLength(n: number): number {
  return n < 0x80
    ? 1
    : n < 0x4000
    ? 2
    : n < 0x200000
    ? 3
    : n < 0x10000000
    ? 4
    : 5;
}

// Unsigned LEB128 into a buffer that grows; a class with private fields,
// as a closure over a reassigned buffer costs V8 several times as much.
class VarintWriter {
  #buf: Uint8Array;
  #at = 0;

  constructor(size: number) {
    this.#buf = new Uint8Array(size);
  }

  // Magic, version, fingerprint, seed and the threads' keys.
  head(
    fingerprint: Uint8Array,
    seed: number,
    threads: readonly number[],
  ): void {
    this.bytes(new TextEncoder().encode(MAGIC));
    this.bytes([SCHEDULE_VERSION]);
    this.bytes(fingerprint);
    this.big(seed);
    this.uint(threads.length);
    for (const key of threads) this.uint(key >>> 0);
  }

  // Each thread's count of choices, then each choice + 2.
  choices(choices: readonly (readonly number[])[]): void {
    for (const list of choices) {
      this.uint(list.length);
      for (const choice of list) this.uint(choice + 2);
    }
  }

  // Leaves n bytes for the caller to write (`buffer`); returns where
  // they begin.
  skip(n: number): number {
    this.#room(n);
    const at = this.#at;
    this.#at += n;
    return at;
  }

  // The buffer written into (no longer once it grows).
  get buffer(): Uint8Array {
    return this.#buf;
  }

  bytes(bytes: ArrayLike<number>): void {
    this.#room(bytes.length);
    this.#buf.set(bytes, this.#at);
    this.#at += bytes.length;
  }

  // n in [0, 2^32).
  uint(n: number): void {
    this.#room(5);
    const buf = this.#buf;
    let at = this.#at;
    while (n > 0x7f) {
      buf[at++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    buf[at++] = n;
    this.#at = at;
  }

  // Non-negative int32 words, each a varint.
  words(words: Int32Array): void {
    this.#room(words.length * 5);
    const buf = this.#buf;
    let at = this.#at;
    for (let i = 0; i < words.length; i++) {
      let n = words[i];
      while (n > 0x7f) {
        buf[at++] = (n & 0x7f) | 0x80;
        n >>>= 7;
      }
      buf[at++] = n;
    }
    this.#at = at;
  }

  // n in [0, 2^53).
  big(n: number): void {
    this.#room(8);
    for (n = Math.trunc(n); n >= 0x80; n = Math.floor(n / 128)) {
      this.#buf[this.#at++] = (n % 128) | 0x80;
    }
    this.#buf[this.#at++] = n;
  }

  done(): Uint8Array {
    return this.#buf.slice(0, this.#at);
  }

  // The bytes written, without a copy (for a buffer sized to fit).
  view(): Uint8Array {
    return this.#buf.subarray(0, this.#at);
  }

  #room(n: number): void {
    if (this.#at + n <= this.#buf.length) return;
    const bigger = new Uint8Array(Math.max(this.#buf.length * 2, this.#at + n));
    bigger.set(this.#buf);
    this.#buf = bigger;
  }
}

/**
 * Decodes a record, refusing what is not one.
 *
 * @param bytes The file's bytes.
 * @param file The file's name, for errors.
 * @returns The record.
 * @throws {ProgramError} `--replay: "f": not a Rill record (…)`.
 *
 * @example Usage
 * ```ts
 * import { decodeSchedule } from "./schedule_file.ts";
 * import { assertThrows } from "@std/assert";
 *
 * assertThrows(() => decodeSchedule(new Uint8Array([1, 2, 3]), "x.bin"), Error, "not a Rill record");
 * ```
 */
export function decodeSchedule(
  bytes: Uint8Array,
  file: string,
): ScheduleRecord {
  const bad = (why: string) =>
    new ProgramError(`--replay: "${file}": not a Rill record (${why})`);
  const magic = new TextDecoder().decode(bytes.subarray(0, MAGIC.length));
  if (magic !== MAGIC) throw bad("no RILLSCHD header");
  const version = bytes[MAGIC.length];
  if (version !== SCHEDULE_VERSION) {
    throw new ProgramError(
      `--replay: "${file}": record version ${version}, this Rill reads ${SCHEDULE_VERSION}`,
    );
  }
  let at = MAGIC.length + 1;
  const fingerprint = bytes.slice(at, at + FINGERPRINT_BYTES);
  at += FINGERPRINT_BYTES;
  const get = (limit = Number.MAX_SAFE_INTEGER): number => {
    let n = 0;
    for (let scale = 1;; scale *= 128) {
      if (at >= bytes.length) throw bad("cut short");
      const b = bytes[at++];
      n += (b & 0x7f) * scale;
      if (b < 0x80) break;
      if (scale > 2 ** 49) throw bad("a number too long");
    }
    if (n > limit) throw bad(`a number ${n} out of range`);
    return n;
  };
  const seed = get();
  const threads = Array.from({ length: get(bytes.length) }, () => get());
  const n = threads.length;
  const heads = Array.from({ length: get(bytes.length) }, () => ({
    creator: get(n - 1),
    ordinal: get(),
  }));
  const channels = heads.map((h) => {
    const events = new Int32Array(get(bytes.length) * EVENT_WORDS);
    for (let i = 0; i < events.length; i += EVENT_WORDS) {
      events[i] = get(n - 1);
      events[i + 1] = get(2 ** 31 - 1);
      events[i + 2] = get(2 ** 31 - 1);
      events[i + 3] = get(2 ** 31 - 1);
    }
    return { ...h, events };
  });
  const choices = threads.map(() =>
    Array.from({ length: get(bytes.length) }, () => get() - 2)
  );
  if (at !== bytes.length) throw bad(`${bytes.length - at} bytes left over`);
  return { fingerprint, seed, threads, channels, choices };
}

/**
 * The fingerprint a record carries: SHA-256 of the program's bytes and of
 * each feed (name, dtype, shape, elements), in name order.
 *
 * @param program The program, binary.
 * @param feeds The feeds as name and bytes that describe them.
 * @returns 32 bytes.
 *
 * @example Usage
 * ```ts
 * import { scheduleFingerprint } from "./schedule_file.ts";
 * import { assertEquals, assertNotEquals } from "@std/assert";
 *
 * const a = await scheduleFingerprint(new Uint8Array([1]), []);
 * assertEquals(a.length, 32);
 * assertNotEquals(a, await scheduleFingerprint(new Uint8Array([2]), []));
 * ```
 */
export async function scheduleFingerprint(
  program: Uint8Array,
  feeds: readonly (readonly [string, Uint8Array])[],
): Promise<Uint8Array> {
  // node:crypto hashes here, in a few µs; crypto.subtle's digest goes to
  // another thread and back, ~0.5 ms a run on a loaded machine. Imported
  // here, by the runs that record or replay: loading Deno's node:crypto
  // cost every other run, and every pool worker, about 60 M instructions
  // (tens of ms) of start-up (bench/README.md, "Where start-up goes").
  const { createHash } = await import("node:crypto");
  const hash = createHash("sha256").update(program);
  for (const [name, bytes] of [...feeds].sort((a, b) => a[0] < b[0] ? -1 : 1)) {
    hash.update(`\0${name}\0${bytes.length}\0`).update(bytes);
  }
  return new Uint8Array(hash.digest());
}
