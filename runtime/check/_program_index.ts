/**
 * The index that placement (placement.ts) rests on: one walk over a
 * program's block tree, reached from block 0, numbering ops in pre-order
 * (an op, then its sub-blocks' ops, then the next op) and resolving every
 * name to its declaring block. Each variable keeps the sorted numbers of
 * the ops that rebind it, so "does an op in this range rebind it?" is a
 * binary search, and each `go` or `parallel_for` block the outer
 * variables its tree reads and rebinds.
 *
 * @module
 */
import {
  AttrType,
  type OpDesc,
  type ProgramDesc,
} from "../../gen/rill/v1/framework_pb.ts";
import type { NamedVariables, VarInfo } from "../core/op_def.ts";
import { opVariables } from "./op_variables.ts";
import { varKindOf } from "../core/var_info.ts";

/** Where an op sits: its block and its index there. */
export interface OpLocation {
  /** The block holding the op. */
  readonly block: number;
  /** The op's index in the block. */
  readonly index: number;
  /** The op's type. */
  readonly type: string;
}

/** A variable as one block declares it (or binds it: a go's Args). */
export interface VarEntry {
  readonly block: number;
  readonly name: string;
  readonly kind: VarInfo["kind"];
  /** Pre-order numbers of the ops that rebind it, ascending. */
  readonly writers: number[];
  /**
   * By thread (the nearest enclosing go block, -1 for the main thread):
   * the pre-order numbers of the go ops, in that thread, whose block tree
   * rebinds it, ascending.
   */
  readonly goWriters: Map<number, number[]>;
  /** Variables whose value an `assign` or a go's `Args` binds to it. */
  readonly sources: VarEntry[];
  shared: boolean;
}

/** A `go` or `parallel_for` block and the outer variables its tree uses. */
export interface Spawn {
  readonly block: number;
  /** Pre-order number of its op. */
  readonly op: number;
  readonly type: "go" | "parallel_for";
  /** The go's Args, bound per run in the block itself. */
  readonly args: VarEntry[];
  /** Outer variables read, in first-use order. */
  readonly reads: Set<VarEntry>;
  /** Outer variables rebound, each with its first writer's number. */
  readonly writes: Map<VarEntry, number>;
}

// A walk frame: a block whose ops are being numbered, its last op's number,
// and that op's sub-blocks still to enter (reversed: pop takes them in order).
interface Frame {
  readonly block: number;
  next: number;
  op: number;
  subs: number[];
}

/**
 * The block tree as reached from block 0 (each sub-block entered once, from
 * the first op naming it, if its parent_idx agrees), with ops numbered in
 * pre-order and every name resolved to its declaring block.
 *
 * Invariant: `start[b] <= n < end[b]` exactly for the numbers n of the ops in
 * block b's tree; a block entered from the op numbered p has start > p.
 */
export class ProgramIndex {
  /** Per block: parent, depth, owning op's number (-1 for none or unreached). */
  readonly parent: number[];
  readonly depth: number[];
  readonly owner: number[];
  readonly start: number[];
  readonly end: number[];
  /** Per block: the nearest go block at or above it (-1: the main thread). */
  readonly nearestGo: number[];
  readonly isLoopBody: boolean[];
  readonly spawnOf: (Spawn | undefined)[];
  /** Per block: the variables it declares or binds, if any. */
  readonly vars: (Map<string, VarEntry> | undefined)[];
  /** Every op's block and index there, by pre-order number. */
  readonly opBlock: number[] = [];
  readonly opIndex: number[] = [];
  /** Spawned blocks, in the order of their ops. */
  readonly spawns: Spawn[] = [];
  /** Spawned blocks by their op's number. */
  readonly spawnAt: Map<number, Spawn> = new Map();
  readonly #program: ProgramDesc;
  readonly #uses: (op: OpDesc) => NamedVariables;
  readonly #nearestSpawn: number[];
  readonly #scope = new Map<string, VarEntry[]>();

  /**
   * @param program The program.
   * @param uses What an op reads and rebinds: `opVariables` by default;
   * vet passes one that leaves out the ops' lists of their sub-blocks'
   * free variables, which placement counts (conservatively) as uses.
   */
  constructor(
    program: ProgramDesc,
    uses: (op: OpDesc) => NamedVariables = opVariables,
  ) {
    const n = program.blocks.length;
    this.#program = program;
    this.#uses = uses;
    this.parent = new Array(n).fill(-1);
    this.depth = new Array(n).fill(0);
    this.owner = new Array(n).fill(-1);
    this.start = new Array(n).fill(0);
    this.end = new Array(n).fill(0);
    this.nearestGo = new Array(n).fill(-1);
    this.#nearestSpawn = new Array(n).fill(-1);
    this.isLoopBody = new Array(n).fill(false);
    this.spawnOf = new Array(n).fill(undefined);
    this.vars = new Array(n).fill(undefined);
    if (n > 0) this.#walk();
    this.#indexGoWriters();
  }

  /** The op numbered `n`. */
  opDesc(n: number): OpDesc {
    return this.#program.blocks[this.opBlock[n]].ops[this.opIndex[n]];
  }

  /** Where the op numbered `n` sits. */
  location(n: number): OpLocation {
    const block = this.opBlock[n];
    const index = this.opIndex[n];
    return { block, index, type: this.#program.blocks[block].ops[index].type };
  }

  // The nearest spawned block strictly above `block`, else -1.
  #outerSpawn(block: number): number {
    const p = this.parent[block];
    return p < 0 ? -1 : this.#nearestSpawn[p];
  }

  // Iterative, so that deep nesting cannot overflow the stack.
  #walk(): void {
    this.#enter(0, -1);
    const frames: Frame[] = [{ block: 0, next: 0, op: -1, subs: [] }];
    while (frames.length > 0) {
      const f = frames[frames.length - 1];
      const sub = f.subs.pop();
      if (sub !== undefined) {
        this.#enter(sub, f.op);
        frames.push({ block: sub, next: 0, op: -1, subs: [] });
      } else if (f.next < this.#program.blocks[f.block].ops.length) {
        f.op = this.opBlock.length;
        f.subs = this.#visitOp(f.block, f.next++).reverse();
      } else {
        this.#exit(f.block);
        frames.pop();
      }
    }
  }

  #enter(b: number, ownerOp: number): void {
    const p = ownerOp < 0 ? -1 : this.opBlock[ownerOp];
    const type = ownerOp < 0 ? "" : this.opDesc(ownerOp).type;
    this.parent[b] = p;
    this.owner[b] = ownerOp;
    this.depth[b] = p < 0 ? 0 : this.depth[p] + 1;
    this.isLoopBody[b] = type === "while";
    this.nearestGo[b] = type === "go" ? b : p < 0 ? -1 : this.nearestGo[p];
    const spawned = type === "go" || type === "parallel_for";
    this.#nearestSpawn[b] = spawned ? b : p < 0 ? -1 : this.#nearestSpawn[p];
    // Args resolve in the parent's scope, before the block's own names.
    const argSources = type === "go" ? this.#argSources(ownerOp) : [];
    for (const v of this.#program.blocks[b].vars) {
      if (!this.vars[b]?.has(v.name)) this.#declare(b, v.name, varKindOf(v));
    }
    const args = argSources.map(([name, source]) => {
      const local = this.vars[b]?.get(name) ??
        this.#declare(b, name, source?.kind ?? "tensor");
      if (source !== undefined) local.sources.push(source);
      return local;
    });
    this.start[b] = this.opBlock.length;
    if (spawned) {
      const s: Spawn = {
        block: b,
        op: ownerOp,
        type: type as Spawn["type"],
        args,
        reads: new Set(),
        writes: new Map(),
      };
      this.spawnOf[b] = s;
      this.spawns.push(s);
      this.spawnAt.set(ownerOp, s);
    }
  }

  #argSources(goOp: number): [string, VarEntry | undefined][] {
    const op = this.opDesc(goOp);
    const names = op.inputs.find((v) => v.parameter === "Args")?.arguments;
    if (names === undefined || names.length === 0) return [];
    return [...new Set(names)].map((name) => [name, this.#resolve(name)]);
  }

  #declare(b: number, name: string, kind: VarInfo["kind"]): VarEntry {
    const entry: VarEntry = {
      block: b,
      name,
      kind,
      writers: [],
      goWriters: new Map(),
      sources: [],
      shared: false,
    };
    (this.vars[b] ??= new Map()).set(name, entry);
    const stack = this.#scope.get(name);
    if (stack === undefined) this.#scope.set(name, [entry]);
    else stack.push(entry);
    return entry;
  }

  #exit(b: number): void {
    this.end[b] = this.opBlock.length;
    const names = this.vars[b]?.keys() ?? [];
    for (const name of names) this.#scope.get(name)!.pop();
  }

  #resolve(name: string): VarEntry | undefined {
    const stack = this.#scope.get(name);
    return stack?.[stack.length - 1];
  }

  // Numbers op k of block b, records what it reads and rebinds, and returns
  // the sub-blocks to enter next.
  #visitOp(b: number, k: number): number[] {
    const op = this.#program.blocks[b].ops[k];
    const number = this.opBlock.length;
    this.opBlock.push(b);
    this.opIndex.push(k);
    const { reads, writes } = this.#uses(op);
    for (const name of reads) {
      const v = this.#resolve(name);
      if (v !== undefined) this.#read(b, v);
    }
    for (const name of writes) {
      const v = this.#resolve(name);
      if (v !== undefined) this.#write(b, v, number);
    }
    if (op.type === "assign") this.#bindAssign(op);
    return this.#claimSubBlocks(b, op);
  }

  // Adds v to the reads of each enclosing spawned block it is outer to. A
  // block that has it already passed it outward then, so the walk stops.
  #read(b: number, v: VarEntry): void {
    for (
      let s = this.#nearestSpawn[b];
      s >= 0 && this.depth[s] > this.depth[v.block];
      s = this.#outerSpawn(s)
    ) {
      const reads = this.spawnOf[s]!.reads;
      if (reads.has(v)) break;
      reads.add(v);
    }
  }

  #write(b: number, v: VarEntry, op: number): void {
    if (v.writers[v.writers.length - 1] !== op) v.writers.push(op);
    for (
      let s = this.#nearestSpawn[b];
      s >= 0 && this.depth[s] > this.depth[v.block];
      s = this.#outerSpawn(s)
    ) {
      const writes = this.spawnOf[s]!.writes;
      if (writes.has(v)) break;
      writes.set(v, op);
    }
  }

  // `assign` binds Out to X's value, whatever it holds: if Out's value is
  // shared, so is X's.
  #bindAssign(op: OpDesc): void {
    const x = op.inputs.find((v) => v.parameter === "X")?.arguments[0];
    const out = op.outputs.find((v) => v.parameter === "Out")?.arguments[0];
    const source = x === undefined ? undefined : this.#resolve(x);
    const target = out === undefined ? undefined : this.#resolve(out);
    if (source !== undefined && target !== undefined) {
      target.sources.push(source);
    }
  }

  // A sub-block is entered once, from the first op naming it, and only if it
  // names that op's block as parent: what the validator requires.
  #claimSubBlocks(b: number, op: OpDesc): number[] {
    const subs: number[] = [];
    for (const a of op.attrs) {
      if (a.type === AttrType.BLOCK) this.#claim(b, a.blockIdx, subs);
      if (a.type !== AttrType.BLOCKS) continue;
      for (const s of a.blocksIdx) this.#claim(b, s, subs);
    }
    return subs;
  }

  #claim(b: number, s: number, subs: number[]): void {
    const sub = this.#program.blocks[s];
    if (s <= 0 || sub === undefined || sub.parentIdx !== b) return;
    if (this.owner[s] !== -1) return; // claimed by an earlier op or case
    this.owner[s] = -2; // #enter sets the owner's number
    subs.push(s);
  }

  // A rebinding inside a go block, seen from outside it, may happen at any
  // time after its go op: record the go op, under the thread running it.
  #indexGoWriters(): void {
    for (const s of this.spawns) {
      if (s.type !== "go") continue;
      const thread = this.nearestGo[this.parent[s.block]];
      for (const v of s.writes.keys()) {
        const list = v.goWriters.get(thread);
        if (list === undefined) v.goWriters.set(thread, [s.op]);
        else list.push(s.op);
      }
    }
  }
}
