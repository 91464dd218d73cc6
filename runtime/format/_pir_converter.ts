/**
 * The state of a PIR program's conversion (`pir_to_program.ts`): the
 * blocks made, each value's variable, the combine lists, the constants
 * and which of them some operand reads as a tensor, and the gaps found;
 * and the walk that hands each op to its converter.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import {
  type BlockDesc,
  BlockDescSchema,
  type OpDesc,
  type OpDesc_Attr,
  OpDescSchema,
  VarDescSchema,
  VarType_Type,
} from "../../gen/rill/v1/framework_pb.ts";
import { elementTypeCode } from "./_pir_attr_convert.ts";
import { CONSTANT_OPS, constantOp, constantValues } from "./_pir_constants.ts";
import { convertIf, convertWhile } from "./_pir_control_flow.ts";
import { convertData, convertFetch, fetchName } from "./_pir_feed_fetch.ts";
import { convertMapped } from "./_pir_mapped_op.ts";
import {
  PIR_IGNORED_ATTRS,
  pirOpRule,
  type PirSpecialOp,
} from "./pir_op_table.ts";
import type { PirBlock, PirOp, PirType } from "./pir_program.ts";
import type { PirGapKind } from "./pir_unsupported_error.ts";

/** How a declared variable is marked. */
interface VarFlags {
  persistable?: boolean;
  isParameter?: boolean;
  feed?: boolean;
}

/**
 * How many operands and results each structural op takes, [min, max]: an
 * op outside them is a gap, so that no converter reads a result or
 * operand that is not there.
 */
const SPECIAL_ARITY: Readonly<
  Record<
    PirSpecialOp,
    { operands: [number, number]; results: [number, number] }
  >
> = {
  parameter: { operands: [0, 0], results: [1, 1] },
  data: { operands: [0, 0], results: [1, 1] },
  fetch: { operands: [1, 1], results: [1, 1] },
  full: { operands: [0, 0], results: [1, 1] },
  full_int_array: { operands: [0, 0], results: [1, 1] },
  combine: { operands: [0, Infinity], results: [1, 1] },
  split: { operands: [1, 1], results: [0, Infinity] },
  if: { operands: [1, 1], results: [0, Infinity] },
  while: { operands: [1, Infinity], results: [0, Infinity] },
  yield: { operands: [0, Infinity], results: [0, 0] },
};

/**
 * Whether a structural op has the operands (none null) and results its
 * kind takes.
 */
function wellFormed(op: PirOp, special: PirSpecialOp): boolean {
  const { operands, results } = SPECIAL_ARITY[special];
  const within = (n: number, [min, max]: [number, number]) =>
    n >= min && n <= max;
  return within(op.operands.length, operands) &&
    within(op.results.length, results) && !op.operands.includes(0);
}

/** A constant op and its values. */
interface Constant {
  readonly op: PirOp;
  readonly values: readonly number[];
}

/**
 * The state of one conversion and its walk over the blocks, for the
 * converters of each kind of op (`_pir_mapped_op.ts`, `_pir_feed_fetch.ts`,
 * `_pir_control_flow.ts`) and `pirToProgram`.
 *
 * Names: a value's variable is fixed before the walk (`prepare`), except
 * that a loop's results and a fetch's result are aliases set as their op
 * is converted, before anything reads them (SSA order).
 *
 * @example Usage
 * ```ts
 * import { PirConverter } from "./_pir_converter.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const c = new PirConverter();
 * assertEquals(c.nameOf(7), "%7");
 * c.gap("op", "1.x");
 * c.gap("op", "1.x");
 * assertEquals(c.gaps(), [{ kind: "op", name: "1.x", count: 2 }]);
 * ```
 */
export class PirConverter {
  /** The blocks made so far, by index. */
  readonly blocks: BlockDesc[] = [];
  readonly #names = new Map<number, string>();
  readonly #members = new Map<number, string[]>();
  readonly #constants = new Map<number, Constant>();
  // Constants some operand reads as a tensor, and those already emitted.
  readonly #tensorUses = new Set<number>();
  readonly #emitted = new Set<number>();
  readonly #gaps = new Map<
    string,
    { kind: PirGapKind; name: string; count: number }
  >();

  /** Starts a block under `parent` and returns it. */
  newBlock(parent: number): BlockDesc {
    const block = create(BlockDescSchema, {
      idx: this.blocks.length,
      parentIdx: parent,
    });
    this.blocks.push(block);
    return block;
  }

  /** Records a gap (counted per occurrence). */
  gap(kind: PirGapKind, name: string): void {
    const key = `${kind} ${name}`;
    const g = this.#gaps.get(key);
    if (g === undefined) this.#gaps.set(key, { kind, name, count: 1 });
    else g.count++;
  }

  /** Every gap, in order of first use. */
  gaps(): { kind: PirGapKind; name: string; count: number }[] {
    return [...this.#gaps.values()];
  }

  /** The variable a value is. */
  nameOf(id: number): string {
    return this.#names.get(id) ?? `%${id}`;
  }

  /** Makes `id` another name for `name` (no variable of its own). */
  alias(id: number, name: string): void {
    this.#names.set(id, name);
  }

  /** The variables an operand stands for: a combine's members, or one. */
  argumentsOf(id: number, block: BlockDesc): string[] {
    const members = this.#members.get(id);
    if (members !== undefined) return members;
    this.materialize(id, block);
    return [this.nameOf(id)];
  }

  /** Makes the list value `id` stand for the variables `names`. */
  setMembers(id: number, names: string[]): void {
    this.#members.set(id, names);
  }

  /** The values of the constant op that made `id`, if one did. */
  constantOf(id: number): readonly number[] | undefined {
    return this.#constants.get(id)?.values;
  }

  /**
   * Names values before conversion and notes which constants are read as
   * tensors: every operand is, except one a table rule folds into an
   * attribute.
   */
  prepare(block: PirBlock): void {
    let fetches = 0;
    for (const op of block.ops) {
      const rule = pirOpRule(op.name);
      if (
        rule !== undefined && "special" in rule && !wellFormed(op, rule.special)
      ) {
        continue;
      }
      if (op.parameter !== undefined) {
        this.#names.set(op.results[0].id, op.parameter.name);
      } else if (op.name === "1.data") {
        const name = fetchName(op);
        if (name !== undefined) this.#names.set(op.results[0].id, name);
      } else if (op.name === "1.fetch") {
        const name = fetchName(op) ?? `fetch_name_${fetches}`;
        fetches++;
        if (!this.#names.has(op.operands[0])) {
          this.#names.set(op.operands[0], name);
        }
      }
      const values = CONSTANT_OPS.has(op.name) ? constantValues(op) : undefined;
      if (values !== undefined) {
        this.#constants.set(op.results[0].id, { op, values });
      }
      op.operands.forEach((id, i) => {
        const r = rule !== undefined && "type" in rule
          ? rule.inputs[i]
          : undefined;
        const folded = typeof r === "object" && this.#constants.has(id);
        if (!folded) this.#tensorUses.add(id);
      });
      for (const region of op.regions) {
        for (const b of region.blocks) this.prepare(b);
      }
    }
  }

  /** Converts a PIR block's ops into `block`; `onYield` takes its yield. */
  convertBlock(
    pir: PirBlock,
    block: BlockDesc,
    onYield?: (op: PirOp) => void,
  ): void {
    for (const op of pir.ops) {
      const rule = pirOpRule(op.name);
      if (rule === undefined) {
        this.gap("op", op.name);
        continue;
      }
      if ("type" in rule) {
        convertMapped(this, op, rule, block);
        continue;
      }
      if (!wellFormed(op, rule.special)) {
        this.gap(
          "op",
          `${op.name} with ${op.operands.length} operands and ${op.results.length} results`,
        );
        continue;
      }
      switch (rule.special) {
        case "parameter":
          this.declare(block, op.results[0].id, op.results[0].type, {
            persistable: true,
            isParameter: op.parameter?.trainable ?? false,
          });
          break;
        case "data":
          convertData(this, op, block);
          break;
        case "fetch":
          convertFetch(this, op, block);
          break;
        case "full":
        case "full_int_array":
          this.checkAttrs(op, ["value", "shape", "dtype", "place"]);
          if (this.#tensorUses.has(op.results[0].id)) {
            this.materialize(op.results[0].id, block);
          }
          break;
        case "combine":
          this.#members.set(
            op.results[0].id,
            op.operands.flatMap((id) => this.argumentsOf(id, block)),
          );
          break;
        case "split":
          this.#split(op);
          break;
        case "if":
          convertIf(this, op, block);
          break;
        case "while":
          convertWhile(this, op, block);
          break;
        case "yield":
          if (onYield === undefined) this.gap("op", op.name);
          else onYield(op);
          break;
      }
    }
  }

  /**
   * Declares the variable of value `id` in `block`; a value of a type Rill
   * cannot hold is a gap.
   */
  declare(
    block: BlockDesc,
    id: number,
    type: PirType,
    flags: VarFlags = {},
  ): void {
    this.declareVar(block, this.nameOf(id), type, flags);
  }

  /** Declares variable `name` of `type` in `block`, as `declare`. */
  declareVar(
    block: BlockDesc,
    name: string,
    type: PirType,
    flags: VarFlags = {},
  ): void {
    if (type.kind !== "dense") {
      this.gap("type", type.kind === "vec" ? "0.t_vec" : type.tag);
      return;
    }
    const code = elementTypeCode(type.element);
    if (code === undefined) {
      this.gap("type", type.element);
      return;
    }
    block.vars.push(create(VarDescSchema, {
      name,
      type: {
        type: VarType_Type.LOD_TENSOR,
        lodTensor: { tensor: { dataType: code, dims: type.dims.map(BigInt) } },
      },
      persistable: flags.persistable ?? false,
      isParameter: flags.isParameter ?? false,
      needCheckFeed: flags.feed ?? false,
    }));
  }

  /** Appends an op to `block`. */
  emit(
    block: BlockDesc,
    type: string,
    slots: {
      inputs?: Record<string, string[]>;
      outputs?: Record<string, string[]>;
    },
    attrs: OpDesc_Attr[] = [],
  ): void {
    const vars = (s: Record<string, string[]> = {}) =>
      Object.entries(s).map(([parameter, args]) => ({
        parameter,
        arguments: args,
      }));
    block.ops.push(create(OpDescSchema, {
      type,
      inputs: vars(slots.inputs),
      outputs: vars(slots.outputs),
      attrs,
    }) as OpDesc);
  }

  /**
   * For an op whose attributes the conversion reads itself: any name but
   * `known` (and the ignored ones) is a gap.
   */
  checkAttrs(op: PirOp, known: readonly string[]): void {
    for (const { name } of op.attrs) {
      if (!known.includes(name) && !PIR_IGNORED_ATTRS.has(name)) {
        this.gap("attribute", `${op.name}.${name}`);
      }
    }
  }

  // `0.split` of a combine: its results are the members.
  #split(op: PirOp): void {
    const members = this.#members.get(op.operands[0]);
    if (members === undefined || members.length !== op.results.length) {
      this.gap("op", `${op.name} of a computed list`);
      return;
    }
    op.results.forEach((v, i) => this.alias(v.id, members[i]));
  }

  /**
   * Emits the op of the constant that made `id` into `block`, once; a value
   * no constant made needs nothing.
   */
  materialize(id: number, block: BlockDesc): void {
    const constant = this.#constants.get(id);
    if (constant === undefined || this.#emitted.has(id)) return;
    this.#emitted.add(id);
    const v = constant.op.results[0];
    const made = constantOp(constant.op, constant.values);
    if (typeof made === "string") {
      this.gap("attribute", made);
      return;
    }
    this.declare(block, v.id, v.type);
    this.emit(
      block,
      made.type,
      { outputs: { Out: [this.nameOf(v.id)] } },
      made.attrs,
    );
  }
}
