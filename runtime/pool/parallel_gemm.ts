/**
 * Large float32 matrix products split over a pool's workers (intra-op
 * parallelism). The requesting worker copies A and B into the run's shared
 * heap, packs B once, and posts a ticket to every other worker; then all of
 * them claim chunks of C's rows from the ticket's counter and compute them
 * with the WASM SIMD kernel, each over the same shared memory. The
 * requester computes whatever nobody else claimed and waits only for the
 * chunks others are computing, so a busy worker never holds it up: it
 * simply joins late, or not at all.
 *
 * A ticket outlives its product: every worker it was posted to holds a
 * reference until it has looked at it, and the last one frees it. A late
 * helper finds no rows left and touches nothing else.
 *
 * Below about 512³ multiply-adds a hand-off costs more than it saves
 * (design.md §6): those products stay on the calling worker.
 *
 * @module
 */
import type { Float32Gemm } from "../../kernels/device.ts";
import {
  GemmKernel,
  gemmScratchBytes,
  matmulFloat32,
  packedBBytes,
} from "../../kernels/cpu/wasm/gemm.ts";
import type { PoolMember } from "../../scheduler/shared/pool_member.ts";

/** The least m·n·k worth splitting. */
const MIN_WORK = 2 ** 27;

// A ticket's words.
const NEXT = 0; // the next unclaimed row
const DONE = 1; // rows computed
const REFS = 2; // workers still holding the ticket
const M = 3;
const N = 4;
const K = 5;
const A = 6;
const PACKED_B = 7;
const C = 8;
const CHUNK = 9;
const TICKET_BYTES = 16 * 4;

// How long the requester waits without progress before giving up on a
// helper that claimed rows (a worker that died mid-chunk).
const STALL_MS = 10_000;

/**
 * One worker's side of split products: it requests them, and helps with
 * the others' when they post a ticket.
 */
export class ParallelGemm {
  readonly #member: PoolMember;
  readonly #workers: number;
  #kernel: GemmKernel | undefined;
  #scratch = 0;

  /**
   * @param member This worker.
   * @param workers How many workers the run has.
   */
  constructor(member: PoolMember, workers: number) {
    this.#member = member;
    this.#workers = workers;
  }

  /**
   * The product, split over the workers when it is large enough.
   */
  readonly gemm: Float32Gemm = (a, b, options) => {
    const m = a.rows, k = a.cols, n = b.cols;
    if (m * n * k < MIN_WORK || m < 64 || this.#workers < 2) {
      matmulFloat32(a, b, options);
      return;
    }
    this.#split(a.data, b.data, options.out, [m, k, n], options.alpha);
  };

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
   * Helps with another worker's product: computes the rows still
   * unclaimed, then lets go of the ticket.
   *
   * @param message The ticket's message.
   */
  help(message: number): void {
    const ticket = message - 1;
    this.#computeClaimed(ticket);
    this.#release(ticket);
  }

  #split(
    a: Float32Array,
    b: Float32Array,
    out: Float32Array,
    [m, k, n]: readonly number[],
    alpha: number,
  ): void {
    const member = this.#member;
    const heap = member.heap;
    const kernel = this.#kernelHere();
    member.lock();
    const aAt = heap.allocData(4 * m * k);
    const bAt = heap.allocData(4 * k * n);
    const packedB = heap.allocData(packedBBytes(k, n));
    const cAt = heap.allocData(4 * m * n);
    const ticket = heap.allocControl(TICKET_BYTES);
    member.unlock();
    heap.cover(cAt + 4 * m * n);
    new Float32Array(heap.memory.buffer, aAt, m * k).set(a);
    new Float32Array(heap.memory.buffer, bAt, k * n).set(b);
    kernel.packB({ b: bAt, packedB, k, n });
    const t = ticket >> 2;
    const i32 = heap.i32;
    // Chunks of 4-row multiples, a few per worker, so that a late helper
    // still finds some.
    const chunk = Math.max(8, Math.ceil(m / (this.#workers * 4) / 4) * 4);
    i32[t + M] = m;
    i32[t + N] = n;
    i32[t + K] = k;
    i32[t + A] = aAt;
    i32[t + PACKED_B] = packedB;
    i32[t + C] = cAt;
    i32[t + CHUNK] = chunk;
    Atomics.store(i32, t + REFS, this.#workers);
    member.lock();
    for (let w = 0; w < this.#workers; w++) {
      if (w !== member.self) member.post(w, ticket + 1);
    }
    member.unlock();
    this.#computeClaimed(ticket);
    this.#awaitRows(ticket, m);
    const product = new Float32Array(heap.memory.buffer, cAt, m * n);
    if (alpha === 1) out.set(product);
    else for (let i = 0; i < product.length; i++) out[i] = alpha * product[i];
    member.lock();
    for (const blob of [aAt, bAt, packedB, cAt]) heap.freeData(blob);
    member.unlock();
    this.#release(ticket);
  }

  // Claims chunks of rows and computes them until none are left.
  #computeClaimed(ticket: number): void {
    const heap = this.#member.heap;
    const i32 = heap.i32;
    const t = ticket >> 2;
    const m = i32[t + M];
    const chunk = i32[t + CHUNK];
    const layout = {
      a: i32[t + A],
      packedB: i32[t + PACKED_B],
      c: i32[t + C],
      m,
      k: i32[t + K],
      n: i32[t + N],
    };
    let kernel: GemmKernel | undefined;
    for (;;) {
      const start = Atomics.add(i32, t + NEXT, chunk);
      if (start >= m) return;
      kernel ??= this.#kernelHere();
      const end = Math.min(m, start + chunk);
      kernel.computeRows(layout, { scratch: this.#scratch, start, end });
      Atomics.add(i32, t + DONE, end - start);
      Atomics.notify(i32, t + DONE);
    }
  }

  // Waits (blocking this worker: the rows are a few milliseconds away)
  // until every claimed chunk is computed.
  #awaitRows(ticket: number, m: number): void {
    const i32 = this.#member.heap.i32;
    const t = ticket >> 2;
    let last = -1;
    let since = performance.now();
    for (;;) {
      const done = Atomics.load(i32, t + DONE);
      if (done >= m) return;
      if (done !== last) {
        last = done;
        since = performance.now();
      } else if (performance.now() - since > STALL_MS) {
        throw new Error("matmul: a worker helping with it stopped");
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

  // This worker's kernel over the shared memory, and its own scratch.
  #kernelHere(): GemmKernel {
    if (this.#kernel !== undefined) return this.#kernel;
    const member = this.#member;
    member.lock();
    this.#scratch = member.heap.allocData(gemmScratchBytes());
    member.unlock();
    return this.#kernel = new GemmKernel(member.heap.memory);
  }
}
