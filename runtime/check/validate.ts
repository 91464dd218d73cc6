/**
 * Validation before anything runs (docs/architecture.md §5): every block index and
 * parent right, every op registered (all unknown op types are named at
 * once, with their counts), every slot known (or empty, as Paddle writes
 * the dispensable slots it does not use) and filled, every
 * variable declared in the op's block or an ancestor and of the kind its
 * slot takes, every attribute of the right type, every sub-block a child of
 * the op's block, and every shape mismatch that is known statically.
 *
 * Ops are checked in the order they run, each sub-block at the op that runs
 * it, and an op's shape rule sees its inputs as the ops before it made them:
 * a variable's declared dims (-1 where unknown) stand only until an op
 * writes it.
 *
 * @module
 */
import type {
  BlockDesc,
  OpDesc,
  OpDesc_Var,
  ProgramDesc,
} from "../../gen/rill/v1/framework_pb.ts";
import { AttrError, readAttrs } from "../core/attr_read.ts";
import { ProgramError, type ProgramErrorWhere } from "../core/errors.ts";
import { type UnknownOp, UnknownOpsError } from "./unknown_ops_error.ts";
import {
  blockAttrNames,
  type CheckContext,
  type InferContext,
  type InferredType,
  type OpDef,
  type SlotSpec,
  type VarInfo,
} from "../core/op_def.ts";
import { OPS } from "../ops/mod.ts";
import {
  checkDeclaredElementType,
  checkDeclaredShape,
  Declared,
} from "./declared_var.ts";

/** Options of `validateProgram`. */
export interface ValidateOptions {
  /** The file the program came from, named in errors. */
  file?: string;
  /** The op registry. @default {OPS} */
  registry?: ReadonlyMap<string, OpDef>;
}

/**
 * Checks a program; throws a `ProgramError` naming the first problem. Op
 * types the registry lacks are checked first, all at once: more than one
 * such op is an `UnknownOpsError` listing every type with its count.
 *
 * @param program The program.
 * @param options Where it came from; which registry.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { validateProgram } from "./validate.ts";
 * import { assertThrows } from "@std/assert";
 *
 * const program = create(ProgramDescSchema, {
 *   blocks: [{ idx: 0, parentIdx: -1, ops: [{ type: "no_such_op" }] }],
 * });
 * assertThrows(() => validateProgram(program), Error, 'unknown op "no_such_op"');
 * ```
 *
 * @example Every unknown op type, counted
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { validateProgram } from "./validate.ts";
 * import { assertThrows } from "@std/assert";
 *
 * const ops = ["yolo_box", "relu", "roi_align", "yolo_box"].map((type) => ({ type }));
 * const program = create(ProgramDescSchema, { blocks: [{ idx: 0, parentIdx: -1, ops }] });
 * assertThrows(() => validateProgram(program), Error, "unknown ops: yolo_box ×2, roi_align ×1");
 * ```
 */
export function validateProgram(
  program: ProgramDesc,
  options: ValidateOptions = {},
): void {
  new Validator(program, options).run();
}

/** One side's slots of an op type, compiled for lookups by decoded names. */
interface SlotTable {
  /** `input` or `output`, for messages. */
  readonly side: "input" | "output";
  // Slot names in a decoded program are fresh strings; a Map finds them by
  // their cached hash, where an object property lookup would first intern.
  readonly specs: ReadonlyMap<string, SlotSpec>;
  /** The slots that must name a variable. */
  readonly required: readonly string[];
  /** `input "X"`, made once per slot. */
  readonly at: ReadonlyMap<string, string>;
}

/** What validation needs of an op type, compiled once per `OpDef`. */
interface OpTables {
  readonly inputs: SlotTable;
  readonly outputs: SlotTable;
  /** The BLOCK and BLOCKS attributes. */
  readonly blockAttrs: readonly string[];
}

function slotTable(
  side: "input" | "output",
  specs: Readonly<Record<string, SlotSpec>>,
): SlotTable {
  const entries = Object.entries(specs);
  return {
    side,
    specs: new Map(entries),
    required: entries.filter(([, spec]) => !spec.optional).map(([n]) => n),
    at: new Map(entries.map(([n]) => [n, `${side} "${n}"`])),
  };
}

const TABLES = new WeakMap<OpDef, OpTables>();

function tablesOf(def: OpDef): OpTables {
  let tables = TABLES.get(def);
  if (tables === undefined) {
    tables = {
      inputs: slotTable("input", def.inputs),
      outputs: slotTable("output", def.outputs),
      blockAttrs: blockAttrNames(def),
    };
    TABLES.set(def, tables);
  }
  return tables;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The variables an op names in `slot`, or `undefined`. */
function argumentsOf(
  vars: readonly OpDesc_Var[],
  slot: string,
): readonly string[] | undefined {
  for (let i = 0; i < vars.length; i++) {
    if (vars[i].parameter === slot) return vars[i].arguments;
  }
  return undefined;
}

// Validation allocates little on purpose: a decoded program is young
// garbage-collected data, and every scavenge that garbage from here
// triggers copies the whole program tree again.
class Validator {
  readonly #program: ProgramDesc;
  readonly #file: string | undefined;
  readonly #registry: ReadonlyMap<string, OpDef>;
  // Each block's declarations by name.
  readonly #declared: Map<string, Declared>[] = [];
  // Each sub-block's op, as `block B op I (type)`.
  readonly #owners = new Map<number, string>();
  // The op being checked, named in errors and seen by its check and infer.
  #block = 0;
  #opIndex = 0;
  #opType = "";
  #op: OpDesc | undefined;
  // What an op's `check` and `infer` see: one object, moved along with the
  // op being checked.
  readonly #context: CheckContext & Mutable<InferContext>;

  constructor(program: ProgramDesc, options: ValidateOptions) {
    this.#program = program;
    this.#file = options.file;
    this.#registry = options.registry ?? OPS;
    this.#context = {
      lookup: (name) => this.#lookup(this.#block, name),
      declaredIn: (block, name) => this.#declared[block]?.get(name)?.declared,
      blockCount: program.blocks.length,
      hasInput: (slot) =>
        (argumentsOf(this.#op!.inputs, slot)?.length ?? 0) > 0,
      inputs: (slot) => this.#slotInfos(this.#op!.inputs, slot),
      attrs: {},
    };
  }

  run(): void {
    const blocks = this.#program.blocks;
    if (blocks.length === 0) this.#fail("the program has no blocks", {});
    blocks.forEach((b, i) => this.#checkBlock(b, i));
    this.#checkOpsKnown();
    // In the order the ops run, each sub-block at its op, so that an op sees
    // the shapes the ops before it made; blocks no op runs come last.
    const visited = new Array<boolean>(blocks.length).fill(false);
    for (let b = 0; b < blocks.length; b++) {
      if (!visited[b]) this.#checkOps(b, visited);
    }
  }

  #checkOps(b: number, visited: boolean[]): void {
    visited[b] = true;
    const block = this.#program.blocks[b];
    for (let i = 0; i < block.ops.length; i++) {
      const subBlocks = this.#checkOp(block, i);
      if (subBlocks === undefined) continue;
      for (const sub of subBlocks) {
        if (!visited[sub]) this.#checkOps(sub, visited);
      }
    }
  }

  #fail(detail: string, where: ProgramErrorWhere): never {
    throw new ProgramError(detail, { file: this.#file, ...where });
  }

  #failOp(
    detail: string,
    about: Pick<ProgramErrorWhere, "slot" | "variable" | "attr"> = {},
  ): never {
    this.#fail(detail, {
      block: this.#block,
      op: this.#opIndex,
      opType: this.#opType,
      ...about,
    });
  }

  // Real programs often use several ops Rill lacks: name them all at once,
  // before any one op's details.
  #checkOpsKnown(): void {
    const unknown = new Map<string, Mutable<UnknownOp>>();
    const blocks = this.#program.blocks;
    for (let b = 0; b < blocks.length; b++) {
      const ops = blocks[b].ops;
      for (let i = 0; i < ops.length; i++) {
        const type = ops[i].type;
        if (this.#registry.has(type)) continue;
        const seen = unknown.get(type);
        if (seen !== undefined) seen.count++;
        else unknown.set(type, { type, count: 1, block: b, op: i });
      }
    }
    if (unknown.size === 0) return;
    const [first] = unknown.values();
    if (unknown.size === 1 && first.count === 1) {
      this.#fail(`unknown op "${first.type}"`, {
        block: first.block,
        op: first.op,
        opType: first.type,
      });
    }
    const where = this.#file === undefined ? {} : { file: this.#file };
    throw new UnknownOpsError([...unknown.values()], where);
  }

  #checkBlock(block: BlockDesc, i: number): void {
    if (block.idx !== i) {
      this.#fail(`block at position ${i} says idx ${block.idx}`, { block: i });
    }
    // Sub-blocks are made after their parents, so a parent index is smaller;
    // this also rules out cycles in the parent chain.
    if (i > 0 && (block.parentIdx < 0 || block.parentIdx >= i)) {
      this.#fail(`parent_idx ${block.parentIdx} is not an earlier block`, {
        block: i,
      });
    }
    const vars = new Map<string, Declared>();
    for (const v of block.vars) {
      if (v.name === "") {
        this.#fail("a variable has an empty name", { block: i });
      }
      // One hash lookup: a name already there leaves the size as it was.
      const size = vars.size;
      vars.set(v.name, new Declared(v));
      if (vars.size === size) {
        this.#fail(`variable "${v.name}" is declared twice`, { block: i });
      }
    }
    this.#declared.push(vars);
  }

  #lookupDeclared(block: number, name: string): Declared | undefined {
    for (let b = block; b >= 0; b = this.#program.blocks[b].parentIdx) {
      const declared = this.#declared[b].get(name);
      if (declared !== undefined) return declared;
      if (b === 0) break;
    }
    return undefined;
  }

  #lookup(block: number, name: string): VarInfo | undefined {
    return this.#lookupDeclared(block, name)?.infos[0];
  }

  // The infos of the variables an op names in a slot; the op's variables
  // are all declared (checked before its shape rule runs).
  #slotInfos(vars: readonly OpDesc_Var[], slot: string): readonly VarInfo[] {
    const names = argumentsOf(vars, slot);
    if (names === undefined) return [];
    if (names.length === 1) return this.#declaredInfos(names[0]);
    return names.map((name) => this.#declaredInfos(name)[0]);
  }

  #declaredInfos(name: string): readonly [VarInfo] {
    return this.#lookupDeclared(this.#block, name)!.infos;
  }

  // Checks one op and records what it writes; returns its sub-blocks.
  #checkOp(block: BlockDesc, i: number): readonly number[] | undefined {
    const op = block.ops[i];
    this.#block = block.idx;
    this.#opIndex = i;
    this.#opType = op.type;
    this.#op = op;
    const def = this.#registry.get(op.type);
    if (def === undefined) this.#failOp(`unknown op "${op.type}"`);
    const tables = tablesOf(def);
    this.#checkSlots(block, op.inputs, tables.inputs);
    this.#checkSlots(block, op.outputs, tables.outputs);
    let attrs: Record<string, unknown>;
    try {
      attrs = readAttrs(def.attrs, op.attrs);
    } catch (e) {
      if (e instanceof AttrError) this.#failOp(e.message, { attr: e.attr });
      throw e;
    }
    const subBlocks = this.#checkBlockAttrs(block, tables.blockAttrs, attrs);
    this.#context.attrs = attrs as InferContext["attrs"];
    try {
      def.check?.(attrs as never, this.#context);
      this.#checkWrites(op, def, def.infer?.(this.#context));
    } catch (e) {
      if (e instanceof ProgramError) throw e;
      if (e instanceof AttrError) this.#failOp(e.message, { attr: e.attr });
      this.#failOp((e as Error).message);
    }
    const named = def.namedVariables?.(attrs as never).writes ?? [];
    for (const name of named) {
      this.#lookupDeclared(block.idx, name)?.wrote(undefined);
    }
    return subBlocks;
  }

  // The op's shape rule ran on the types its inputs have now and threw on
  // any mismatch it could see; each output must fit its declaration, and
  // reads after the op see what the rule made.
  #checkWrites(
    op: OpDesc,
    def: OpDef,
    inferred: Readonly<Record<string, InferredType | readonly InferredType[]>> =
      {},
  ): void {
    const outputs = op.outputs;
    for (let k = 0; k < outputs.length; k++) {
      const slot = outputs[k].parameter;
      // An in-place output stores into the object the variable holds.
      // A slot the op lacks names nothing (checked in #checkSlots).
      if (def.outputs[slot]?.inPlace ?? true) continue;
      const types = inferred[slot];
      const names = outputs[k].arguments;
      for (let i = 0; i < names.length; i++) {
        const made = Array.isArray(types)
          ? types[i] as InferredType | undefined
          : i === 0
          ? types as InferredType | undefined
          : undefined;
        const declared = this.#lookupDeclared(this.#block, names[i])!;
        checkDeclaredShape(slot, declared.declared, made?.shape);
        if (declared.kind === "channel") {
          checkDeclaredElementType(slot, declared.declared, made?.dtype);
        }
        declared.wrote(made);
      }
    }
  }

  #checkSlots(
    block: BlockDesc,
    given: readonly OpDesc_Var[],
    table: SlotTable,
  ): void {
    for (let k = 0; k < given.length; k++) {
      const v = given[k];
      const slot = v.parameter;
      const spec = table.specs.get(slot);
      if (spec === undefined) {
        // Paddle writes every dispensable slot of an op, empty when it is
        // not used (a Fluid 1.x `scale` has `ScaleTensor=[]`): a slot the
        // op lacks is accepted while it names no variable.
        if (v.arguments.length === 0) continue;
        this.#failOp(`unknown ${table.side} slot "${slot}"`, { slot });
      }
      const at = table.at.get(slot)!;
      for (let j = 0; j < k; j++) {
        if (given[j].parameter === slot) {
          this.#failOp(`${at} is given twice`, { slot });
        }
      }
      if (!spec.duplicable && v.arguments.length > 1) {
        this.#failOp(`${at} takes one variable, got ${v.arguments.length}`, {
          slot,
        });
      }
      for (const name of v.arguments) {
        this.#checkVar(block, name, spec, slot, at);
      }
    }
    for (const slot of table.required) {
      if ((argumentsOf(given, slot)?.length ?? 0) === 0) {
        this.#failOp(`${table.side} "${slot}" is required`, { slot });
      }
    }
  }

  #checkVar(
    block: BlockDesc,
    name: string,
    spec: SlotSpec,
    slot: string,
    at: string,
  ): void {
    const declared = this.#lookupDeclared(block.idx, name);
    if (declared === undefined) {
      this.#failOp(
        `${at}: variable "${name}" is not declared in block ${block.idx} or its ancestors`,
        { slot, variable: name },
      );
    }
    const kind = declared.kind;
    if (spec.kind !== "any" && kind !== spec.kind) {
      this.#failOp(
        `${at}: variable "${name}" is a ${kind}, not a ${spec.kind}`,
        { slot, variable: name },
      );
    }
  }

  #checkBlockAttrs(
    block: BlockDesc,
    blockAttrs: readonly string[],
    attrs: Record<string, unknown>,
  ): number[] | undefined {
    let subBlocks: number[] | undefined;
    for (const name of blockAttrs) {
      const value = attrs[name];
      const indices = typeof value === "number" ? [value] : (value as number[]);
      for (const idx of indices) {
        const sub = this.#program.blocks[idx];
        if (sub === undefined) {
          this.#failOp(`attribute "${name}": block ${idx} does not exist`, {
            attr: name,
          });
        }
        if (idx === 0 || sub.parentIdx !== block.idx) {
          this.#failOp(
            `attribute "${name}": block ${idx} is not a child of block ${block.idx}`,
            { attr: name },
          );
        }
        // A block runs for one op: its per-run locals (a go op's Args) and
        // its scope are that op's.
        const owner = this.#owners.get(idx);
        if (owner !== undefined) {
          this.#failOp(
            `attribute "${name}": block ${idx} is already the sub-block of ${owner}`,
            { attr: name },
          );
        }
        this.#owners.set(
          idx,
          `block ${block.idx} op ${this.#opIndex} (${this.#opType})`,
        );
        (subBlocks ??= []).push(idx);
      }
    }
    return subBlocks;
  }
}
