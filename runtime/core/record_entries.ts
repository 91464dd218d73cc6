// A pooled recording's entries on one worker: what the worker noted
// stays there (attempts, choices and channels made, ENTRY words each, in
// chunks of CHUNK words) until the main thread gathers every worker's
// chunks as the run ends (`chunks`, `adopt`) and builds the record from
// them (record_building.ts).
//
// Invariants:
//   Word 0 of a chunk counts the words used, entries included; a chunk
//   is never copied (a run's entries are written once and read once).
//   The entries of one channel's attempts carry dense sequence numbers
//   from 0 over all workers' chunks together.

/** Words per entry (word 0 of a chunk is its count of words used). */
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
// Words per chunk.
const CHUNK = 65536;

/**
 * One worker's entries.
 *
 * @example Usage
 * ```ts
 * import { ATTEMPT, ENTRY, RecordEntries } from "./record_entries.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const entries = new RecordEntries();
 * entries.append(ATTEMPT, 0, 0, 5, 1, 2, 0, -1);
 * const [chunk] = entries.chunks();
 * assertEquals(chunk[0], 2 * ENTRY);
 * assertEquals([...chunk.subarray(ENTRY, 2 * ENTRY)], [ATTEMPT, 0, 0, 5, 1, 2, 0, -1]);
 * ```
 */
export class RecordEntries {
  // The chunk being filled and the full ones before it (and, on the main
  // thread, the other workers' adopted ones).
  #chunk: Int32Array;
  readonly #full: Int32Array[] = [];

  /** @param size Words of the first chunk (an unused recorder's is small). */
  constructor(size: number = CHUNK) {
    this.#chunk = new Int32Array(size);
    this.#chunk[0] = ENTRY;
  }

  /**
   * Appends one entry (positional, so no array per call), in a new chunk
   * when this one is full.
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
    let at = ev[0];
    if (at + ENTRY > ev.length) {
      this.#full.push(ev);
      ev = this.#chunk = new Int32Array(CHUNK);
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

  /**
   * Every chunk of entries: for a worker to post to the main thread as
   * the run ends, or for the main thread to build the record from.
   *
   * @returns The chunks.
   */
  chunks(): Int32Array[] {
    return [...this.#full, this.#chunk];
  }

  /**
   * On the main thread: takes in another worker's `chunks`.
   *
   * @param chunks The chunks.
   */
  adopt(chunks: readonly Int32Array[]): void {
    this.#full.push(...chunks);
  }
}
