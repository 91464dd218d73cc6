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
//   per thread: n select choices, then each choice + 1 (0: never chose)
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

/** A channel made by a program's `channel_create`. */
export interface ScheduleChannel {
  /** Index into `threads` of the thread that made it. */
  readonly creator: number;
  /** How many channels that thread had made before it. */
  readonly ordinal: number;
  /** Its attempts in the order they took the channel. */
  readonly events: readonly ScheduleEvent[];
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
  /** Per thread, each select's chosen case in order (-1: never chose). */
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
 *   channels: [{ creator: 0, ordinal: 0, events: [{ thread: 1, kind: 0, block: 1, op: 0 }] }],
 *   choices: [[], [2, -1]],
 * };
 * assertEquals(decodeSchedule(encodeSchedule(record), "r.bin"), record);
 * ```
 */
export function encodeSchedule(record: ScheduleRecord): Uint8Array {
  const out: number[] = [...new TextEncoder().encode(MAGIC), SCHEDULE_VERSION];
  out.push(...record.fingerprint);
  const put = (n: number) => {
    for (n = Math.trunc(n); n >= 0x80; n = Math.floor(n / 128)) {
      out.push((n % 128) | 0x80);
    }
    out.push(n);
  };
  put(record.seed);
  put(record.threads.length);
  for (const key of record.threads) put(key >>> 0);
  put(record.channels.length);
  for (const c of record.channels) {
    put(c.creator);
    put(c.ordinal);
  }
  for (const c of record.channels) {
    put(c.events.length);
    for (const e of c.events) {
      put(e.thread);
      put(e.kind);
      put(e.block);
      put(e.op);
    }
  }
  for (const list of record.choices) {
    put(list.length);
    for (const choice of list) put(choice + 1);
  }
  return Uint8Array.from(out);
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
  const channels = heads.map((h) => ({
    ...h,
    events: Array.from({ length: get(bytes.length) }, () => ({
      thread: get(n - 1),
      kind: get(),
      block: get(),
      op: get(),
    })),
  }));
  const choices = threads.map(() =>
    Array.from({ length: get(bytes.length) }, () => get() - 1)
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
  const parts: Uint8Array[] = [program];
  const text = new TextEncoder();
  for (const [name, bytes] of [...feeds].sort((a, b) => a[0] < b[0] ? -1 : 1)) {
    parts.push(text.encode(`\0${name}\0${bytes.length}\0`), bytes);
  }
  const all = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return new Uint8Array(await crypto.subtle.digest("SHA-256", all));
}
