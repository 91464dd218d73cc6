/**
 * Where green threads may run (docs/architecture.md §6, "Placement"). A JS continuation
 * cannot move between Web Workers, so a `go` or `parallel_for` block is
 * placed once, when its thread is spawned: on the spawner's worker
 * (pinned) or on any worker (movable). Moving must never change what the
 * program means, so the rule is decided statically, once per block:
 *
 * - A block that rebinds an outer variable is pinned ("written by the
 *   block"): the spawner's scope would never see the write.
 * - A go's `Args` never pin: they are copied at spawn whatever happens.
 * - An outer variable the block reads pins it when some op outside the
 *   block may rebind it after the spawn: one in another goroutine, or one
 *   the spawning thread runs later (a later op, a later loop pass, another
 *   select case). A `parallel_for` ignores its own thread's later ops: it
 *   waits for all its iterations.
 * - Storing into a tensor array or using a channel is not a rebinding; a
 *   movable block shares those objects instead. They, and every variable
 *   they reach it through (`assign` chains, a go's `Args`), are shared.
 *
 * Three points make the rule precise where "loops and other goroutines
 * pin" would not be: a variable declared by a loop body is fresh each pass,
 * so only a loop body strictly below the variable's block re-runs a write
 * to it; a `parallel_for` that returned before the spawn has finished its
 * iterations' writes; and the iterations of an enclosing `parallel_for`,
 * like the instances of a go spawned in a loop, are other goroutines to
 * each other. Writes that `opVariables` reports for an op holding the spawn
 * in a sub-block (a `conditional_block`'s `Out`, a select's receive) count
 * as coming after it, as do writes in a sibling sub-block.
 *
 * The analysis walks the program once, numbering ops in pre-order (an op,
 * then its sub-blocks' ops, then the next op), so "the ops before op o of
 * block b, with their sub-blocks" is one range of numbers. Each variable
 * keeps the sorted numbers of the ops that rebind it; each question
 * "does an op in this range rebind it?" is a binary search.
 *
 * @module
 */
import type { ProgramDesc } from "../../gen/rill/v1/framework_pb.ts";
import {
  type OpLocation,
  ProgramIndex,
  type Spawn,
  type VarEntry,
} from "./_program_index.ts";

export type { OpLocation };

/** Why a block must run on its spawner's worker. */
export interface PinnedBy {
  /** The outer variable, as the block names it. */
  readonly variable: string;
  /**
   * `block`: the block rebinds it; `after_spawn`: the spawning thread may
   * rebind it once the block runs; `goroutine`: another green thread may.
   */
  readonly cause: "block" | "after_spawn" | "goroutine";
  /** An op that rebinds it (for `block`, the block's first such op). */
  readonly writer: OpLocation;
  /** The cause in words, as `dump` prints it. */
  readonly reason: string;
}

/** The placement of one `go` or `parallel_for` block. */
export interface BlockPlacement {
  /** The block. */
  readonly block: number;
  /** The op that spawns it. */
  readonly op: OpLocation & { readonly type: "go" | "parallel_for" };
  /** Whether its threads may run on another worker. */
  readonly movable: boolean;
  /** Why not, when it is pinned. */
  readonly pinnedBy?: PinnedBy;
  /**
   * When movable: the go's `Args` and the outer variables the block reads
   * whose values a move copies (tensors, RAW values), first use order;
   * empty when pinned.
   */
  readonly copied: readonly string[];
  /**
   * When movable: the `Args` and outer variables it reads that hold
   * channels or tensor arrays, which become shared objects; empty when
   * pinned.
   */
  readonly shared: readonly string[];
}

/** The placement of every `go` and `parallel_for` block of a program. */
export interface ProgramPlacement {
  /** Each spawned block's placement, by block index. */
  readonly blocks: ReadonlyMap<number, BlockPlacement>;
  /**
   * Whether the channel or tensor array a variable holds may be reached
   * from two workers, so it must live in shared memory.
   *
   * @param block The block declaring the variable (for a go's `Args`, the
   * go block, which binds them per run).
   * @param name The variable.
   * @returns True when shared.
   */
  isShared(block: number, name: string): boolean;
  /**
   * Whether an op binds a variable that `isShared`: a `channel_create`,
   * `create_array` or `split_to_array` whose result must be made in
   * shared memory.
   *
   * @param block The op's block.
   * @param opIndex The op's index there.
   * @returns True when what it binds must be shared.
   */
  sharesOutput(block: number, opIndex: number): boolean;
}

/**
 * Decides, for each `go` and `parallel_for` block of a program, whether
 * its threads may run on another worker, and which channels and tensor
 * arrays must therefore be shared. Linear in the program's size, plus a
 * binary search per (spawned block, outer variable it reads, enclosing
 * block level). Blocks no op runs are not placed.
 *
 * @param program The program; it should validate.
 * @returns The placement.
 * @throws {RangeError} When an op's attributes cannot be read (a program
 * that does not validate).
 *
 * @example Usage
 * ```ts
 * import { fillConstant, go, increment, makeChannel, Program, send } from "../../mod.ts";
 * import { placeProgram } from "./placement.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const ch = makeChannel({ name: "ch", capacity: 2 });
 *   const x = fillConstant({ shape: [1], value: 1 });
 *   go(() => send(ch, x)); // block 1: x is rebound after this spawn
 *   increment(x);
 *   go(() => send(ch, x)); // block 2: nothing rebinds x after this one
 * });
 * const placement = placeProgram(p.desc);
 * assertEquals(
 *   placement.blocks.get(1)?.pinnedBy?.reason,
 *   "written after the spawn by block 0 op 3 (increment)",
 * );
 * const moved = placement.blocks.get(2);
 * assertEquals([moved?.movable, moved?.shared], [true, ["ch"]]);
 * assertEquals(placement.isShared(0, "ch"), true);
 * assertEquals(placement.sharesOutput(0, 0), true); // the channel_create
 * ```
 */
export function placeProgram(program: ProgramDesc): ProgramPlacement {
  const index = new ProgramIndex(program);
  const decided = index.spawns.map((s) => decide(index, s));
  markShared(decided);
  const blocks = new Map<number, BlockPlacement>();
  for (const d of decided) blocks.set(d.spawn.block, placementOf(index, d));
  const sharedOps = sharedWriters(index);
  return {
    blocks,
    isShared: (block, name) => index.vars[block]?.get(name)?.shared ?? false,
    sharesOutput: (block, opIndex) =>
      sharedOps.get(block)?.has(opIndex) ?? false,
  };
}

// ---- The rule ---------------------------------------------------------------

/** A spawned block and, when it is pinned, why. */
interface Decision {
  readonly spawn: Spawn;
  readonly pinnedBy?: PinnedBy;
}

/** A rebinding that may happen while a spawned block runs. */
interface Hazard {
  readonly cause: "after_spawn" | "goroutine";
  /** The writer's pre-order number. */
  readonly op: number;
}

function decide(index: ProgramIndex, spawn: Spawn): Decision {
  for (const [v, op] of spawn.writes) {
    return { spawn, pinnedBy: pin(v, "block", index.location(op)) };
  }
  if (spawn.reads.size === 0) return { spawn };
  // The path need not go above the outermost block the reads resolve to.
  let top = index.depth[spawn.block];
  for (const v of spawn.reads) top = Math.min(top, index.depth[v.block]);
  const path = new SpawnPath(index, spawn, top);
  for (const v of spawn.reads) {
    const hazard = path.hazard(v);
    if (hazard !== undefined) {
      return {
        spawn,
        pinnedBy: pin(v, hazard.cause, index.location(hazard.op)),
      };
    }
  }
  return { spawn };
}

function pin(v: VarEntry, cause: PinnedBy["cause"], at: OpLocation): PinnedBy {
  const where = `block ${at.block} op ${at.index} (${at.type})`;
  const reason = cause === "block"
    ? "written by the block"
    : cause === "after_spawn"
    ? `written after the spawn by ${where}`
    : `written by another goroutine at ${where}`;
  return { variable: v.name, cause, writer: at, reason };
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
 */
class SpawnPath {
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

// The first number in ascending `list` within [lo, hi), if any.
function first(
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

// ---- Shared objects ---------------------------------------------------------

// By block, the indices of the ops that bind a shared variable.
function sharedWriters(index: ProgramIndex): Map<number, Set<number>> {
  const ops = new Map<number, Set<number>>();
  for (const vars of index.vars) {
    for (const v of vars?.values() ?? []) {
      if (!v.shared) continue;
      for (const n of v.writers) {
        const block = index.opBlock[n];
        let set = ops.get(block);
        if (set === undefined) ops.set(block, set = new Set());
        set.add(index.opIndex[n]);
      }
    }
  }
  return ops;
}

function holdsObject(v: VarEntry): boolean {
  return v.kind === "channel" || v.kind === "array";
}

// Marks the channels and arrays movable blocks reach, then every variable
// whose value flows into one of them (assign sources, a go's Args).
function markShared(decided: readonly Decision[]): void {
  const work: VarEntry[] = [];
  const mark = (v: VarEntry) => {
    if (v.shared) return;
    v.shared = true;
    work.push(v);
  };
  for (const { spawn, pinnedBy } of decided) {
    if (pinnedBy !== undefined) continue;
    for (const v of spawn.args) if (holdsObject(v)) mark(v);
    for (const v of spawn.reads) if (holdsObject(v)) mark(v);
  }
  for (let v = work.pop(); v !== undefined; v = work.pop()) {
    v.sources.forEach(mark);
  }
}

function placementOf(index: ProgramIndex, d: Decision): BlockPlacement {
  const { spawn, pinnedBy } = d;
  const op = { ...index.location(spawn.op), type: spawn.type };
  if (pinnedBy !== undefined) {
    return {
      block: spawn.block,
      op,
      movable: false,
      pinnedBy,
      copied: [],
      shared: [],
    };
  }
  const crossing = [...spawn.args, ...spawn.reads];
  return {
    block: spawn.block,
    op,
    movable: true,
    copied: crossing.filter((v) => !holdsObject(v)).map((v) => v.name),
    shared: crossing.filter(holdsObject).map((v) => v.name),
  };
}
