// A one-worker recording's log: every channel attempt in the order made,
// which on one worker is the order each channel takes them. Three words
// an attempt: the channel, the thread's lineage key and the site (a
// select's attempts have their site complemented, ~site, until it
// chooses, so the file's encoder skips the cases it did not take).
//
// The log is kept in chunks of LOG_CHUNK words, never copied: chunks stay
// small (64 KiB), as the allocator then reuses memory instead of mapping
// fresh pages, whose faults cost more than anything else a recording
// does. Full chunks of encoded recordings wait for the next recording of
// this process to fill (at most 4 MiB): a process that records run after
// run (a test suite, a server, a benchmark) then does not churn 64 KiB
// buffers, whose memory V8 counts toward its next full collection.
//
// Invariants:
//   An attempt's place (in words, counted over every chunk) never
//   changes: place p is word p % LOG_CHUNK of chunk p / LOG_CHUNK.
//   Only full chunks are kept for reuse.

// Words per chunk: 5461 attempts.
const LOG_CHUNK = 3 * 5461;
const spareLogs: Int32Array[] = [];
const MAX_SPARE_LOGS = 64;

/**
 * A one-worker recording's log of attempts.
 *
 * @example Usage
 * ```ts
 * import { RecordLog } from "./record_log.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const log = new RecordLog();
 * const place = log.add(0, 7, 2);
 * log.flip(place);
 * assertEquals([...log.chunks()[0]], [0, 7, ~2]);
 * log.recycle();
 * ```
 */
export class RecordLog {
  // The full chunks, then the one being filled up to #at.
  readonly #full: Int32Array[] = [];
  #chunk: Int32Array = new Int32Array(0);
  #at = 0;

  /**
   * Appends an attempt.
   *
   * @param c The channel's index.
   * @param key The thread's lineage key.
   * @param site The attempt's site (complemented for a select's case).
   * @returns Its place.
   */
  add(c: number, key: number, site: number): number {
    let chunk = this.#chunk;
    let at = this.#at;
    if (at === chunk.length) {
      if (chunk.length > 0) this.#full.push(chunk);
      chunk = this.#chunk = spareLogs.pop() ?? new Int32Array(LOG_CHUNK);
      at = 0;
    }
    chunk[at] = c;
    chunk[at + 1] = key;
    chunk[at + 2] = site;
    this.#at = at + 3;
    return this.#full.length * LOG_CHUNK + at;
  }

  /**
   * Complements the site of the attempt at `place`: a select's case it
   * took is kept.
   *
   * @param place What `add` returned.
   */
  flip(place: number): void {
    const n = (place / LOG_CHUNK) | 0;
    const chunk = n < this.#full.length ? this.#full[n] : this.#chunk;
    const at = place - n * LOG_CHUNK + 2;
    chunk[at] = ~chunk[at];
  }

  /**
   * The attempts so far, in order.
   *
   * @returns The chunks (views, not copies).
   */
  chunks(): Int32Array[] {
    return [...this.#full, this.#chunk.subarray(0, this.#at)];
  }

  /** Empties the log, keeping full chunks for the next recording. */
  recycle(): void {
    for (const chunk of [...this.#full, this.#chunk]) {
      if (chunk.length === LOG_CHUNK && spareLogs.length < MAX_SPARE_LOGS) {
        spareLogs.push(chunk);
      }
    }
    this.#full.length = 0;
    this.#chunk = new Int32Array(0);
    this.#at = 0;
  }
}
