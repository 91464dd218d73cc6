/**
 * Large float32 matrix products split over a pool's workers by rows of C
 * (row_split.ts). The requesting worker copies A and B into the run's
 * shared heap unless they are there already (shared tensors,
 * shared_storage.ts), packs B once, and computes C's rows with every
 * worker that helps, each with the WASM SIMD kernel over the same memory.
 *
 * Below about 512³ multiply-adds a hand-off costs more than it saves
 * (docs/architecture.md §6): those products stay on the calling worker.
 *
 * @module
 */
import type { Float32Gemm } from "../../kernels/kernel_options.ts";
import {
  GemmKernel,
  gemmScratchBytes,
  matmulFloat32,
  packedBBytes,
} from "../../kernels/cpu/wasm/gemm.ts";
import type { SharedHeap } from "../../scheduler/shared/heap.ts";
import type { PoolMember } from "../../scheduler/shared/pool_member.ts";
import { JOB_WORDS, type RowSplit } from "./row_split.ts";
import { SharedStorage } from "./shared_storage.ts";

/** The least m·n·k worth splitting. */
const MIN_WORK = 2 ** 27;

// A product's words in its ticket.
const N = JOB_WORDS;
const K = JOB_WORDS + 1;
const A = JOB_WORDS + 2;
const PACKED_B = JOB_WORDS + 3;
const C = JOB_WORDS + 4;
const M = JOB_WORDS + 5;

/**
 * One worker's side of split products.
 */
export class ParallelGemm {
  readonly #member: PoolMember;
  readonly #split: RowSplit;
  readonly #job: number;
  #kernel: GemmKernel | undefined;
  #scratch = 0;
  // Packed B, kept from one product to the next: a block freed after each
  // product would go to the next product's C (same size class), and its
  // replacement would be fresh pages, which cost more here than the packing.
  #packedB = 0;
  #packedBBytes = 0;

  /**
   * @param member This worker.
   * @param split This worker's row splitter; the product registers there.
   */
  constructor(member: PoolMember, split: RowSplit) {
    this.#member = member;
    this.#split = split;
    this.#job = split.register((t, start, end) => this.#rows(t, start, end));
  }

  /**
   * The product, split over the workers when it is large enough.
   */
  readonly gemm: Float32Gemm = (a, b, options) => {
    const m = a.rows, k = a.cols, n = b.cols;
    if (m * n * k < MIN_WORK || m < 64 || this.#split.workers < 2) {
      matmulFloat32(a, b, options);
      return;
    }
    this.#product(a.data, b.data, options.out, [m, k, n], options.alpha);
  };

  #product(
    a: Float32Array,
    b: Float32Array,
    out: Float32Array,
    [m, k, n]: readonly number[],
    alpha: number,
  ): void {
    const member = this.#member;
    const heap = member.heap;
    const kernel = this.#kernelHere();
    // Operands already in the heap (shared tensors) are used in place.
    const given = [a, b, out].map((x) =>
      SharedStorage.offsetIn(heap.memory, x)
    );
    member.lock();
    const [aAt, bAt, cAt] = [m * k, k * n, m * n].map((size, i) =>
      given[i] ?? heap.allocData(4 * size)
    );
    const packedB = this.#packedBOf(packedBBytes(k, n));
    member.unlock();
    if (given[0] === undefined) f32(heap, aAt, m * k).set(a);
    if (given[1] === undefined) f32(heap, bAt, k * n).set(b);
    kernel.packB({ b: bAt, packedB, k, n });
    // Chunks of 4-row multiples, a few per worker, so that a late helper
    // still finds some.
    const workers = this.#split.workers;
    const chunk = Math.max(8, Math.ceil(m / (workers * 4) / 4) * 4);
    try {
      this.#split.run(this.#job, m, chunk, (t) => {
        const i32 = heap.i32;
        i32[t + N] = n;
        i32[t + K] = k;
        i32[t + A] = aAt;
        i32[t + PACKED_B] = packedB;
        i32[t + C] = cAt;
        i32[t + M] = m;
      });
      if (given[2] === undefined) out.set(f32(heap, cAt, m * n));
      if (alpha !== 1) { for (let i = 0; i < out.length; i++) out[i] *= alpha; }
    } finally {
      member.lock();
      [aAt, bAt, cAt].forEach((at, i) => given[i] ?? heap.freeData(at));
      member.unlock();
    }
  }

  // Computes rows [start, end) of the product whose ticket is at word t.
  #rows(t: number, start: number, end: number): void {
    const kernel = this.#kernelHere();
    const i32 = this.#member.heap.i32;
    kernel.computeRows({
      a: i32[t + A],
      packedB: i32[t + PACKED_B],
      c: i32[t + C],
      m: i32[t + M],
      k: i32[t + K],
      n: i32[t + N],
    }, { scratch: this.#scratch, start, end });
  }

  // Room for packed B of `bytes`, this worker's from now on. Precondition:
  // the lock is held.
  #packedBOf(bytes: number): number {
    if (bytes <= this.#packedBBytes) return this.#packedB;
    const heap = this.#member.heap;
    if (this.#packedB !== 0) heap.freeData(this.#packedB);
    this.#packedBBytes = bytes;
    return this.#packedB = heap.allocData(bytes);
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

// Float32 elements of the heap at a byte offset: a view made over the
// memory's current buffer, so it reaches blocks past this worker's views of
// the heap (as the WASM kernel, which works on the memory itself, does).
function f32(heap: SharedHeap, at: number, length: number): Float32Array {
  return new Float32Array(heap.memory.buffer, at, length);
}
