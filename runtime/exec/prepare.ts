/**
 * Prepares a validated program for running, once per block per run: each
 * op's attributes are read, its variables resolved to (depth, slot) and its
 * run function built. A `while` pass or a `go` block reuses its prepared
 * block; nothing is cached across runs, since a builder's program may
 * change between them.
 *
 * @module
 */
import type {
  BlockDesc,
  OpDesc,
  OpDesc_Var,
  ProgramDesc,
} from "../../gen/rill/v1/framework_pb.ts";
import { readAttrs } from "../core/attr_read.ts";
import { InternalError } from "../core/errors.ts";
import {
  type AttrValues,
  blockAttrNames,
  type OpDef,
  type VarInfo,
} from "../core/op_def.ts";
import type { PrepareContext } from "../core/prepare_context.ts";
import type { PreparedBlock, PreparedOp } from "../core/prepared_block.ts";
import { BlockLayout } from "../core/scope.ts";
import { varInfoOf } from "../core/var_info.ts";
import { VarRef } from "../core/var_ref.ts";
import { privateVariables } from "./private_variables.ts";
import { tracedOp } from "./traced_op.ts";
import { scheduledOp } from "./scheduled_op.ts";

/**
 * A program whose blocks are prepared on first use, with the op
 * definitions of a registry (`OPS`, from `runtime/ops/`: the ops use the
 * block runner, so the runner's stage takes their table as an argument).
 *
 * @example Usage
 * ```ts
 * import { Program } from "../build/program.ts";
 * import { OPS } from "../ops/mod.ts";
 * import { PreparedProgram } from "./prepare.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const program = new Program();
 * const block = new PreparedProgram(program.desc, OPS).block(0);
 * assertEquals(block.ops.length, 0);
 * ```
 */
export class PreparedProgram {
  /** The program. */
  readonly desc: ProgramDesc;
  readonly #ops: ReadonlyMap<string, OpDef>;
  readonly #blocks: (PreparedBlock | undefined)[] = [];
  readonly #layouts: (BlockLayout | undefined)[] = [];
  readonly #traced: boolean;
  #private: ReadonlySet<string> | undefined;
  readonly #scheduled: boolean;

  /**
   * Wraps a validated program.
   *
   * @param desc The program.
   * @param ops The op definitions, by type (validated against).
   * @param traced Whether its ops tell a run's tracer what they do
   * (traced_op.ts); an untraced program's ops are the ops' own functions.
   * @param scheduled Whether its channel ops pass a run's schedule gate
   * (scheduled_op.ts: `--record`, `--replay`).
   */
  constructor(
    desc: ProgramDesc,
    ops: ReadonlyMap<string, OpDef>,
    traced = false,
    scheduled = false,
  ) {
    this.desc = desc;
    this.#ops = ops;
    this.#traced = traced;
    this.#scheduled = scheduled;
  }

  /**
   * The prepared block `idx`.
   *
   * @param idx A block index.
   * @param locals Per-run variables the block does not declare.
   * @returns The prepared block.
   */
  block(idx: number, locals: readonly string[] = []): PreparedBlock {
    const cached = this.#blocks[idx];
    if (cached !== undefined) {
      // Validation gives every sub-block one op, so one set of locals.
      if (cached.layout.names.length < locals.length) {
        throw new InternalError(
          `block ${idx} prepared twice with other locals`,
        );
      }
      return cached;
    }
    const desc = this.#blockDesc(idx);
    // The block's own ops resolve names through this layout, so the extra
    // locals must be in place before any of them is prepared.
    const layout = this.#layouts[idx] ??= new BlockLayout(desc, locals);
    const ops = desc.ops.map((op, i) => this.#prepareOp(desc, op, i));
    const block: PreparedBlock = {
      idx,
      layout,
      ops,
      keepsScope: ops.some((op) => this.#keepsScope(op)),
    };
    this.#blocks[idx] = block;
    return block;
  }

  /**
   * The variable layout of block `idx`.
   *
   * @param idx A block index.
   * @returns Its layout.
   */
  layout(idx: number): BlockLayout {
    return this.#layouts[idx] ??= new BlockLayout(this.#blockDesc(idx));
  }

  /**
   * Resolves a variable name as seen from block `idx`.
   *
   * @param idx The block the name is used in.
   * @param name The variable.
   * @returns The resolved reference.
   */
  resolve(idx: number, name: string): VarRef {
    let depth = 0;
    for (let b = idx; b >= 0; b = this.#blockDesc(b).parentIdx, depth++) {
      const slot = this.layout(b).slotOf(name);
      if (slot !== undefined) {
        return new VarRef(this.#infoOf(b, name), depth, slot);
      }
      if (b === 0) break;
    }
    throw new InternalError(`variable "${name}" unresolved in block ${idx}`);
  }

  // A bound local that the block does not declare takes its declaration
  // from the nearest ancestor that does.
  #infoOf(idx: number, name: string): VarInfo {
    for (let b = idx; b >= 0; b = this.#blockDesc(b).parentIdx) {
      const decl = this.layout(b).declarationOf(name);
      if (decl !== undefined) return varInfoOf(decl);
      if (b === 0) break;
    }
    return { name, kind: "tensor" };
  }

  // Whether `op` may leave its scope to someone after it completes: it
  // runs a sub-block, and not inline (a goroutine captures the scope as its
  // parent), or runs one inline that may leave its own scope so.
  #keepsScope(op: PreparedOp): boolean {
    const names = blockAttrNames(op.def);
    if (names.length === 0) return false;
    if (op.def.inlineBlocks !== true) return true;
    const attrs = readAttrs(op.def.attrs, op.desc.attrs);
    for (const name of names) {
      const value = attrs[name] as number | number[];
      for (const sub of typeof value === "number" ? [value] : value) {
        if (this.block(sub).keepsScope) return true;
      }
    }
    return false;
  }

  #privateNames(): ReadonlySet<string> {
    return this.#private ??= privateVariables(this.desc, this.#ops);
  }

  #blockDesc(idx: number): BlockDesc {
    const b = this.desc.blocks[idx];
    if (b === undefined) throw new InternalError(`no block ${idx}`);
    return b;
  }

  #prepareOp(block: BlockDesc, op: OpDesc, i: number): PreparedOp {
    const def = this.#ops.get(op.type);
    if (def === undefined) throw new InternalError(`unknown op "${op.type}"`);
    const location = `block ${block.idx} op ${i} ${op.type}`;
    const refs = (vars: OpDesc_Var[], slot: string): VarRef[] =>
      (vars.find((v) => v.parameter === slot)?.arguments ?? []).map((name) =>
        this.resolve(block.idx, name)
      );
    const first = (vars: OpDesc_Var[], slot: string): VarRef => {
      const r = refs(vars, slot)[0];
      if (r === undefined) throw new InternalError(`${location}: no ${slot}`);
      return r;
    };
    const ctx: PrepareContext = {
      attrs: readAttrs(def.attrs, op.attrs) as AttrValues<typeof def.attrs>,
      location,
      input: (slot) => first(op.inputs, slot),
      optionalInput: (slot) => refs(op.inputs, slot)[0],
      inputList: (slot) => refs(op.inputs, slot),
      output: (slot) => first(op.outputs, slot),
      optionalOutput: (slot) => refs(op.outputs, slot)[0],
      outputList: (slot) => refs(op.outputs, slot),
      privateOutput: (slot) => {
        const name = op.outputs.find((v) => v.parameter === slot)
          ?.arguments[0];
        return name !== undefined && this.#privateNames().has(name);
      },
      resolve: (name) => this.resolve(block.idx, name),
      block: (idx, locals) => this.block(idx, locals),
    };
    const inputs = Object.keys(def.inputs).map((slot) =>
      [slot, refs(op.inputs, slot)] as const
    );
    const prepared = (def as OpDef).prepare(ctx);
    const own = typeof prepared === "function"
      ? { run: prepared, resume: undefined }
      : prepared;
    const plain = this.#scheduled
      ? scheduledOp(own, op.type, {
        block: block.idx,
        op: i,
        channel: refs(op.inputs, "Channel")[0],
        out: op.type === "channel_create"
          ? refs(op.outputs, "Out")[0]
          : undefined,
      })
      : own;
    const { run, resume } = this.#traced
      ? tracedOp(plain, op.type, block.idx, i)
      : plain;
    return {
      run,
      resume,
      location,
      def,
      desc: op,
      inputs,
    };
  }
}
