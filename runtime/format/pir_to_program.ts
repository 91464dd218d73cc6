/**
 * A decoded PIR program (`pir_program.ts`) as a `ProgramDesc` that Rill's
 * executor runs, op by op through the one table `pir_op_table.ts`.
 *
 * - Each SSA value is a variable, declared in the block that defines it:
 *   a parameter's by its name, a feed's by its `1.data` name, a fetched
 *   value's by its fetch name (`fetch_name_0`), any other `%<id>`.
 * - `p` ops are persistable block-0 variables (the model directory reads
 *   their `.pdiparams` records in name order, as for a `.pdmodel`);
 *   `1.data` ops are `feed` ops on the `feed` list, `1.fetch` ops `fetch`
 *   ops on `fetch`.
 * - A constant op's value becomes the attribute an operand maps to; the
 *   op itself is kept (`fill_constant`, `assign_value`) only when some
 *   operand uses its value as a tensor.
 * - `0.combine` makes no variable: a slot it feeds gets each member.
 * - Control flow: `pir_control_flow.ts`.
 *
 * Invariant: nothing is returned unless every op, attribute, operand and
 * type converted; otherwise one `PirUnsupportedError` lists them all.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import {
  AttrType,
  type BlockDesc,
  BlockDescSchema,
  type OpDesc,
  type OpDesc_Attr,
  OpDescSchema,
  type ProgramDesc,
  ProgramDescSchema,
  VarDescSchema,
  VarType_Type,
} from "../../gen/rill/v1/framework_pb.ts";
import {
  attr,
  constantToDesc,
  dtypeNameCode,
  elementTypeCode,
  intAttr,
  pirAttrToDesc,
} from "./_pir_attr_convert.ts";
import { convertIf, convertWhile } from "./_pir_control_flow.ts";
import {
  PIR_IGNORED_ATTRS,
  type PirMappedOp,
  pirOpRule,
} from "./pir_op_table.ts";
import type {
  PirAttr,
  PirBlock,
  PirOp,
  PirProgram,
  PirType,
} from "./pir_program.ts";
import {
  type PirGapKind,
  PirUnsupportedError,
} from "./pir_unsupported_error.ts";

/** Options of `pirToProgram`. */
export interface PirToProgramOptions {
  /** The program's file, named in errors. @default {undefined} */
  file?: string;
}

/**
 * Converts a PIR program into a `ProgramDesc`.
 *
 * @param program The decoded program.
 * @param options The file, for errors.
 * @returns The program.
 * @throws {PirUnsupportedError} If it uses ops, attributes, operands or
 * types Rill cannot convert, listing them all.
 *
 * @example Usage
 * ```ts
 * import { decodePirProgram } from "./pir_program.ts";
 * import { pirToProgram } from "./pir_to_program.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const t = (dims: number[]) => ({ "#": "0.t_dtensor", D: [{ "#": "0.t_f32" }, dims, "NCHW", [], 0] });
 * const text = JSON.stringify({
 *   base_code: { magic: "pir", trainable: false, version: 1 },
 *   program: { regions: [{ "#": "region_0", blocks: [{ "#": "block_0", args: [], ops: [
 *     { "#": "1.data", I: [], O: [{ "%": 1, TT: t([2]) }], A: [{ N: "name", AT: { "#": "0.a_str", D: "x" } }] },
 *     { "#": "1.relu", I: [{ "%": 1 }], O: [{ "%": 2, TT: t([2]) }], A: [] },
 *     { "#": "1.fetch", I: [{ "%": 2 }], O: [{ "%": 3, TT: t([2]) }],
 *       A: [{ N: "name", AT: { "#": "0.a_str", D: "y" } }, { N: "col", AT: { "#": "0.a_i32", D: 0 } }] },
 *   ] }] }] },
 * });
 * const desc = pirToProgram(decodePirProgram(text));
 * assertEquals(desc.blocks[0].ops.map((op) => op.type), ["feed", "relu", "fetch"]);
 * ```
 */
export function pirToProgram(
  program: PirProgram,
  options: PirToProgramOptions = {},
): ProgramDesc {
  const c = new PirConverter();
  c.prepare(program.top);
  c.convertBlock(program.top, c.newBlock(-1));
  const gaps = c.gaps();
  if (gaps.length > 0) throw new PirUnsupportedError(gaps, options);
  return create(ProgramDescSchema, { blocks: c.blocks });
}

/** How a declared variable is marked. */
interface VarFlags {
  persistable?: boolean;
  isParameter?: boolean;
  feed?: boolean;
}

/** A constant op's values and type. */
interface Constant {
  readonly op: PirOp;
  readonly values: readonly number[];
}

/**
 * The state of one conversion. Exported to the control-flow converters
 * only (`_pir_control_flow.ts`).
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
  #feeds = 0;

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
    this.#materialize(id, block);
    return [this.nameOf(id)];
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
      if (op.parameter !== undefined) {
        this.#names.set(op.results[0].id, op.parameter.name);
      } else if (op.name === "1.data") {
        const name = attrValue(op, "name");
        if (typeof name === "string") this.#names.set(op.results[0].id, name);
      } else if (op.name === "1.fetch" && op.operands[0] > 0) {
        const name = attrValue(op, "name") ?? `fetch_name_${fetches}`;
        fetches++;
        if (!this.#names.has(op.operands[0]) && op.operands[0] > 0) {
          this.#names.set(op.operands[0], String(name));
        }
      }
      if (op.name === "1.full" || op.name === "1.full_int_array") {
        this.#noteConstant(op);
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
        this.#mapped(op, rule, block);
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
          this.#data(op, block);
          break;
        case "fetch":
          this.#fetch(op, block);
          break;
        case "full":
        case "full_int_array":
          this.#checkAttrs(op, ["value", "shape", "dtype", "place"]);
          if (this.#tensorUses.has(op.results[0].id)) {
            this.#materialize(op.results[0].id, block);
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

  #mapped(op: PirOp, rule: PirMappedOp, block: BlockDesc): void {
    const inputs: Record<string, string[]> = {};
    const attrs: OpDesc_Attr[] = [];
    if (op.operands.length > rule.inputs.length) {
      this.gap("op", `${op.name} with ${op.operands.length} operands`);
    }
    op.operands.forEach((id, i) => {
      const r = rule.inputs[i];
      if (id === 0 || r === undefined) return;
      const constant = this.#constants.get(id);
      if (typeof r === "string") {
        (inputs[r] ??= []).push(...this.argumentsOf(id, block));
      } else if (constant !== undefined) {
        const a = constantToDesc(r.attr, r.as, constant.values);
        if (a === undefined) this.gap("operand", `${op.name}.${r.attr}`);
        else attrs.push(a);
      } else if (r.slot !== undefined) {
        (inputs[r.slot] ??= []).push(...this.argumentsOf(id, block));
      } else {
        this.gap("operand", `${op.name}.${r.attr}`);
      }
    });
    attrs.push(...this.#attrs(op, rule.attrs ?? {}));
    const outputs: Record<string, string[]> = {};
    if (op.results.length > rule.outputs.length) {
      this.gap("op", `${op.name} with ${op.results.length} results`);
    }
    op.results.forEach((v, i) => {
      if (i >= rule.outputs.length) return;
      this.declare(block, v.id, v.type);
      outputs[rule.outputs[i]] = [this.nameOf(v.id)];
    });
    this.emit(block, rule.type, { inputs, outputs }, attrs);
  }

  #attrs(
    op: PirOp,
    names: Readonly<Record<string, string | null>>,
  ): OpDesc_Attr[] {
    const out: OpDesc_Attr[] = [];
    for (const { name, value } of op.attrs) {
      if (PIR_IGNORED_ATTRS.has(name)) continue;
      if (!Object.hasOwn(names, name)) {
        this.gap("attribute", `${op.name}.${name}`);
        continue;
      }
      const to = names[name];
      if (to === null) continue;
      const a = pirAttrToDesc(to, value);
      if (typeof a === "string") {
        this.gap("attribute", `${op.name}.${name} (${a})`);
      } else out.push(a);
    }
    return out;
  }

  // An op whose attributes the conversion reads itself: any other name is a
  // gap.
  #checkAttrs(op: PirOp, known: readonly string[]): void {
    for (const { name } of op.attrs) {
      if (!known.includes(name) && !PIR_IGNORED_ATTRS.has(name)) {
        this.gap("attribute", `${op.name}.${name}`);
      }
    }
  }

  #data(op: PirOp, block: BlockDesc): void {
    this.#checkAttrs(op, ["name", "shape", "dtype", "place"]);
    if (this.#feeds === 0) {
      this.#declareList(block, "feed", VarType_Type.FEED_MINIBATCH);
    }
    const v = op.results[0];
    this.declare(block, v.id, v.type, { feed: true });
    this.emit(block, "feed", {
      inputs: { X: ["feed"] },
      outputs: { Out: [this.nameOf(v.id)] },
    }, [intAttr("col", this.#feeds++)]);
  }

  #fetch(op: PirOp, block: BlockDesc): void {
    this.#checkAttrs(op, ["name", "col"]);
    const col = Number(attrValue(op, "col") ?? 0);
    const target = String(attrValue(op, "name") ?? `fetch_name_${col}`);
    if (!block.vars.some((v) => v.name === "fetch")) {
      this.#declareList(block, "fetch", VarType_Type.FETCH_LIST);
    }
    let [name] = this.argumentsOf(op.operands[0], block);
    if (name !== target) {
      // The value already has a name (a feed, a parameter, a fetch): copy.
      const result = op.results[0];
      this.alias(result.id, target);
      this.declare(block, result.id, result.type);
      this.emit(block, "assign", {
        inputs: { X: [name] },
        outputs: { Out: [target] },
      });
      name = target;
    } else {
      this.alias(op.results[0].id, name);
    }
    this.emit(block, "fetch", {
      inputs: { X: [name] },
      outputs: { Out: ["fetch"] },
    }, [intAttr("col", col)]);
  }

  #declareList(block: BlockDesc, name: string, type: VarType_Type): void {
    block.vars.push(
      create(VarDescSchema, { name, type: { type }, persistable: true }),
    );
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

  #noteConstant(op: PirOp): void {
    const value = op.attrs.find((a) => a.name === "value")?.value;
    const values = numbersOf(value);
    if (values !== undefined) {
      this.#constants.set(op.results[0].id, { op, values });
    }
  }

  // Emits the op of constant `id` into `block` once, if it is one.
  #materialize(id: number, block: BlockDesc): void {
    const constant = this.#constants.get(id);
    if (constant === undefined || this.#emitted.has(id)) return;
    this.#emitted.add(id);
    const { op, values } = constant;
    const v = op.results[0];
    this.declare(block, v.id, v.type);
    const dtype = attrValue(op, "dtype");
    const code = typeof dtype === "string" ? dtypeNameCode(dtype) : undefined;
    if (code === undefined) {
      this.gap("attribute", `${op.name}.dtype (${String(dtype)})`);
      return;
    }
    const out = { outputs: { Out: [this.nameOf(v.id)] } };
    const dims = v.type.kind === "dense" ? v.type.dims : [values.length];
    if (op.name === "1.full") {
      this.emit(block, "fill_constant", out, [
        attr("shape", { type: AttrType.LONGS, longs: dims.map(BigInt) }),
        intAttr("dtype", code),
        attr("value", { type: AttrType.FLOAT, f: values[0] }),
      ]);
    } else {
      const wide = code === VarType_Type.INT64;
      this.emit(block, "assign_value", out, [
        attr("shape", { type: AttrType.INTS, ints: [values.length] }),
        intAttr("dtype", code),
        wide
          ? attr("int64_values", {
            type: AttrType.LONGS,
            longs: values.map(BigInt),
          })
          : attr("int32_values", { type: AttrType.INTS, ints: [...values] }),
      ]);
    }
  }
}

/** A constant's values: a number, or a list of numbers. */
function numbersOf(value: PirAttr | undefined): number[] | undefined {
  if (value === undefined) return undefined;
  if (value.kind === "array") {
    const items = value.value.map((a) =>
      "value" in a && typeof a.value === "number" ? a.value : undefined
    );
    return items.includes(undefined) ? undefined : items as number[];
  }
  if (value.kind === "intarray") return [...value.value];
  return "value" in value && typeof value.value === "number"
    ? [value.value]
    : undefined;
}

/** The plain value of an op's attribute `name`, if it has one. */
function attrValue(op: PirOp, name: string): unknown {
  const a = op.attrs.find((x) => x.name === name)?.value;
  return a !== undefined && "value" in a ? a.value : undefined;
}
