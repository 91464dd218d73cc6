/**
 * The program builder: `Program`, `Block` and `Variable`, what a Fluid user
 * writes in Python, in TypeScript. A program under construction is a
 * `ProgramDesc` message plus the bookkeeping to append to it; `appendOp`
 * checks each op against the registry (slots, attribute types) and encodes
 * its attributes by the op's schema.
 *
 * @module
 */
import { create, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import {
  type BlockDesc,
  BlockDescSchema,
  type OpDesc,
  type OpDesc_Attr,
  OpDesc_AttrSchema,
  OpDescSchema,
  type ProgramDesc,
  ProgramDescSchema,
  type VarDesc,
  VarDescSchema,
  VarType_Type,
  type VarTypeSchema,
} from "../../gen/rill/v1/framework_pb.ts";
import type { DType } from "../../kernels/dtype.ts";
import type { Tensor } from "../../kernels/tensor.ts";
import { ATTR_TYPE_OF_KIND } from "../core/attr_read.ts";
import { encodeExtraAttr } from "../core/judge_extra_attr.ts";
import { compactFromBinary } from "../format/compact_from_binary.ts";
import { codeOfDType } from "../core/dtype_codes.ts";
import { dumpProgram } from "./dump.ts";
import type { AttrKind, OpDef, VarInfo, VarKind } from "../core/op_def.ts";
import { OPS } from "../ops/mod.ts";
import { loadModel, type LoadModelOptions } from "../format/model_dir.ts";
import { writeProgramFile } from "../format/program_file.ts";
import { varInfoOf } from "../core/var_info.ts";

/** How to declare a variable. */
export interface VarOptions {
  /** Its name; default a fresh `<prefix>_<n>.tmp`. */
  name?: string;
  /** What it holds. @default {"tensor"} */
  kind?: Exclude<VarKind, "any">;
  /** A tensor's or channel's element type. */
  dtype?: DType;
  /** A tensor's shape (-1 unknown). */
  shape?: readonly number[];
  /** A channel's capacity, for the declaration. @default {0} */
  capacity?: number;
  /** Kept across runs (Fluid's persistable). @default {false} */
  persistable?: boolean;
}

/**
 * A declared variable of a block.
 *
 * @example Usage
 * ```ts
 * import { Program } from "./program.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const program = new Program();
 * const x = program.globalBlock.createVar({ name: "x", dtype: "float32", shape: [2] });
 * assertEquals([x.name, x.kind, x.dtype], ["x", "tensor", "float32"]);
 * ```
 */
export class Variable {
  /** The declaring block. */
  readonly block: Block;
  /** The variable's name. */
  readonly name: string;

  /**
   * Wraps a declared variable.
   *
   * @param block The declaring block.
   * @param name Its name.
   */
  constructor(block: Block, name: string) {
    this.block = block;
    this.name = name;
  }

  /** What the declaration says of it. */
  get info(): VarInfo {
    return varInfoOf(this.block.varDesc(this.name)!);
  }

  /** What it holds. */
  get kind(): VarInfo["kind"] {
    return this.info.kind;
  }

  /** Its element type, when declared. */
  get dtype(): DType | undefined {
    return this.info.dtype;
  }

  /** Its shape, when declared. */
  get shape(): readonly number[] | undefined {
    return this.info.shape;
  }
}

/** An attribute value as the builder takes it. */
export type AttrInput =
  | number
  | bigint
  | string
  | boolean
  | readonly number[]
  | readonly bigint[]
  | readonly string[]
  | readonly boolean[]
  | Block
  | readonly Block[];

/** Slot arguments as the builder takes them. */
export type SlotInput = Variable | readonly Variable[] | undefined;

/** What `appendOp` takes. */
export interface OpInput {
  /** The op type. */
  type: string;
  /** Input slots. */
  inputs?: Readonly<Record<string, SlotInput>>;
  /** Output slots. */
  outputs?: Readonly<Record<string, SlotInput>>;
  /** Attributes; `undefined` values are left out. */
  attrs?: Readonly<Record<string, AttrInput | undefined>>;
}

/**
 * A block of a program under construction.
 *
 * @example Usage
 * ```ts
 * import { Program } from "./program.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const program = new Program();
 * const sub = program.createBlock(program.globalBlock);
 * assertEquals([sub.idx, sub.parent?.idx], [1, 0]);
 * ```
 */
export class Block {
  /** The program. */
  readonly program: Program;
  /** The block's message, appended to in place. */
  readonly desc: BlockDesc;
  #index = new Map<string, VarDesc>();

  /**
   * Wraps a block of `program`.
   *
   * @param program The program.
   * @param desc The block's message.
   */
  constructor(program: Program, desc: BlockDesc) {
    this.program = program;
    this.desc = desc;
  }

  /** The block's index. */
  get idx(): number {
    return this.desc.idx;
  }

  /** The parent block, or `undefined` for block 0. */
  get parent(): Block | undefined {
    return this.idx === 0 ? undefined : this.program.block(this.desc.parentIdx);
  }

  /**
   * Declares a variable in this block.
   *
   * @param options Name, kind, dtype, shape.
   * @returns The variable.
   */
  createVar(options: VarOptions = {}): Variable {
    const name = options.name ?? this.program.uniqueName("tmp");
    if (this.varDesc(name) !== undefined) {
      throw new TypeError(
        `create variable: "${name}" already exists in block ${this.idx}`,
      );
    }
    const desc = create(VarDescSchema, {
      name,
      type: varTypeOf(options),
      persistable: options.persistable ?? false,
    });
    this.desc.vars.push(desc);
    this.#index.set(name, desc);
    return new Variable(this, name);
  }

  /**
   * The declaration of `name` in this block itself.
   *
   * @param name The variable.
   * @returns Its `VarDesc`, or `undefined`.
   */
  varDesc(name: string): VarDesc | undefined {
    // Indexed once per length, so building a long block stays linear; a
    // desc edited by hand in place of appending is re-indexed.
    if (this.#index.size !== this.desc.vars.length) {
      this.#index = new Map(this.desc.vars.map((v) => [v.name, v]));
    }
    return this.#index.get(name);
  }

  /**
   * The variable `name` as seen from this block (declared here or in an
   * ancestor).
   *
   * @param name The variable.
   * @returns The variable, or `undefined`.
   */
  findVar(name: string): Variable | undefined {
    if (this.varDesc(name) !== undefined) return new Variable(this, name);
    return this.parent?.findVar(name);
  }

  /**
   * Appends an op, checked against its registered definition: the type is
   * known, slot names exist, every variable is visible from this block, and
   * each attribute is encoded as its schema says.
   *
   * @param op The op.
   * @returns The appended `OpDesc`.
   */
  appendOp(op: OpInput): OpDesc {
    const def = OPS.get(op.type);
    if (def === undefined) {
      throw new TypeError(`append op: unknown op "${op.type}"`);
    }
    const desc = create(OpDescSchema, {
      type: op.type,
      inputs: this.#slots(def, def.inputs, op.inputs ?? {}, "input"),
      outputs: this.#slots(def, def.outputs, op.outputs ?? {}, "output"),
      attrs: encodeAttrs(def, op.attrs ?? {}),
    });
    this.desc.ops.push(desc);
    return desc;
  }

  #slots(
    def: OpDef,
    specs: OpDef["inputs"],
    given: Readonly<Record<string, SlotInput>>,
    side: string,
  ): { parameter: string; arguments: string[] }[] {
    const out: { parameter: string; arguments: string[] }[] = [];
    for (const [parameter, value] of Object.entries(given)) {
      if (value === undefined || (Array.isArray(value) && value.length === 0)) {
        continue;
      }
      if (specs[parameter] === undefined) {
        throw new TypeError(
          `append op ${def.type}: unknown ${side} slot "${parameter}"`,
        );
      }
      const vars = value instanceof Variable ? [value] : value;
      for (const v of vars) {
        if (this.findVar(v.name) === undefined) {
          throw new TypeError(
            `append op ${def.type}: variable "${v.name}" is not visible from block ${this.idx}`,
          );
        }
      }
      out.push({ parameter, arguments: vars.map((v) => v.name) });
    }
    return out;
  }
}

/** The `VarType` a declaration asks for. */
function varTypeOf(
  options: VarOptions,
): MessageInitShape<typeof VarTypeSchema> {
  const dataType = codeOfDType(options.dtype ?? "float32");
  const tensor = { dataType, dims: (options.shape ?? []).map(BigInt) };
  switch (options.kind ?? "tensor") {
    case "tensor":
      // Without dtype or shape the declaration leaves the tensor unknown.
      return options.dtype === undefined && options.shape === undefined
        ? { type: VarType_Type.LOD_TENSOR }
        : { type: VarType_Type.LOD_TENSOR, lodTensor: { tensor } };
    case "channel":
      // Without a dtype a channel carries any tensor (docs/architecture.md §2).
      return {
        type: VarType_Type.CHANNEL,
        channel: {
          dataType: options.dtype === undefined
            ? VarType_Type.LOD_TENSOR
            : dataType,
          capacity: BigInt(options.capacity ?? 0),
        },
      };
    case "array":
      return { type: VarType_Type.LOD_TENSOR_ARRAY, tensorArray: { tensor } };
    case "raw":
      return { type: VarType_Type.RAW };
    case "step_scopes":
      return { type: VarType_Type.STEP_SCOPES };
  }
}

/**
 * Encodes builder attribute values as `OpDesc.Attr`s by the op's schema;
 * `undefined` values are left out. A name the schema lacks must be one of
 * Paddle's extra attributes at a neutral value (`PADDLE_EXTRA_ATTRS`),
 * written in the first stored type its rule takes.
 *
 * @param def The op's definition.
 * @param attrs The values.
 * @returns The encoded attributes.
 *
 * @example Usage
 * ```ts
 * import { encodeAttrs } from "./program.ts";
 * import { OPS } from "../ops/mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const [a] = encodeAttrs(OPS.get("scale")!, { scale: 2 });
 * assertEquals([a.name, a.f], ["scale", 2]);
 * ```
 */
export function encodeAttrs(
  def: OpDef,
  attrs: Readonly<Record<string, AttrInput | undefined>>,
): OpDesc_Attr[] {
  const out: OpDesc_Attr[] = [];
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined) continue;
    const spec = def.attrs[name];
    if (spec === undefined) {
      out.push(encodeExtra(def.type, name, value));
      continue;
    }
    out.push(create(OpDesc_AttrSchema, {
      name,
      type: ATTR_TYPE_OF_KIND[spec.kind],
      ...encodeValue(def.type, name, spec.kind, value),
    }));
  }
  return out;
}

// An attribute the op's schema lacks: one of Paddle's extra attributes
// at a neutral value (core/paddle_extra_attrs.ts), or an error.
function encodeExtra(op: string, name: string, value: AttrInput): OpDesc_Attr {
  const number = (v: unknown) => typeof v === "bigint" ? Number(v) : v;
  const blocks = value instanceof Block ||
    (Array.isArray(value) && value.some((v) => v instanceof Block));
  let a: OpDesc_Attr | undefined;
  try {
    a = blocks ? undefined : encodeExtraAttr(
      name,
      (Array.isArray(value) ? value.map(number) : number(value)) as
        | number
        | string
        | boolean
        | (number | string | boolean)[],
    );
  } catch (e) {
    throw new TypeError(`append op ${op}: ${(e as Error).message}`);
  }
  if (a === undefined) {
    throw new TypeError(`append op ${op}: unknown attribute "${name}"`);
  }
  return a;
}

function encodeValue(
  op: string,
  name: string,
  kind: AttrKind,
  value: AttrInput,
): Partial<Omit<OpDesc_Attr, "$typeName" | "$unknown">> {
  const list = Array.isArray(value) ? value : undefined;
  const bad = () =>
    new TypeError(
      `append op ${op}: attribute "${name}" wants ${kind}, got ${
        String(value)
      }`,
    );
  switch (kind) {
    case "int":
    case "float":
      if (typeof value !== "number") throw bad();
      // FLOAT is a float32 on the wire: round now so that a built program
      // runs the same before and after a save and load.
      return kind === "int" ? { i: value } : { f: Math.fround(value) };
    case "long":
      if (typeof value !== "number" && typeof value !== "bigint") throw bad();
      return { l: BigInt(value) };
    case "string":
      if (typeof value !== "string") throw bad();
      return { s: value };
    case "bool":
      if (typeof value !== "boolean") throw bad();
      return { b: value };
    case "block":
      if (!(value instanceof Block)) throw bad();
      return { blockIdx: value.idx };
    case "blocks":
      if (!list?.every((b) => b instanceof Block)) throw bad();
      return { blocksIdx: (list as Block[]).map((b) => b.idx) };
    case "ints":
      return { ints: (list ?? [bad()]).map(Number) };
    case "longs":
      return { longs: (list ?? [bad()]).map((v) => BigInt(v as number)) };
    case "floats":
      return { floats: (list ?? [bad()]).map((v) => Math.fround(Number(v))) };
    case "strings":
      return { strings: (list ?? [bad()]).map(String) };
    case "bools":
      return { bools: (list ?? [bad()]).map(Boolean) };
  }
}

/**
 * A program under construction (or loaded), with a current block that
 * builder functions append to.
 *
 * @example Usage
 * ```ts
 * import { Program, fillConstant } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const program = new Program();
 * program.guard(() => fillConstant({ shape: [1], value: 1 }));
 * assertEquals(program.desc.blocks[0].ops[0].type, "fill_constant");
 * ```
 */
export class Program {
  /** The program's message. */
  readonly desc: ProgramDesc;
  /** Tensors for persistable variables, bound before each run. */
  readonly parameters: ReadonlyMap<string, Tensor>;
  readonly #stack: Block[] = [];
  readonly #blocks: Block[] = [];
  #names = new Map<string, number>();

  /**
   * Makes an empty program (one block), or wraps an existing message.
   *
   * @param desc A program message to build on.
   * @param parameters Tensors for its persistable variables.
   */
  constructor(
    desc?: ProgramDesc,
    parameters: ReadonlyMap<string, Tensor> = new Map(),
  ) {
    this.parameters = parameters;
    this.desc = desc ??
      create(ProgramDescSchema, { blocks: [{ idx: 0, parentIdx: -1 }] });
    this.#blocks = this.desc.blocks.map((b) => new Block(this, b));
    this.#stack.push(this.#blocks[0]);
  }

  /** Block 0. */
  get globalBlock(): Block {
    return this.#blocks[0];
  }

  /** The block builder functions append to. */
  get currentBlock(): Block {
    return this.#stack[this.#stack.length - 1];
  }

  /**
   * Block `idx`.
   *
   * @param idx A block index.
   * @returns The block.
   */
  block(idx: number): Block {
    const b = this.#blocks[idx];
    if (b === undefined) throw new RangeError(`block ${idx} does not exist`);
    return b;
  }

  /**
   * A fresh name `<prefix>_<n>` unique in this program.
   *
   * @param prefix The name's start.
   * @returns The name.
   */
  uniqueName(prefix: string): string {
    const n = this.#names.get(prefix) ?? 0;
    this.#names.set(prefix, n + 1);
    return `${prefix}_${n}`;
  }

  /**
   * Appends a new block whose parent is `parent`.
   *
   * @param parent The parent block.
   * @returns The new block.
   */
  createBlock(parent: Block): Block {
    const idx = this.desc.blocks.length;
    this.desc.blocks.push(
      create(BlockDescSchema, { idx, parentIdx: parent.idx }),
    );
    const block = new Block(this, this.desc.blocks[idx]);
    this.#blocks.push(block);
    return block;
  }

  /**
   * Builds a new child block of the current block: `build` runs with it as
   * the current block.
   *
   * @param build Appends the block's ops.
   * @returns The new block.
   */
  subBlock(build: () => void): Block {
    const block = this.createBlock(this.currentBlock);
    this.#stack.push(block);
    try {
      build();
    } finally {
      this.#stack.pop();
    }
    return block;
  }

  /**
   * Runs `build` with this program as the default program (Fluid's
   * `program_guard`).
   *
   * @param build Appends ops through the builder functions.
   * @returns What `build` returns.
   */
  guard<T>(build: () => T): T {
    guardStack.push(this);
    try {
      return build();
    } finally {
      guardStack.pop();
    }
  }

  /**
   * The program as protobuf binary.
   *
   * @returns The bytes.
   */
  toBinary(): Uint8Array {
    return toBinary(ProgramDescSchema, this.desc);
  }

  /**
   * The readable text form of the program (what `mod.ts dump` prints).
   *
   * @returns One line per block header, variable and op.
   */
  toString(): string {
    return dumpProgram(this.desc);
  }

  /**
   * Writes the program to `path`: protobuf text format for `.txtpb`, else
   * binary.
   *
   * @param path The file.
   */
  async save(path: string): Promise<void> {
    await writeProgramFile(path, this.desc);
  }

  /**
   * Reads a program file (`.pb` or `.txtpb`), or a model directory saved by
   * PaddlePaddle (`__model__` or one `*.pdmodel`) with its parameters, which
   * `Executor.run` binds before block 0 runs (see `runtime/format/model_dir.ts`).
   *
   * @param path The file or directory.
   * @param options A combined parameter file (`params`).
   * @returns The program.
   * @throws {ProgramError} If the program or a parameter cannot be read or
   * a parameter does not fit its declaration.
   */
  static async load(
    path: string,
    options: LoadModelOptions = {},
  ): Promise<Program> {
    const model = await loadModel(path, options);
    return new Program(model.desc, model.parameters);
  }

  /**
   * A program decoded from protobuf binary.
   *
   * @param bytes The bytes.
   * @returns The program.
   */
  static fromBinary(bytes: Uint8Array): Program {
    return new Program(compactFromBinary(ProgramDescSchema, bytes));
  }
}

const guardStack: Program[] = [];
let fallbackProgram: Program | undefined;

/**
 * The program builder functions append to: the innermost `guard`'s, else a
 * process-wide default (Fluid's `default_main_program`).
 *
 * @returns The program.
 *
 * @example Usage
 * ```ts
 * import { defaultProgram, Program } from "./program.ts";
 * import { assertStrictEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => assertStrictEquals(defaultProgram(), p));
 * ```
 */
export function defaultProgram(): Program {
  return guardStack[guardStack.length - 1] ??
    (fallbackProgram ??= new Program());
}

/**
 * Runs `build` with `program` as the default program.
 *
 * @param program The program to build into.
 * @param build Appends ops.
 * @returns What `build` returns.
 *
 * @example Usage
 * ```ts
 * import { Program, programGuard, fillConstant } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * programGuard(p, () => fillConstant({ shape: [1] }));
 * assertEquals(p.desc.blocks[0].ops.length, 1);
 * ```
 */
export function programGuard<T>(program: Program, build: () => T): T {
  return program.guard(build);
}
