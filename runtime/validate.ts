/**
 * Validation before anything runs (design.md §5): every block index and
 * parent right, every op registered, every slot known and filled, every
 * variable declared in the op's block or an ancestor and of the kind its
 * slot takes, every attribute of the right type, every sub-block a child of
 * the op's block, and every shape mismatch that is known statically.
 *
 * @module
 */
import type {
  BlockDesc,
  OpDesc,
  OpDesc_Var,
  ProgramDesc,
} from "../gen/rill/v1/framework_pb.ts";
import { AttrError, readAttrs } from "./attr_read.ts";
import { ProgramError, type ProgramErrorWhere } from "./errors.ts";
import type { InferredType, OpDef, SlotSpec, VarInfo } from "./op_def.ts";
import { OPS } from "./ops/mod.ts";
import { varInfoOf } from "./var_info.ts";

/** Options of `validateProgram`. */
export interface ValidateOptions {
  /** The file the program came from, named in errors. */
  file?: string;
  /** The op registry. @default {OPS} */
  registry?: ReadonlyMap<string, OpDef>;
}

/**
 * Checks a program; throws a `ProgramError` naming the first problem.
 *
 * @param program The program.
 * @param options Where it came from; which registry.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { ProgramDescSchema } from "../gen/rill/v1/framework_pb.ts";
 * import { validateProgram } from "./validate.ts";
 * import { assertThrows } from "@std/assert";
 *
 * const program = create(ProgramDescSchema, {
 *   blocks: [{ idx: 0, parentIdx: -1, ops: [{ type: "no_such_op" }] }],
 * });
 * assertThrows(() => validateProgram(program), Error, 'unknown op "no_such_op"');
 * ```
 */
export function validateProgram(
  program: ProgramDesc,
  options: ValidateOptions = {},
): void {
  new Validator(program, options).run();
}

// Messages name slots as `input "X"`; the strings are made once per name.
const slotNames = (side: string) => {
  const cache = new Map<string, string>();
  return (slot: string): string => {
    let at = cache.get(slot);
    if (at === undefined) cache.set(slot, at = `${side} "${slot}"`);
    return at;
  };
};
const inputAt = slotNames("input");
const outputAt = slotNames("output");

const SLOT_MAPS = new WeakMap<object, ReadonlyMap<string, SlotSpec>>();

// Slot names in a decoded program are fresh strings; a Map looks them up by
// their cached hash, where an object property lookup would first intern each.
function slotMap(
  specs: Readonly<Record<string, SlotSpec>>,
): ReadonlyMap<string, SlotSpec> {
  let map = SLOT_MAPS.get(specs);
  if (map === undefined) {
    SLOT_MAPS.set(specs, map = new Map(Object.entries(specs)));
  }
  return map;
}

const BLOCK_ATTRS = new WeakMap<OpDef, readonly string[]>();

// The BLOCK and BLOCKS attributes of an op type, listed once.
function blockAttrNames(def: OpDef): readonly string[] {
  let names = BLOCK_ATTRS.get(def);
  if (names === undefined) {
    names = Object.entries(def.attrs)
      .filter(([, spec]) => spec.kind === "block" || spec.kind === "blocks")
      .map(([name]) => name);
    BLOCK_ATTRS.set(def, names);
  }
  return names;
}

const REQUIRED = new WeakMap<object, readonly string[]>();

function requiredSlots(
  specs: Readonly<Record<string, SlotSpec>>,
): readonly string[] {
  let names = REQUIRED.get(specs);
  if (names === undefined) {
    names = Object.entries(specs).filter(([, s]) => !s.optional).map(([n]) =>
      n
    );
    REQUIRED.set(specs, names);
  }
  return names;
}

/**
 * Throws when an output's declared shape cannot hold what the op makes:
 * a known dimension differs, or two fully known shapes differ in rank.
 * Unknown (-1) dimensions and undeclared shapes match anything, and a
 * rank-0 result fits a variable declared [1].
 */
function checkDeclaredShape(
  slot: string,
  declared: VarInfo,
  made: readonly number[] | undefined,
): void {
  const want = declared.shape;
  if (want === undefined || made === undefined) return;
  const known = (s: readonly number[]) => s.every((d) => d >= 0);
  // Fluid declares scalars as [1]; a rank-0 result fits them.
  const scalar = (s: readonly number[]) =>
    s.length <= 1 && s.every((d) => d === 1);
  if (scalar(want) && scalar(made)) return;
  const differs = want.length === made.length
    ? want.some((d, i) => d >= 0 && made[i] >= 0 && d !== made[i])
    : known(want) && known(made);
  if (differs) {
    throw new RangeError(
      `output "${slot}": variable "${declared.name}" is declared [${
        want.join(", ")
      }] but the op makes [${made.join(", ")}]`,
    );
  }
}

class Validator {
  readonly #program: ProgramDesc;
  readonly #file: string | undefined;
  readonly #registry: ReadonlyMap<string, OpDef>;
  readonly #declared: Map<string, VarInfo>[] = [];

  constructor(program: ProgramDesc, options: ValidateOptions) {
    this.#program = program;
    this.#file = options.file;
    this.#registry = options.registry ?? OPS;
  }

  run(): void {
    const blocks = this.#program.blocks;
    if (blocks.length === 0) this.#fail("the program has no blocks", {});
    blocks.forEach((b, i) => this.#checkBlock(b, i));
    blocks.forEach((b) => b.ops.forEach((op, i) => this.#checkOp(b, op, i)));
  }

  #fail(detail: string, where: ProgramErrorWhere): never {
    throw new ProgramError(detail, { file: this.#file, ...where });
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
    const vars = new Map<string, VarInfo>();
    for (const v of block.vars) {
      if (v.name === "") {
        this.#fail("a variable has an empty name", { block: i });
      }
      if (vars.has(v.name)) {
        this.#fail(`variable "${v.name}" is declared twice`, { block: i });
      }
      vars.set(v.name, varInfoOf(v));
    }
    this.#declared.push(vars);
  }

  #lookup(block: number, name: string): VarInfo | undefined {
    for (let b = block; b >= 0; b = this.#program.blocks[b].parentIdx) {
      const info = this.#declared[b].get(name);
      if (info !== undefined) return info;
      if (b === 0) break;
    }
    return undefined;
  }

  #checkOp(block: BlockDesc, op: OpDesc, i: number): void {
    const where = { block: block.idx, op: i, opType: op.type };
    const def = this.#registry.get(op.type);
    if (def === undefined) this.#fail(`unknown op "${op.type}"`, where);
    const inputs = this.#checkSlots(
      block,
      op.inputs,
      def.inputs,
      "input",
      where,
    );
    const outputs = this.#checkSlots(
      block,
      op.outputs,
      def.outputs,
      "output",
      where,
    );
    let attrs: Record<string, unknown>;
    try {
      attrs = readAttrs(def.attrs, op.attrs);
    } catch (e) {
      if (e instanceof AttrError) this.#fail(e.message, where);
      throw e;
    }
    this.#checkBlockAttrs(block, def, attrs, where);
    try {
      def.check?.(attrs as never, {
        lookup: (name) => this.#lookup(block.idx, name),
        blockCount: this.#program.blocks.length,
      });
      const inferred = def.infer?.({
        inputs: (s) => inputs.get(s) ?? [],
        attrs: attrs as never,
      });
      for (const slot in inferred) {
        const types = inferred[slot];
        const declared = outputs.get(slot) ?? [];
        for (let i = 0; i < declared.length; i++) {
          const made = Array.isArray(types)
            ? types[i]
            : i === 0
            ? types
            : undefined;
          checkDeclaredShape(
            slot,
            declared[i],
            (made as InferredType | undefined)?.shape,
          );
        }
      }
    } catch (e) {
      if (e instanceof ProgramError) throw e;
      this.#fail((e as Error).message, where);
    }
  }

  #checkSlots(
    block: BlockDesc,
    given: readonly OpDesc_Var[],
    specs: Readonly<Record<string, SlotSpec>>,
    side: "input" | "output",
    where: ProgramErrorWhere,
  ): Map<string, VarInfo[]> {
    const seen = new Map<string, VarInfo[]>();
    const slots = slotMap(specs);
    for (const v of given) {
      const spec = slots.get(v.parameter);
      const at = side === "input"
        ? inputAt(v.parameter)
        : outputAt(v.parameter);
      if (spec === undefined) {
        this.#fail(`unknown ${side} slot "${v.parameter}"`, where);
      }
      if (seen.has(v.parameter)) this.#fail(`${at} is given twice`, where);
      if (!spec.duplicable && v.arguments.length > 1) {
        this.#fail(
          `${at} takes one variable, got ${v.arguments.length}`,
          where,
        );
      }
      seen.set(
        v.parameter,
        v.arguments.map((name) => this.#checkVar(block, name, spec, at, where)),
      );
    }
    for (const name of requiredSlots(specs)) {
      if ((seen.get(name)?.length ?? 0) === 0) {
        this.#fail(`${side} "${name}" is required`, where);
      }
    }
    return seen;
  }

  #checkVar(
    block: BlockDesc,
    name: string,
    spec: SlotSpec,
    at: string,
    where: ProgramErrorWhere,
  ): VarInfo {
    const info = this.#lookup(block.idx, name);
    if (info === undefined) {
      this.#fail(
        `${at}: variable "${name}" is not declared in block ${block.idx} or its ancestors`,
        where,
      );
    }
    if (spec.kind !== "any" && info.kind !== spec.kind) {
      this.#fail(
        `${at}: variable "${name}" is a ${info.kind}, not a ${spec.kind}`,
        where,
      );
    }
    return info;
  }

  #checkBlockAttrs(
    block: BlockDesc,
    def: OpDef,
    attrs: Record<string, unknown>,
    where: ProgramErrorWhere,
  ): void {
    for (const name of blockAttrNames(def)) {
      const value = attrs[name];
      const indices = typeof value === "number" ? [value] : (value as number[]);
      for (const idx of indices) {
        const sub = this.#program.blocks[idx];
        if (sub === undefined) {
          this.#fail(`attribute "${name}": block ${idx} does not exist`, where);
        }
        if (idx === 0 || sub.parentIdx !== block.idx) {
          this.#fail(
            `attribute "${name}": block ${idx} is not a child of block ${block.idx}`,
            where,
          );
        }
      }
    }
  }
}
