// A pooled recording's entries on one worker (attempts, choices and
// channels made; ENTRY words each), in chunks of CHUNK words that the main
// thread reads where the worker wrote them: the record holds everything a
// worker recorded up to the moment the run ended, without asking it for
// anything at the end (a worker deep in a long kernel answers no message).
// The main thread builds the record from them (record_building.ts).
//
// Who writes, who reads:
//   Each worker appends its own entries, alone. A chunk is a
//   SharedArrayBuffer, posted to the main thread (`post`, a message) when
//   it is allocated, before any of its words is published. An attempt's
//   entries are appended with the heap's lock held, so the chunk they may
//   need is allocated and posted before, outside the lock (`reserve`):
//   the critical section never allocates or posts. After each entry the
//   worker publishes how many words it has filled, over all its chunks,
//   in its word of the shared counters (`RECORDED + worker`,
//   schedule_counters.ts), with Atomics.store.
//   The main thread, once the run's main program has ended, reads every
//   worker's published count at once, with the heap's lock held (the
//   record's end, `ScheduleRecorder.publishedWords`); then it waits until
//   the chunks that hold those words have arrived (a chunk posted just
//   before the end may still be in the message queue; its worker need do
//   nothing more for it to arrive), and reads those words, never more.
//
// Invariants:
//   Every chunk has CHUNK words and chunk k of a worker holds its words
//   [k * CHUNK, (k + 1) * CHUNK): a count of words names the chunks that
//   hold them (`chunksHolding`), in the order they were posted.
//   A word below its worker's published count is final: written before
//   the count's store, never written again (a chunk is never copied).
//   Words past it may be being written; nobody reads them.
//   The entries of one channel's attempts carry dense sequence numbers
//   from 0 over all workers' chunks together, up to the record's end (an
//   attempt's entry is appended in the critical section that numbered it:
//   schedule_recorder.ts).

/** Words per entry. */
export const ENTRY = 8;
/**
 * An attempt: channel, sequence number, lineage key, block, op, kind,
 * the select's ordinal (-1 for a plain op).
 */
export const ATTEMPT = 1;
/** A select's choice: lineage key, the select's ordinal, the case. */
export const CHOICE = 2;
/** A channel made: its index, its creator's lineage key, its ordinal. */
export const MADE = 3;
/** Words per chunk (a whole number of entries: 8,192). */
export const CHUNK = 65536;

/** Where a worker's entries are published. */
export interface RecordEntriesOptions {
  /** The shared counters the count is published in. */
  readonly counters: Int32Array;
  /** The count's word in `counters`. */
  readonly word: number;
  /**
   * Sends a new chunk to the main thread (on a pool worker; the main
   * thread keeps its own).
   *
   * @default {undefined}
   */
  readonly post?: (chunk: Int32Array) => void;
}

/**
 * One worker's entries.
 *
 * @example Usage
 * ```ts
 * import { ATTEMPT, ENTRY, RecordEntries } from "./record_entries.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const counters = new Int32Array(new SharedArrayBuffer(8));
 * const entries = new RecordEntries({ counters, word: 1 });
 * entries.append(ATTEMPT, 0, 0, 5, 1, 2, 0, -1);
 * assertEquals(counters[1], ENTRY);
 * const [chunk] = entries.chunks(counters[1]);
 * assertEquals([...chunk], [ATTEMPT, 0, 0, 5, 1, 2, 0, -1]);
 * ```
 */
export class RecordEntries {
  readonly #chunks: Int32Array[] = [];
  // The chunk being filled (none before the first entry), and the words
  // filled over all chunks.
  #chunk: Int32Array = new Int32Array(0);
  #at = 0;
  #words = 0;
  // The next chunk, allocated and posted ahead by `reserve`.
  #spare: Int32Array | undefined = undefined;
  readonly #counters: Int32Array;
  readonly #word: number;
  readonly #post: ((chunk: Int32Array) => void) | undefined;

  /** @param options Where the count is published, where chunks go. */
  constructor(options: RecordEntriesOptions) {
    this.#counters = options.counters;
    this.#word = options.word;
    this.#post = options.post;
  }

  /**
   * Appends one entry (positional, so no array per call), in a new chunk
   * when this one is full, and publishes it.
   *
   * @param type ATTEMPT, CHOICE or MADE.
   * @param a The entry's first word.
   * @param b The second.
   * @param c The third.
   * @param d The fourth.
   * @param e The fifth.
   * @param f The sixth.
   * @param g The seventh.
   */
  append(
    type: number,
    a: number,
    b: number,
    c: number,
    d: number,
    e: number,
    f: number,
    g: number,
  ): void {
    let ev = this.#chunk;
    let at = this.#at;
    if (at === ev.length) {
      ev = this.#chunk = this.#spare ?? this.#newChunk();
      this.#spare = undefined;
      at = 0;
    }
    ev[at] = type;
    ev[at + 1] = a;
    ev[at + 2] = b;
    ev[at + 3] = c;
    ev[at + 4] = d;
    ev[at + 5] = e;
    ev[at + 6] = f;
    ev[at + 7] = g;
    this.#at = at + ENTRY;
    this.#words += ENTRY;
    // After the entry's words: whoever loads the count sees them.
    Atomics.store(this.#counters, this.#word, this.#words);
  }

  /**
   * Makes sure the next `entries` appends need no new chunk made then:
   * one is made and posted now if they would (called outside the heap's
   * lock, before an attempt that appends under it).
   *
   * @param entries How many entries.
   */
  reserve(entries: number): void {
    if (this.#at + entries * ENTRY <= this.#chunk.length) return;
    this.#spare ??= this.#newChunk();
  }

  /**
   * This worker's first `words` words of entries (at most what it has
   * filled), as views of its chunks.
   *
   * @param words A published count.
   * @returns The views.
   */
  chunks(words: number): Int32Array[] {
    return entriesUpTo(this.#chunks, Math.min(words, this.#words));
  }

  // A new chunk, posted: chunks are posted in the order they are filled.
  #newChunk(): Int32Array {
    const chunk = new Int32Array(new SharedArrayBuffer(CHUNK * 4));
    this.#chunks.push(chunk);
    this.#post?.(chunk);
    return chunk;
  }
}

/**
 * How many chunks hold a worker's first `words` words of entries.
 *
 * @param words A published count.
 * @returns The chunks.
 *
 * @example Usage
 * ```ts
 * import { CHUNK, chunksHolding } from "./record_entries.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(chunksHolding(0), 0);
 * assertEquals(chunksHolding(CHUNK), 1);
 * assertEquals(chunksHolding(CHUNK + 8), 2);
 * ```
 */
export function chunksHolding(words: number): number {
  return Math.ceil(words / CHUNK);
}

/**
 * The first `words` words of entries in a worker's chunks (in the order
 * it posted them), as views.
 *
 * @param chunks The chunks: at least `chunksHolding(words)`.
 * @param words A published count.
 * @returns The views.
 *
 * @example Usage
 * ```ts
 * import { CHUNK, entriesUpTo } from "./record_entries.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const chunks = [new Int32Array(CHUNK), new Int32Array(CHUNK)];
 * const views = entriesUpTo(chunks, CHUNK + 16);
 * assertEquals(views.map((v) => v.length), [CHUNK, 16]);
 * ```
 */
export function entriesUpTo(
  chunks: readonly Int32Array[],
  words: number,
): Int32Array[] {
  const views: Int32Array[] = [];
  for (let k = 0; k * CHUNK < words; k++) {
    views.push(chunks[k].subarray(0, Math.min(CHUNK, words - k * CHUNK)));
  }
  return views;
}
