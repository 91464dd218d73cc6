/**
 * vet's two rules about green threads (vet.ts): `race`, two threads that
 * may rebind one outer variable at once, and `late_capture`, a go block
 * reading by reference a variable its spawner rebinds after the spawn.
 * Both ask placement's question (`SpawnPath.hazard`: which rebinding may
 * happen while a spawned block runs) of every outer variable a spawned
 * block writes or reads.
 *
 * The hazard's precondition that the block itself does not rebind the
 * variable is placement's, which asks it only of the blocks it has not
 * pinned already. For a block that does rebind it, the answer keeps its
 * meaning: the walk never looks inside the spawned block itself, except
 * through a loop or a `parallel_for` around it, whose other runs of the
 * block are indeed other threads.
 *
 * @module
 */
import type { ProgramDesc } from "../../gen/rill/v1/framework_pb.ts";
import type { ProgramIndex, Spawn, VarEntry } from "./_program_index.ts";
import { SpawnPath } from "./_spawn_path.ts";
import { type VetDraft, where } from "./_vet_draft.ts";

/**
 * The `race` and `late_capture` findings of a program.
 *
 * @param index The program's index, built with vet's op uses.
 * @param program The program.
 * @returns The findings, by spawned block.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, go, increment, Program } from "../../mod.ts";
 * import { ProgramIndex } from "./_program_index.ts";
 * import { vetThreads } from "./_vet_threads.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const x = fillConstant({ shape: [1], value: 1 });
 *   go(() => increment(x));
 *   go(() => increment(x));
 * });
 * const found = [...vetThreads(new ProgramIndex(p.desc), p.desc)];
 * assertEquals(found.map((f) => [f.rule, f.block, f.op]), [["race", 1, 0]]);
 * ```
 */
export function* vetThreads(
  index: ProgramIndex,
  program: ProgramDesc,
): Generator<VetDraft> {
  const reported = new Set<string>();
  for (const spawn of index.spawns) {
    if (spawn.writes.size === 0 && spawn.reads.size === 0) continue;
    let top = index.depth[spawn.block];
    for (const v of [...spawn.reads, ...spawn.writes.keys()]) {
      top = Math.min(top, index.depth[v.block]);
    }
    const path = new SpawnPath(index, spawn, top);
    for (const [v, writer] of spawn.writes) {
      const race = raceOf(index, program, path, spawn, v, writer);
      if (race === undefined) continue;
      const key = `${v.block}\0${v.name}\0${race.pair}`;
      if (reported.has(key)) continue;
      reported.add(key);
      yield race.draft;
    }
    if (spawn.type !== "go") continue;
    for (const v of spawn.reads) {
      if (spawn.writes.has(v)) continue; // a race, if anything
      const hazard = path.hazard(v);
      if (hazard?.cause !== "after_spawn") continue;
      const go = index.location(spawn.op);
      yield {
        rule: "late_capture",
        block: go.block,
        op: go.index,
        opType: go.type,
        variable: v.name,
        detail: `the goroutine of block ${spawn.block} reads it by ` +
          `reference, and ${
            where(index.location(hazard.op))
          } rebinds it after the ` +
          "spawn: pass it in the go's Args to copy it",
      };
    }
  }
}

/** A race found from one spawned block, and the two writers' numbers. */
interface Race {
  readonly draft: VetDraft;
  /** The two writers' pre-order numbers, smaller first. */
  readonly pair: string;
}

function raceOf(
  index: ProgramIndex,
  program: ProgramDesc,
  path: SpawnPath,
  spawn: Spawn,
  v: VarEntry,
  writer: number,
): Race | undefined {
  const at = index.location(writer);
  const draft = (detail: string): VetDraft => ({
    rule: "race",
    block: at.block,
    op: at.index,
    opType: at.type,
    variable: v.name,
    detail: `data race: ${detail}`,
  });
  const spawner = where(index.location(spawn.op));
  if (spawn.type === "parallel_for" && iterations(program, index, spawn) > 1) {
    return {
      draft: draft(
        `every iteration of the parallel_for at ${spawner} rebinds it`,
      ),
      pair: `${writer}\0${writer}`,
    };
  }
  const hazard = path.hazard(v);
  if (hazard === undefined) return undefined;
  const other = where(index.location(hazard.op));
  const who = spawn.type === "go"
    ? `the goroutine of block ${spawn.block} (${spawner})`
    : `the parallel_for's iterations (${spawner})`;
  const when = hazard.cause === "after_spawn"
    ? "after the spawn"
    : "on another green thread";
  const [a, b] = [writer, hazard.op].sort((x, y) => x - y);
  return {
    draft: draft(`${who} rebinds it, and so may ${other}, ${when}`),
    pair: `${a}\0${b}`,
  };
}

// How many iterations a parallel_for runs: its `num`, or more than one when
// a Num input decides at run time.
function iterations(
  program: ProgramDesc,
  index: ProgramIndex,
  spawn: Spawn,
): number {
  const { block, index: i } = index.location(spawn.op);
  const op = program.blocks[block].ops[i];
  if (op.inputs.some((s) => s.parameter === "Num" && s.arguments.length > 0)) {
    return Infinity;
  }
  const num = op.attrs.find((a) => a.name === "num");
  return num === undefined ? Infinity : Number(num.i || num.l);
}
