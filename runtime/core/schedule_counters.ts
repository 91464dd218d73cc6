// The words a recorded or replayed run's schedule gates share (`--record`,
// `--replay`; docs/architecture.md §4, Record and replay): one fixed-size
// SharedArrayBuffer that every worker of a pooled run maps, a header then
// CHANNEL_WORDS per channel; on one worker, the same layout in a private
// buffer grown by copying.
//
// Invariants:
//   On a pool the buffer never grows (a view of a growable
//   SharedArrayBuffer costs ~30 times as much per access), so every
//   worker's view stays valid for the whole run.
//   A channel's words are written only by attempts on that channel (and,
//   for W_* and BELLS, by threads that wait for its turn).
//   A worker's RECORDED word is written only by that worker's recorder.

/** The memory a run's workers share for recording or replay. */
export interface ScheduleShared {
  /** Header and per-channel words. */
  readonly counters: SharedArrayBuffer;
}

// Header words.
/** The next channel index a recording gives. */
export const NEXT_CHANNEL = 0;
/** One word per worker: the bells parked there. */
export const WAITING = 1;
/** The bells of a main thread waiting for the record's end. */
export const DRAINING = 258;
/**
 * One word per worker: the words of entries its recorder has published
 * (record_entries.ts).
 */
export const RECORDED = 260;
/** The words before the first channel's. */
export const HEADER = 516;

// Per channel: sequence (recording) or cursor (replay), order lock, the
// last thread that waited there (its record index, kind, block, op), and
// the bells parked for its cursor on every worker (so a cursor move that
// nobody waits for posts no turn message).
/** Words per channel. */
export const CHANNEL_WORDS = 6;
/** A channel's next sequence number (recording) or cursor (replay). */
export const SEQ = 0;
/**
 * The thread waiting for its turn here, as its record index + 2: 0 when
 * nobody waits, 1 for a thread not in the record (index -1), which waits
 * for a turn that never comes. Only the thread that set it clears it.
 */
export const W_THREAD = 1;
/** That thread's attempt kind. */
export const W_KIND = 2;
/** That thread's block. */
export const W_BLOCK = 3;
/** That thread's op. */
export const W_OP = 4;
/** The bells parked for this channel's cursor, on every worker. */
export const BELLS = 5;

/**
 * A pool's recording has room for at most 2^18 channels (6 MiB of shared
 * counters; V8 counts a shared buffer's whole size as external memory,
 * and larger ones make it collect garbage more often in every run that
 * records). A replay's counters have one slot per recorded channel.
 */
export const MAX_CHANNELS = 1 << 18;

/**
 * A gate's counters: the main thread's shared ones when given, else new
 * ones with room for `channels` channels, shared on a pool. The OS
 * commits a fixed shared buffer's pages only when touched.
 *
 * @param channels Room for this many channels.
 * @param pooled Whether the run has several workers.
 * @param shared The main thread's shared memory (on a worker).
 * @returns The counters.
 *
 * @example Usage
 * ```ts
 * import { CHANNEL_WORDS, HEADER, scheduleCounters } from "./schedule_counters.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const counters = scheduleCounters(64, false);
 * assertEquals(counters.length, HEADER + 64 * CHANNEL_WORDS);
 * ```
 */
export function scheduleCounters(
  channels: number,
  pooled: boolean,
  shared?: ScheduleShared,
): Int32Array {
  const bytes = (HEADER + channels * CHANNEL_WORDS) * 4;
  return new Int32Array(
    shared?.counters ??
      (pooled ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes)),
  );
}

/**
 * A copy of private `counters` with room for `need` words (twice its
 * length or more).
 *
 * @param counters The counters.
 * @param need The words needed.
 * @returns The larger copy.
 *
 * @example Usage
 * ```ts
 * import { grownCounters } from "./schedule_counters.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const grown = grownCounters(new Int32Array([1, 2]), 3);
 * assertEquals([...grown], [1, 2, 0, 0]);
 * ```
 */
export function grownCounters(counters: Int32Array, need: number): Int32Array {
  const bigger = new Int32Array(Math.max(need, counters.length * 2));
  bigger.set(counters);
  return bigger;
}
