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
import { SpawnPath } from "./_spawn_path.ts";

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
