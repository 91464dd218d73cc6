/**
 * Intra-op parallelism: one kernel call's rows computed by every worker of
 * the pool that is free to help.
 *
 * The requesting worker writes a ticket (the job, the row count, the chunk
 * size and the job's own words) and posts it to every other worker; then
 * all of them claim chunks of rows from the ticket's counter and compute
 * them over the shared memory. The requester computes whatever nobody
 * else claimed and waits only for the chunks others are computing, so a
 * busy worker never holds it up: it joins late, or not at all.
 *
 * Invariants:
 *   A chunk is claimed once (an atomic add on NEXT) and counted in DONE
 *   once computed; the requester returns only when DONE equals the rows.
 *   A chunk that throws sets FAILED and ends the claims: its worker counts
 *   its own rows and the unclaimed rest as done, so nobody waits for them.
 *   A helper reads a job's words and data only after claiming a chunk, so
 *   once the requester has returned nobody reads them again: it may free
 *   them. The ticket itself outlives the call: every worker it was posted
 *   to holds a reference until it has looked at it, and the last frees it.
 *
 * @module
 */
import { Global } from "../../scheduler/shared/heap.ts";
import type { PoolMember } from "../../scheduler/shared/pool_member.ts";

// A ticket's words; a job's own words follow. The requester writes them
// all, then stores REFS and posts the ticket under the heap's lock; a
// helper reads them after draining its ring, which takes that lock. From
// then on only NEXT, DONE, REFS and FAILED change, by Atomics. A ticket
// lies in the control arena, which every worker's views cover from the
// start (heap.ts): nobody covers it.
const NEXT = 0; // the next unclaimed row
const DONE = 1; // rows computed
const REFS = 2; // workers still holding the ticket
const ROWS = 3;
const CHUNK = 4;
const JOB = 5;
const FAILED = 6; // 1 once a worker's chunk threw
/**
 * The first of a job's own words in a ticket: a job has words JOB_WORDS
 * to 15 (a job's data, in the data arena, is its own to cover).
 */
export const JOB_WORDS = 7;
const TICKET_BYTES = 16 * 4;

/** Thrown by `run` when a helping worker's chunk threw. */
export class RowSplitFailed extends Error {}

// How long the requester waits without progress before giving up on a
// helper that claimed rows (a worker that died mid-chunk).
const STALL_MS = 10_000;

/**
 * Computes rows `[start, end)` of the job whose ticket starts at word `t`
 * (its own words from `t + JOB_WORDS`).
 */
export type RowWork = (t: number, start: number, end: number) => void;

/**
 * One worker's side of split kernel calls: it requests them, and helps
 * with the others' when they post a ticket. Every worker registers the
 * same jobs in the same order.
 *
 * @example Usage
 * ```ts
 * import { Scheduler } from "../../scheduler/scheduler.ts";
 * import { SharedHeap } from "../../scheduler/shared/heap.ts";
 * import { PoolMember } from "../../scheduler/shared/pool_member.ts";
 * import { createWakeRings } from "../../scheduler/shared/wake_ring.ts";
 * import { RowSplit } from "./row_split.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * createWakeRings(heap, 1);
 * const member = new PoolMember(heap, 0, new Scheduler({ threadContext: false }));
 * const split = new RowSplit(member, 1);
 * const rows: number[] = [];
 * const job = split.register((_t, start, end) => {
 *   for (let r = start; r < end; r++) rows.push(r);
 * });
 * split.run(job, 10, 4, () => {});
 * assertEquals(rows, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
 * member.close();
 * ```
 */
export class RowSplit {
  readonly #member: PoolMember;
  readonly #workers: number;
  readonly #jobs: RowWork[] = [];

  /**
   * @param member This worker.
   * @param workers How many workers the run has.
   */
  constructor(member: PoolMember, workers: number) {
    this.#member = member;
    this.#workers = workers;
  }

  /** How many workers the run has. */
  get workers(): number {
    return this.#workers;
  }

  /**
   * Adds a job.
   *
   * @param work Computes a job's rows.
   * @returns The job's number, for `run`.
   */
  register(work: RowWork): number {
    return this.#jobs.push(work) - 1;
  }

  /**
   * Computes every row of a job with whichever workers help, and returns
   * once all are done.
   *
   * @param job The job's number.
   * @param rows How many rows.
   * @param chunk Rows per claim.
   * @param write Writes the job's own words, from word `t + JOB_WORDS`.
   * @param first The first row to compute (the caller did those before).
   * @throws {RowSplitFailed} When a helper's chunk threw (the caller's own
   * errors propagate as they are).
   * @throws {Error} When a helper stops mid-chunk.
   */
  run(
    job: number,
    rows: number,
    chunk: number,
    write: (t: number) => void,
    first = 0,
  ): void {
    const member = this.#member;
    const heap = member.heap;
    member.lock();
    const ticket = heap.allocControl(TICKET_BYTES);
    member.unlock();
    const t = ticket >> 2;
    const i32 = heap.i32;
    i32[t + NEXT] = first;
    i32[t + DONE] = first;
    i32[t + ROWS] = rows;
    i32[t + CHUNK] = chunk;
    i32[t + JOB] = job;
    i32[t + FAILED] = 0;
    write(t);
    Atomics.store(i32, t + REFS, this.#workers);
    member.lock();
    for (let w = 0; w < this.#workers; w++) {
      if (w !== member.self) member.post(w, ticket + 1);
    }
    member.unlock();
    let failed = false;
    try {
      this.#computeClaimed(ticket, true);
    } finally {
      // Helpers may still be reading what the caller frees after this.
      try {
        this.#awaitRows(t, rows);
        failed = i32[t + FAILED] === 1;
      } finally {
        this.#release(ticket);
      }
    }
    if (failed) {
      throw new RowSplitFailed("a worker's part of an operator failed");
    }
  }

  /**
   * Whether a posted message is a ticket (blobs are 8-aligned; a ticket's
   * message has its low bit set).
   *
   * @param message A message from another worker.
   * @returns True for a ticket.
   */
  static isTicket(message: number): boolean {
    return (message & 1) === 1;
  }

  /**
   * Helps with another worker's call: computes the rows still unclaimed,
   * then lets go of the ticket.
   *
   * @param message The ticket's message.
   * @returns How many rows this worker computed.
   */
  help(message: number): number {
    const ticket = message - 1;
    try {
      const rows = this.#computeClaimed(ticket, false);
      Atomics.add(this.#member.heap.i32, Global.HelpedRows, rows);
      return rows;
    } finally {
      this.#release(ticket);
    }
  }

  // Claims chunks of rows and computes them until none are left; a chunk
  // that throws ends the claims (see the top of this file). Returns how
  // many rows this worker computed.
  #computeClaimed(ticket: number, rethrow: boolean): number {
    const i32 = this.#member.heap.i32;
    const t = ticket >> 2;
    const rows = i32[t + ROWS];
    const chunk = i32[t + CHUNK];
    const work = this.#jobs[i32[t + JOB]];
    let computed = 0;
    for (;;) {
      const start = Atomics.add(i32, t + NEXT, chunk);
      if (start >= rows) return computed;
      const end = Math.min(rows, start + chunk);
      try {
        work(t, start, end);
      } catch (error) {
        Atomics.store(i32, t + FAILED, 1);
        const rest = Atomics.exchange(i32, t + NEXT, rows);
        Atomics.add(i32, t + DONE, end - start + Math.max(0, rows - rest));
        Atomics.notify(i32, t + DONE);
        if (rethrow) throw error;
        return computed;
      }
      computed += end - start;
      Atomics.add(i32, t + DONE, end - start);
      Atomics.notify(i32, t + DONE);
    }
  }

  // Waits (blocking this worker: the rows are a few milliseconds away)
  // until every claimed chunk is computed.
  #awaitRows(t: number, rows: number): void {
    const i32 = this.#member.heap.i32;
    let last = -1;
    let since = performance.now();
    for (;;) {
      const done = Atomics.load(i32, t + DONE);
      if (done >= rows) return;
      if (done !== last) {
        last = done;
        since = performance.now();
      } else if (performance.now() - since > STALL_MS) {
        throw new Error("a worker helping with an operator stopped");
      }
      Atomics.wait(i32, t + DONE, done, 1);
    }
  }

  // Lets go of a ticket; the last worker to do so frees it.
  #release(ticket: number): void {
    const member = this.#member;
    if (Atomics.sub(member.heap.i32, (ticket >> 2) + REFS, 1) !== 1) return;
    member.lock();
    member.heap.freeControl(ticket);
    member.unlock();
  }
}
