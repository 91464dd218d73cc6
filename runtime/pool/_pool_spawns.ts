/**
 * How one worker of a pooled run starts green threads on other workers and
 * takes them from others: a `go` block's thread as one spawn blob
 * (_spawn_blob.ts) posted to its target's wake ring, carrying the block,
 * the thread's random stream and the values of the variables the block
 * reads, in the order `capturesOf` lists them; a `parallel_for`'s
 * iterations as a queue (_iteration_queue.ts) that its worker and up to
 * N-1 others take from as they become free (_iteration_taker.ts), offered
 * to each with one spawn blob that carries the captures once.
 *
 * Invariants:
 *   The spawner counts a new thread active before posting it, and the
 *   receiver takes that count back when the thread is made; a queued
 *   iteration likewise counts from the parallel_for's start until a taker
 *   starts it. So the run never looks idle while a thread is in flight.
 *   Iteration i runs with the parent's i-th child key, as on one worker.
 *
 * @module
 */
import type { ProgramDesc } from "../../gen/rill/v1/framework_pb.ts";
import { Tensor } from "../../kernels/tensor.ts";
import type { GreenThread } from "../../scheduler/green_thread.ts";
import {
  type PoolMember,
  SharedWait,
} from "../../scheduler/shared/pool_member.ts";
import { goFromKey, reserveChildKey } from "../../scheduler/_thread_control.ts";
import { runThreadBlock } from "../exec/block_runner.ts";
import { freeVariables } from "../check/free_variables.ts";
import type { PreparedProgram } from "../exec/prepare.ts";
import { Scope } from "../core/scope.ts";
import type { RunServices } from "../core/thread_context.ts";
import { threadContext } from "../exec/thread_context.ts";
import { readCrossing, writeCrossing } from "./crossing_value.ts";
import {
  allEnded,
  createQueue,
  dropHold,
  parkOnQueue,
} from "./_iteration_queue.ts";
import { IterationTaker } from "./_iteration_taker.ts";
import { readSpawn, writeSpawn } from "./_spawn_blob.ts";

/**
 * One worker's spawns across the pool (see the top of this file).
 *
 * @example Usage
 * ```ts
 * import { Executor, Program, arrayToTensor, arrayWrite, createArray, parallelFor, print } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * // PoolSpawns is what a pooled parallel_for runs through.
 * const program = new Program();
 * program.guard(() => {
 *   const out = createArray({ dtype: "int64" });
 *   parallelFor(3, (i) => arrayWrite(i, i, out));
 *   print(arrayToTensor(out));
 * });
 * const lines: string[] = [];
 * await new Executor({ workers: 2, print: (l) => lines.push(l) }).run(program);
 * assertEquals(lines, ["[0, 1, 2]"]);
 * ```
 */
export class PoolSpawns {
  /** This worker's link to the others. */
  readonly member: PoolMember;
  /** How many workers the run has. */
  readonly workers: number;
  readonly #prepared: PreparedProgram;
  readonly #desc: ProgramDesc;
  readonly #services: () => RunServices;
  readonly #captures = new Map<number, readonly string[]>();
  readonly #createdAt = new Map<number, { createdAt: string }>();
  // Takers of this worker still taking (stopped when the run closes).
  readonly #takers = new Set<IterationTaker>();

  /**
   * @param member This worker's link to the others.
   * @param workers How many workers the run has.
   * @param prepared The program, prepared on this worker.
   * @param services The services this worker's threads run with, once
   * attached (read when a thread starts).
   */
  constructor(
    member: PoolMember,
    workers: number,
    prepared: PreparedProgram,
    services: () => RunServices,
  ) {
    this.member = member;
    this.workers = workers;
    this.#prepared = prepared;
    this.#desc = prepared.desc;
    this.#services = services;
    this.#indexOwners();
  }

  /** Stops this worker's takers (the run is over). */
  stop(): void {
    for (const taker of this.#takers) taker.stop();
  }

  /**
   * The variables a thread of `block` reads from outside the block, in the
   * order a spawn blob carries their values.
   *
   * @param block The block.
   * @returns Their names.
   */
  capturesOf(block: number): readonly string[] {
    let names = this.#captures.get(block);
    if (names === undefined) {
      names = [...freeVariables(this.#desc, block).reads].sort();
      this.#captures.set(block, names);
    }
    return names;
  }

  /**
   * Starts a thread of `block` on `worker`, with the values of its
   * captures read from `scope` (the spawning op's scope).
   *
   * @param worker The target worker.
   * @param block The block.
   * @param scope The spawning op's scope.
   * @param parent The spawning thread.
   */
  spawn(
    worker: number,
    block: number,
    scope: Scope,
    parent: GreenThread,
  ): void {
    const m = this.member;
    const values = this.#capturedValues(block, scope);
    m.lock();
    const blob = writeSpawn(m.heap, {
      block,
      key: reserveChildKey(parent),
      group: 0,
      index: 0,
      values: values.map((v) => writeCrossing(m, v)),
    });
    // The new thread counts as active from now on; see the top of the file.
    m.changed(1);
    m.post(worker, blob);
    m.unlock();
  }

  // The values of the variables a thread of `block` reads from outside it,
  // in capturesOf's order.
  #capturedValues(block: number, scope: Scope) {
    const parentBlock = this.#desc.blocks[block].parentIdx;
    return this.capturesOf(block).map((n) =>
      this.#prepared.resolve(parentBlock, n).read(scope)
    );
  }

  /**
   * Runs `n` iterations of `block` across the pool: they go in a queue that
   * every worker takes from as it becomes free, this one included (see the
   * top of this file), and the parallel_for waits for them all.
   *
   * @param block The body.
   * @param n How many iterations (1 and up).
   * @param scope The parallel_for's scope.
   * @param parent The parallel_for's thread.
   * @returns `undefined` when they all have ended already, else a promise.
   */
  parallelFor(
    block: number,
    n: number,
    scope: Scope,
    parent: GreenThread,
  ): void | Promise<void> {
    const m = this.member;
    // Iteration i's stream is the parent's i-th child's, as on one worker.
    const keys = Array.from({ length: n }, () => reserveChildKey(parent));
    // This worker takes one at once; the rest may go to n - 1 others.
    const others = Math.min(this.workers - 1, n - 1);
    const values = others === 0 ? [] : this.#capturedValues(block, scope);
    m.lock();
    // Held by the parallel_for, this worker's taker and each other's.
    const queue = createQueue(m.heap, keys, 2 + others);
    // Queued iterations are active work; see _iteration_taker.ts.
    m.changed(n);
    for (let k = 1; k <= others; k++) {
      const offer = writeSpawn(m.heap, {
        block,
        key: 0,
        group: queue,
        index: 0,
        values: values.map((v) => writeCrossing(m, v)),
      });
      m.post((m.self + k) % this.workers, offer);
    }
    m.unlock();
    const body = this.#prepared.block(block);
    const indexSlot = this.#indexSlot(block)!;
    this.#take(queue, block, () => {
      const child = new Scope(body.layout, scope);
      return { child, indexSlot };
    });
    return this.#waitQueue(queue, parent);
  }

  // Waits until every iteration of `queue` has ended.
  #waitQueue(queue: number, thread: GreenThread): void | Promise<void> {
    const m = this.member;
    m.lock();
    if (allEnded(m.heap, queue)) {
      dropHold(m.heap, queue);
      m.unlock();
      return;
    }
    const wait = new QueueWait(queue, thread);
    parkOnQueue(m.heap, queue, m.self, m.park(wait, "sync.WaitGroup.Wait"));
    m.unlock();
    return wait.promise;
  }

  // Starts this worker's taker of `queue`: each iteration it takes runs in
  // a scope that `scopeOf` makes.
  #take(
    queue: number,
    block: number,
    scopeOf: () => { child: Scope; indexSlot: number | undefined },
  ): void {
    const m = this.member;
    const services = this.#services();
    const body = this.#prepared.block(block);
    const createdAt = this.#createdAt.get(block);
    const taker = new IterationTaker(m, queue, (index, key, ended) => {
      const { child, indexSlot } = scopeOf();
      if (indexSlot !== undefined) {
        child.values[indexSlot] = Tensor.scalar(BigInt(index), "int64");
      }
      return goFromKey(
        m.scheduler,
        key,
        (thread) =>
          runThreadBlock(body, child, threadContext(services, thread), ended),
        createdAt,
      );
    });
    for (const t of this.#takers) if (t.stopped) this.#takers.delete(t);
    this.#takers.add(taker);
  }

  /**
   * Starts what a spawn blob another worker posted here asks for: one
   * thread, or this worker's taker of a parallel_for's queue.
   *
   * @param blob The blob (this worker's now).
   */
  start(blob: number): void {
    const m = this.member;
    const { block, key, group, values } = readSpawn(m.heap, blob);
    if (group !== 0) return this.#takeOffered(blob, block, group, values);
    const names = this.capturesOf(block);
    const body = this.#prepared.block(block);
    const parentBlock = this.#desc.blocks[block].parentIdx;
    const outer = this.#scopeChain(parentBlock);
    const child = new Scope(body.layout, outer);
    for (let k = 0; k < names.length; k++) {
      const value = readCrossing(m, values[k][0], values[k][1]);
      const local = body.layout.slotOf(names[k]);
      if (local !== undefined) child.values[local] = value;
      else this.#prepared.resolve(block, names[k]).write(child, value);
    }
    m.freeDataLater(blob);
    const services = this.#services();
    const run = (thread: GreenThread) =>
      runThreadBlock(body, child, threadContext(services, thread));
    goFromKey(m.scheduler, key, run, this.#createdAt.get(block));
    // goFromKey counted the thread; the spawner already had (see spawn()).
    m.changed(-1);
  }

  // Another worker's parallel_for offered its queue: take iterations from
  // it here, each in a scope holding the captures the offer carried (read
  // once; tensors are immutable and channels and arrays shared, so every
  // iteration here may see the same values, as iterations on one worker
  // share their parent's scope).
  #takeOffered(
    blob: number,
    block: number,
    queue: number,
    values: readonly (readonly [number, number])[],
  ): void {
    const m = this.member;
    const names = this.capturesOf(block);
    const body = this.#prepared.block(block);
    const parentBlock = this.#desc.blocks[block].parentIdx;
    const outer = this.#scopeChain(parentBlock);
    const read = values.map(([tag, ref]) => readCrossing(m, tag, ref));
    m.freeDataLater(blob);
    const indexSlot = this.#indexSlot(block);
    this.#take(queue, block, () => {
      const child = new Scope(body.layout, outer);
      for (let k = 0; k < names.length; k++) {
        const local = body.layout.slotOf(names[k]);
        if (local !== undefined) child.values[local] = read[k];
        else this.#prepared.resolve(block, names[k]).write(child, read[k]);
      }
      return { child, indexSlot };
    });
  }

  // Scopes for the ancestors of a spawned block, holding only what the
  // block reads (set by the caller).
  #scopeChain(block: number): Scope {
    const chain: number[] = [];
    for (let b = block; b >= 0; b = this.#desc.blocks[b].parentIdx) {
      chain.push(b);
      if (b === 0) break;
    }
    let scope: Scope | undefined;
    for (let k = chain.length - 1; k >= 0; k--) {
      scope = new Scope(this.#prepared.layout(chain[k]), scope);
    }
    return scope!;
  }

  #indexSlot(block: number): number | undefined {
    const owner = this.#ownerOp(block);
    const attr = owner?.attrs.find((a) => a.name === "index_var");
    return this.#prepared.block(block).layout.slotOf(attr?.s ?? "index");
  }

  #ownerOp(block: number) {
    const parent = this.#desc.blocks[this.#desc.blocks[block].parentIdx];
    return parent?.ops.find((op) =>
      op.attrs.some((a) => a.name === "sub_block" && a.blockIdx === block)
    );
  }

  #indexOwners(): void {
    for (const b of this.#desc.blocks) {
      b.ops.forEach((op, i) => {
        if (op.type !== "go" && op.type !== "parallel_for") return;
        const sub = op.attrs.find((a) => a.name === "sub_block")?.blockIdx;
        if (sub !== undefined) {
          this.#createdAt.set(sub, {
            createdAt: `block ${b.idx} op ${i} ${op.type}`,
          });
        }
      });
    }
  }
}

// A parallel_for waiting for its iterations, wherever they run.
class QueueWait extends SharedWait<void> {
  readonly #queue: number;

  constructor(queue: number, thread: GreenThread) {
    super(thread);
    this.#queue = queue;
  }

  settle(member: PoolMember): void {
    // Settled outside the lock: drop the hold the next time it is taken.
    member.atNextLock(() => dropHold(member.heap, this.#queue));
    this.resolve();
  }
}
