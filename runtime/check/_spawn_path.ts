/**
 * The question placement (placement.ts) and vet (vet.ts) both ask of a
 * spawned block: which rebinding of an outer variable may happen while its
 * threads run, on the spawning thread after the spawn or on another green
 * thread. The rule is placement's (see its module text); this module holds
 * the walk up the block path that answers it with binary searches over the
 * ProgramIndex's sorted writer lists.
 *
 * @module
 */
import type { ProgramIndex, Spawn, VarEntry } from "./_program_index.ts";

/** A rebinding that may happen while a spawned block runs. */
export interface Hazard {
  readonly cause: "after_spawn" | "goroutine";
  /** The writer's pre-order number. */
  readonly op: number;
}

/**
 * The blocks from a spawned block's parent (level 0) up towards block 0, each
 * with its via op: the op through which the spawning op is reached (at
 * level 0, that op itself). For a go, a variable declared at level m may be
 * rebound after the spawn by:
 * - any writer in the tree of the highest `while` or `parallel_for` body
 *   below level m: a later pass, or another iteration (level m itself does
 *   not count: a loop body's own variables are fresh each pass);
 * - at a level j above that, a writer in or after its via op (a later op,
 *   the via op itself, a sibling sub-block of it such as another case);
 * - at such a level, a writer in a go block spawned before the via op.
 * Writers before the via op on the same thread, `parallel_for` bodies
 * included, have finished before the spawn.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, go, increment, print, Program } from "../../mod.ts";
 * import { ProgramIndex } from "./_program_index.ts";
 * import { SpawnPath } from "./_spawn_path.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const x = fillConstant({ shape: [1], value: 1 });
 *   go(() => print(x));
 *   increment(x);
 * });
 * const index = new ProgramIndex(p.desc);
 * const [spawn] = index.spawns;
 * const [x] = spawn.reads;
 * const hazard = new SpawnPath(index, spawn, 0).hazard(x);
 * assertEquals(hazard?.cause, "after_spawn");
 * assertEquals(index.location(hazard!.op).type, "increment");
 * ```
 */
export class SpawnPath {
  readonly #index: ProgramIndex;
  readonly #spawn: Spawn;
  readonly #blocks: number[] = [];
  readonly #via: number[] = [];
  // [m]: the highest level below m whose block repeats (a while or a
  // parallel_for body), is a parallel_for body, is a go body; else -1.
  readonly #lastRepeat: number[] = [-1];
  readonly #lastParallel: number[] = [-1];
  readonly #lastGo: number[] = [-1];

  /**
   * @param index The program's index.
   * @param spawn The spawned block.
   * @param top The depth of the outermost level wanted.
   */
  constructor(index: ProgramIndex, spawn: Spawn, top: number) {
    this.#index = index;
    this.#spawn = spawn;
    let via = spawn.op;
    for (
      let b = index.parent[spawn.block];
      b >= 0 && index.depth[b] >= top;
      b = index.parent[b]
    ) {
      const j = this.#blocks.length;
      const type = index.spawnOf[b]?.type;
      const parallel = type === "parallel_for";
      this.#blocks.push(b);
      this.#via.push(via);
      this.#lastRepeat.push(
        parallel || index.isLoopBody[b] ? j : this.#lastRepeat[j],
      );
      this.#lastParallel.push(parallel ? j : this.#lastParallel[j]);
      this.#lastGo.push(type === "go" ? j : this.#lastGo[j]);
      via = index.owner[b];
    }
  }

  /**
   * A rebinding of outer variable `v` that may happen while the spawned
   * block runs, if any. Precondition: the block itself does not rebind v.
   *
   * @param v A variable declared above the spawned block.
   * @returns The hazard, or undefined.
   */
  hazard(v: VarEntry): Hazard | undefined {
    const m = this.#index.depth[this.#blocks[0]] - this.#index.depth[v.block];
    if (this.#blocks[m] !== v.block) return undefined; // not an outer variable
    return this.#spawn.type === "go"
      ? this.#afterGo(v, m)
      : this.#duringParallelFor(v, m);
  }

  // A go's block runs at any time after its op: a rebinding counts unless
  // it surely happens before the op, on the same thread.
  #afterGo(v: VarEntry, m: number): Hazard | undefined {
    const index = this.#index;
    const h = this.#lastRepeat[m];
    const repeated = h < 0 ? undefined : this.#writerIn(v, this.#blocks[h]);
    if (repeated !== undefined) return this.#classify(repeated, m);
    for (let j = h + 1; j <= m; j++) {
      const b = this.#blocks[j];
      const via = this.#via[j];
      const inner = j === 0 ? this.#spawn.block : this.#blocks[j - 1];
      const later = first(v.writers, via, index.start[inner]) ??
        first(v.writers, index.end[inner], index.end[b]);
      if (later !== undefined) return this.#classify(later, m);
      const spawned = v.goWriters.get(index.nearestGo[b]);
      const before = first(spawned, index.start[b], via);
      if (before !== undefined) return this.#inGoroutine(v, before);
    }
    return undefined;
  }

  // The spawning thread waits for the iterations, so only other threads
  // count: go blocks not enclosing the op, other iterations of an
  // enclosing parallel_for, other instances of an enclosing go in a loop.
  #duringParallelFor(v: VarEntry, m: number): Hazard | undefined {
    const index = this.#index;
    const hc = this.#concurrentLevel(m);
    const other = hc < 0 ? undefined : this.#writerIn(v, this.#blocks[hc]);
    if (other !== undefined) return { cause: "goroutine", op: other };
    for (let j = hc + 1; j <= m; j++) {
      const b = this.#blocks[j];
      const via = this.#via[j];
      const inner = j === 0 ? this.#spawn.block : this.#blocks[j - 1];
      const spawned = v.goWriters.get(index.nearestGo[b]);
      const go = first(spawned, index.start[b], via) ??
        first(spawned, via + 1, index.start[inner]) ??
        first(spawned, index.end[inner], index.end[b]);
      if (go !== undefined) return this.#inGoroutine(v, go);
    }
    return undefined;
  }

  // The highest level below m from which the spawning thread may run twice
  // at once: a parallel_for body, or a go body under a repeating block.
  #concurrentLevel(m: number): number {
    const r = this.#lastRepeat[m];
    return Math.max(this.#lastParallel[m], r < 0 ? -1 : this.#lastGo[r]);
  }

  #writerIn(v: VarEntry, block: number): number | undefined {
    const index = this.#index;
    return first(v.writers, index.start[block], index.end[block]);
  }

  #inGoroutine(v: VarEntry, goOp: number): Hazard {
    const writer = this.#index.spawnAt.get(goOp)!.writes.get(v)!;
    return { cause: "goroutine", op: writer };
  }

  // Whether writer `op`, unsafe for a go, runs on another thread: it lies
  // in a go block not enclosing the spawn, or the thread at the level
  // where the two meet may run twice at once.
  #classify(op: number, m: number): Hazard {
    const index = this.#index;
    const block = index.opBlock[op];
    const j = this.#levelOf(block);
    const goroutine =
      index.nearestGo[block] !== index.nearestGo[this.#blocks[j]] ||
      j <= this.#concurrentLevel(m);
    return { cause: goroutine ? "goroutine" : "after_spawn", op };
  }

  // The level of the deepest path block enclosing `block`. Precondition:
  // some path block encloses it.
  #levelOf(block: number): number {
    const index = this.#index;
    const top = index.depth[this.#blocks[0]];
    let b = block;
    while (index.depth[b] > top) b = index.parent[b];
    let j = top - index.depth[b];
    while (this.#blocks[j] !== b) {
      b = index.parent[b];
      j++;
    }
    return j;
  }
}

/**
 * The first number in ascending `list` within [lo, hi), by binary search.
 *
 * @param list Ascending numbers, or undefined for none.
 * @param lo The least number wanted.
 * @param hi The bound past the numbers wanted.
 * @returns The number, or undefined.
 *
 * @example Usage
 * ```ts
 * import { first } from "./_spawn_path.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(first([2, 5, 9], 3, 9), 5);
 * assertEquals(first([2, 5, 9], 6, 9), undefined);
 * ```
 */
export function first(
  list: readonly number[] | undefined,
  lo: number,
  hi: number,
): number | undefined {
  if (list === undefined || lo >= hi) return undefined;
  let a = 0;
  let b = list.length;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (list[mid] < lo) a = mid + 1;
    else b = mid;
  }
  return a < list.length && list[a] < hi ? list[a] : undefined;
}
