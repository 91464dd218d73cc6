/**
 * Private variables: the ones whose values no op keeps. A tensor is never
 * changed once made (docs/architecture.md §2) because anyone holding it,
 * a channel's receiver, an array, another variable, must see it as it
 * was. A variable that only ops keeping nothing of its value ever read
 * (`transient` input slots: arithmetic, comparisons, a loop's condition)
 * hands its tensors to nobody: a tensor an op made and bound to it is
 * referenced by that variable alone until the variable is rebound, so the
 * op may write its next one-element result into that tensor's storage
 * instead of making a new one (runtime/ops/scalar_path.ts).
 *
 * Invariants:
 *   A name is private only if every op of the program that names it, in
 *   any block, names it in a transient input slot (not one an output of
 *   the same op aliases) or in an output slot that rebinds it; names the
 *   op gives outside its slots (`namedVariables`) are not private.
 *   Every op naming it sits in block 0 or in a block run inline
 *   (`inlineBlocks`) by an op of such a block, so it runs on the run's
 *   main thread, never captured for another thread or worker.
 *   Names are taken by spelling, across blocks: a name declared again in a
 *   sub-block is private only if every use of either declaration is.
 *
 * @module
 */
import type { OpDesc, ProgramDesc } from "../../gen/rill/v1/framework_pb.ts";
import { readAttrs } from "../core/attr_read.ts";
import {
  type AttrSchema,
  type AttrValues,
  blockAttrNames,
  type OpDef,
} from "../core/op_def.ts";

/**
 * The names of `program`'s private variables.
 *
 * @param program A validated program.
 * @param ops The op definitions, by type.
 * @returns The private names.
 *
 * @example Usage
 * ```ts
 * import { elementwiseAdd, fillConstant, makeChannel, Program, send } from "../../mod.ts";
 * import { OPS } from "../ops/mod.ts";
 * import { privateVariables } from "./private_variables.ts";
 * import { assert } from "@std/assert";
 *
 * const program = new Program();
 * const [kept, sent] = program.guard(() => {
 *   const x = fillConstant({ shape: [1], value: 1 });
 *   const y = elementwiseAdd(x, x);
 *   send(makeChannel({ dtype: "float32", capacity: 1 }), y);
 *   return [x, y];
 * });
 * const names = privateVariables(program.desc, OPS);
 * assert(names.has(kept.name) && !names.has(sent.name));
 * ```
 */
export function privateVariables(
  program: ProgramDesc,
  ops: ReadonlyMap<string, OpDef>,
): ReadonlySet<string> {
  const seen = new Set<string>();
  const shared = new Set<string>();
  const inline = inlineBlocks(program, ops);
  const blocks = program.blocks;
  for (let b = 0; b < blocks.length; b++) {
    const list = blocks[b].ops;
    for (let i = 0; i < list.length; i++) {
      const op = list[i];
      const def = ops.get(op.type);
      // An op off the main thread, or unknown, keeps whatever it names.
      const anyOk = inline[b] && def !== undefined;
      const aliased = def === undefined ? undefined : aliasedSlot(def, op);
      for (const v of op.inputs) {
        const ok = anyOk && def.inputs[v.parameter]?.transient === true &&
          v.parameter !== aliased;
        mark(v.arguments, ok, seen, shared);
      }
      for (const v of op.outputs) {
        const ok = anyOk && def.outputs[v.parameter]?.inPlace === false;
        mark(v.arguments, ok, seen, shared);
      }
      if (def?.namedVariables !== undefined) {
        mark(namedBy(def, op), false, seen, shared);
      }
    }
  }
  for (const name of shared) seen.delete(name);
  return seen;
}

function mark(
  names: readonly string[],
  ok: boolean,
  seen: Set<string>,
  shared: Set<string>,
): void {
  for (let i = 0; i < names.length; i++) {
    seen.add(names[i]);
    if (!ok) shared.add(names[i]);
  }
}

// Whether each block runs on the main thread of the run: block 0, and the
// sub-blocks an op of such a block runs inline.
function inlineBlocks(
  program: ProgramDesc,
  ops: ReadonlyMap<string, OpDef>,
): boolean[] {
  const inline = program.blocks.map((_, b) => b === 0);
  // A sub-block comes after its parent (validation), so one pass in order
  // settles each block after its parent.
  program.blocks.forEach((block, b) => {
    if (!inline[b]) return;
    for (const op of block.ops) {
      const def = ops.get(op.type);
      if (def?.inlineBlocks !== true) continue;
      for (const sub of subBlocksOf(def, op)) {
        if (program.blocks[sub]?.parentIdx === b) inline[sub] = true;
      }
    }
  });
  return inline;
}

function subBlocksOf(def: OpDef, op: OpDesc): number[] {
  const attrs = readAttrs(def.attrs, op.attrs) as Record<string, unknown>;
  const out: number[] = [];
  for (const name of blockAttrNames(def)) {
    const value = attrs[name] as number | number[];
    if (typeof value === "number") out.push(value);
    else out.push(...value);
  }
  return out;
}

// The input slot whose value a given output of the op is bound to, if any
// (no op has two such outputs).
function aliasedSlot(def: OpDef, op: OpDesc): string | undefined {
  for (const v of op.outputs) {
    const of = def.outputs[v.parameter]?.aliasOf;
    if (of !== undefined && v.arguments.length > 0) return of;
  }
  return undefined;
}

function namedBy(def: OpDef, op: OpDesc): readonly string[] {
  if (def.namedVariables === undefined) return [];
  const attrs = readAttrs(def.attrs, op.attrs) as AttrValues<AttrSchema>;
  const named = def.namedVariables(attrs);
  return [...named.reads, ...named.writes];
}
