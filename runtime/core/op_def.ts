/**
 * The operator table's entry type. Every op is one `OpDef`: its slots, its
 * attribute schema, how it infers output types, and how it prepares its run
 * function. The builder, the validator, the printer and the executor all
 * read these defs; nothing else lists slots or attributes.
 *
 * @module
 */
import type { Kernels } from "../../kernels/device.ts";
import type { DType } from "../../kernels/dtype.ts";
import type { OpRun, PrepareContext, ResumableRun } from "./prepare_context.ts";

/** What a variable holds, as far as a slot cares. */
export type VarKind =
  | "tensor"
  | "channel"
  | "array"
  | "raw"
  | "step_scopes"
  | "any";

/** One input or output slot of an op. */
export interface SlotSpec {
  /** What the variables in the slot must hold. */
  readonly kind: VarKind;
  /** The slot may be left out. */
  readonly optional: boolean;
  /** The slot takes any number of variables (`X...`). */
  readonly duplicable: boolean;
  /**
   * An output the op stores into in place (a tensor array's item) rather
   * than rebinding: analysis counts it as a read of the variable.
   */
  readonly inPlace: boolean;
  /**
   * An input the op only reads during its call: it keeps no reference to
   * the value (nor its storage) once the call returns, and no output of the
   * op shares it. Preparation lets a variable seen only through such slots
   * be changed in place by the op that made its value (runtime/exec/
   * private_variables.ts).
   */
  readonly transient: boolean;
  /**
   * An output the op binds to the value of this input slot itself (`print`'s
   * Out is its In), so the two variables then hold one value.
   */
  readonly aliasOf: string | undefined;
}

/** Options of the `slot` constructors. */
export interface SlotOptions {
  /** The slot may be left out. @default {false} */
  optional?: boolean;
  /** The slot takes any number of variables. @default {false} */
  duplicable?: boolean;
  /** The op stores into the object the output holds. @default {false} */
  inPlace?: boolean;
  /** The op keeps nothing of the input past its call. @default {false} */
  transient?: boolean;
  /** The output is bound to this input slot's value. @default {undefined} */
  aliasOf?: string;
}

function makeSlot(kind: VarKind, options: SlotOptions = {}): SlotSpec {
  return {
    kind,
    optional: options.optional ?? false,
    duplicable: options.duplicable ?? false,
    inPlace: options.inPlace ?? false,
    transient: options.transient ?? false,
    aliasOf: options.aliasOf,
  };
}

/**
 * Slot constructors, one per variable kind.
 *
 * @example Usage
 * ```ts
 * import { slot } from "./op_def.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(slot.tensor({ duplicable: true }).duplicable, true);
 * assertEquals(slot.channel().kind, "channel");
 * ```
 */
export const slot: Readonly<
  Record<VarKind, (options?: SlotOptions) => SlotSpec>
> = {
  tensor: (options) => makeSlot("tensor", options),
  channel: (options) => makeSlot("channel", options),
  array: (options) => makeSlot("array", options),
  raw: (options) => makeSlot("raw", options),
  step_scopes: (options) => makeSlot("step_scopes", options),
  any: (options) => makeSlot("any", options),
};

/** The JS value of each attribute kind, once read from an `OpDesc.Attr`. */
export interface AttrValueOf {
  /** `INT`: a 32-bit integer. */
  int: number;
  /** `FLOAT`: a float32. */
  float: number;
  /** `STRING`. */
  string: string;
  /** `INTS`. */
  ints: number[];
  /** `FLOATS`. */
  floats: number[];
  /** `STRINGS`. */
  strings: string[];
  /** `BOOLEAN`. */
  bool: boolean;
  /** `BOOLEANS`. */
  bools: boolean[];
  /** `BLOCK`: a block index. */
  block: number;
  /** `LONG`: a 64-bit integer, exact. */
  long: bigint;
  /** `BLOCKS`: block indices. */
  blocks: number[];
  /** `LONGS`. */
  longs: bigint[];
}

/** An attribute kind; each names one `AttrType`. */
export type AttrKind = keyof AttrValueOf;

/** One attribute of an op's schema. */
export interface AttrSpec<K extends AttrKind = AttrKind> {
  /** The kind of value. */
  readonly kind: K;
  /** The value when the attribute is absent; `undefined`: no default. */
  readonly default: AttrValueOf[K] | undefined;
  /** Absence is a validation error. */
  readonly required: boolean;
}

function makeAttr<K extends AttrKind>(
  kind: K,
  fallback: AttrValueOf[K] | undefined,
  required = false,
): AttrSpec<K> {
  return { kind, default: fallback, required };
}

/**
 * Attribute constructors. `attr.int(-1)` has default -1; `attr.int()` may be
 * absent with no default; `attr.required("block")` must be present.
 *
 * @example Usage
 * ```ts
 * import { attr } from "./op_def.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(attr.float(1).default, 1);
 * assertEquals(attr.required("block").required, true);
 * ```
 */
export const attr = {
  /** An INT attribute. */
  int: (d?: number): AttrSpec<"int"> => makeAttr("int", d),
  /** A FLOAT attribute. */
  float: (d?: number): AttrSpec<"float"> => makeAttr("float", d),
  /** A STRING attribute. */
  string: (d?: string): AttrSpec<"string"> => makeAttr("string", d),
  /** An INTS attribute. */
  ints: (d?: number[]): AttrSpec<"ints"> => makeAttr("ints", d),
  /** A FLOATS attribute. */
  floats: (d?: number[]): AttrSpec<"floats"> => makeAttr("floats", d),
  /** A STRINGS attribute. */
  strings: (d?: string[]): AttrSpec<"strings"> => makeAttr("strings", d),
  /** A BOOLEAN attribute. */
  bool: (d?: boolean): AttrSpec<"bool"> => makeAttr("bool", d),
  /** A BOOLEANS attribute. */
  bools: (d?: boolean[]): AttrSpec<"bools"> => makeAttr("bools", d),
  /** A LONG attribute (INT accepted). */
  long: (d?: bigint): AttrSpec<"long"> => makeAttr("long", d),
  /** A LONGS attribute (INTS accepted). */
  longs: (d?: bigint[]): AttrSpec<"longs"> => makeAttr("longs", d),
  /** A BLOCK attribute; always required. */
  block: (): AttrSpec<"block"> => makeAttr("block", undefined, true),
  /** A BLOCKS attribute; always required. */
  blocks: (): AttrSpec<"blocks"> => makeAttr("blocks", undefined, true),
  /** Any kind, required. */
  required: <K extends AttrKind>(kind: K): AttrSpec<K> =>
    makeAttr(kind, undefined, true),
} as const;

/** An attribute schema: attribute name to spec. */
export type AttrSchema = Readonly<Record<string, AttrSpec>>;

/** The attribute values an op's prepare sees: absent ones are `undefined`. */
export type AttrValues<A extends AttrSchema> = {
  readonly [N in keyof A]: A[N] extends AttrSpec<infer K>
    ? AttrValueOf[K] | (A[N]["default"] extends undefined ? undefined : never)
    : never;
};

/**
 * What is known statically of a variable: its kind, and for tensors the
 * dtype and shape (-1 for an unknown dimension; `undefined` shape: unknown
 * rank).
 */
export interface VarInfo {
  /** The variable's name. */
  readonly name: string;
  /** What it holds. */
  readonly kind: Exclude<VarKind, "any"> | "other";
  /** A tensor's element type, when known. */
  readonly dtype?: DType;
  /** A tensor's shape, when known. */
  readonly shape?: readonly number[];
}

/** The static type an op infers for one output variable. */
export interface InferredType {
  /** The element type, when known. */
  dtype?: DType;
  /** The shape, when known (-1 for unknown dimensions). */
  shape?: readonly number[];
}

/**
 * What an op's `infer` sees: its inputs' static types and its attributes.
 * `infer` returns the static type of each output slot's variables and
 * throws a `RangeError` or `TypeError` when the inputs cannot fit (a shape
 * mismatch known before running).
 */
export interface InferContext<A extends AttrSchema = AttrSchema> {
  /** The static types of the variables in an input slot, `[]` if absent. */
  inputs(slot: string): readonly VarInfo[];
  /** The attribute values, defaults applied. */
  readonly attrs: AttrValues<A>;
}

/**
 * How an op treats the rows (dim 0) of the data input it reads, for the
 * transpiler's split (runtime/transpile/row_separable.ts): row i of the
 * output must depend only on row i of the input and on parameters. An op
 * without a rule mixes rows, and a program that feeds it rows is not split.
 *
 * - `"elementwise"`: each output element is computed from the element of
 *   the input at its place.
 * - `"broadcast"`: elementwise on X and Y, aligned as attribute `axis`
 *   says: an operand that carries no rows is a parameter, which must
 *   broadcast along the rows.
 * - `"last_axis"`: along attribute `axis`; the rows stay apart when it is
 *   the last axis.
 * - {@linkcode LeftOperandRows}: a matrix product whose right operand is
 *   a parameter.
 *
 * @example Usage
 * ```ts
 * import type { RowRule } from "./op_def.ts";
 * import { OPS } from "../ops/mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const rule: RowRule | undefined = OPS.get("softmax")!.rows;
 * assertEquals(rule, "last_axis");
 * assertEquals(OPS.get("transpose")!.rows, undefined); // it mixes rows
 * ```
 */
export type RowRule<A extends AttrSchema = AttrSchema> =
  | "elementwise"
  | "broadcast"
  | "last_axis"
  | LeftOperandRows<A>;

/**
 * The row rule of a product `X × Y`: only X may carry the rows.
 *
 * @example Usage
 * ```ts
 * import type { LeftOperandRows } from "./op_def.ts";
 * import { OPS } from "../ops/mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const rule = OPS.get("matmul")!.rows as LeftOperandRows;
 * const attrs = { transpose_X: true, transpose_Y: false, alpha: 1 };
 * assertEquals(rule.mixesRows(attrs), "goes into a matmul that transposes it");
 * ```
 */
export interface LeftOperandRows<A extends AttrSchema = AttrSchema> {
  /**
   * Why these attribute values mix the rows of X, as the end of a sentence
   * that names X ("goes into a matmul that transposes it"), or
   * `undefined` when they keep them apart.
   */
  mixesRows(attrs: AttrValues<A>): string | undefined;
}

/**
 * One device kernel an op's run may call: its name in `Kernels`
 * (kernels/device.ts), and for a kernel that takes a kind first (`binary`,
 * `unary`, `reduce`, `activation`, …) the kinds the op passes.
 *
 * @example Usage
 * ```ts
 * import type { KernelUse } from "./op_def.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const uses: KernelUse[] = ["matmul", { kernel: "binary", kinds: ["add"] }];
 * assertEquals(uses.length, 2);
 * ```
 */
export type KernelUse = {
  [K in keyof Kernels]: Parameters<Kernels[K]>[0] extends
    infer Kind extends string
    ? { readonly kernel: K; readonly kinds: readonly Kind[] }
    : K;
}[keyof Kernels];

/**
 * What an op computes its tensors with, for where it runs
 * (runtime/ops/op_devices.ts): the device kernels its run may call, or
 * `"own"` for an op that computes its tensors in its own code, on the CPU
 * (no op does since `rnn` has its kernel). An op without one calls no kernel: it moves values, runs
 * blocks, or does I/O, on the host.
 */
export type OpKernels = readonly KernelUse[] | "own";

/** An op definition: the one place its slots, attributes and code live. */
export interface OpDef<A extends AttrSchema = AttrSchema> {
  /** The op type as programs spell it (`elementwise_add`). */
  readonly type: string;
  /** One line on what the op does, for `--help` and the dump. */
  readonly summary: string;
  /** Input slots by name. */
  readonly inputs: Readonly<Record<string, SlotSpec>>;
  /** Output slots by name. */
  readonly outputs: Readonly<Record<string, SlotSpec>>;
  /** The attribute schema. */
  readonly attrs: A;
  /**
   * Static output types per output slot (a list for duplicable slots).
   * Absent: nothing known. Used by the builder to declare outputs and by
   * the validator to find shape mismatches before running.
   */
  infer?(
    ctx: InferContext<A>,
  ): Readonly<Record<string, InferredType | readonly InferredType[]>>;
  /** How the op treats the data input's rows; absent: it mixes them. */
  readonly rows?: RowRule<A>;
  /**
   * Whether a run with workers starts a pool for this op: `"product"`, a
   * matrix product, which splits over the workers when its work (size(X)
   * times Y's last dim, from the declared shapes) is large enough. Absent:
   * the op alone never makes a pool worth starting.
   */
  readonly poolWorthy?: "product";
  /**
   * The input slots of a product's left and right matrices, which a
   * {@linkcode LeftOperandRows} rule and `poolWorthy` read (the rows go in
   * on the left; the work is size(left) times the right's last dim).
   * Absent: `X` and `Y`.
   */
  readonly productSlots?: readonly [left: string, right: string];
  /**
   * The device kernels the op's run may call (see {@linkcode OpKernels});
   * absent: none, a host op. Which devices run the op is derived from
   * these and the WebGPU kernel table (runtime/ops/op_devices.ts); a test
   * runs the op cases and the real models on a recording device and fails
   * when an op calls a kernel it does not declare.
   */
  readonly kernels?: OpKernels;
  /**
   * Whether the op runs its sub-blocks on its own thread, within its call
   * or its resumption (`while`, `conditional_block`), and nowhere else.
   * Absent: the sub-blocks may run on other threads or workers (`go`).
   */
  readonly inlineBlocks?: true;
  /**
   * Why a call of the op with these attributes is not a pure function of
   * its inputs and attributes (it draws from the run's random stream,
   * prints, talks to a channel, a timer, a file or the network), as the end
   * of a sentence ("draws random numbers"); `undefined`, or the field
   * absent, when it is pure. A transpiled master retries a worker's piece
   * on another worker only when every op the piece runs is pure
   * (runtime/transpile/pure_piece.ts).
   */
  impure?(attrs: AttrValues<A>): string | undefined;
  /** Extra static checks of attribute values; throws an `Error` saying what is wrong. */
  check?(attrs: AttrValues<A>, ctx: CheckContext): void;
  /**
   * The variables the op names outside its slots (a `select` case's channel
   * and value), for analysis. Absent: none.
   */
  namedVariables?(attrs: AttrValues<A>): NamedVariables;
  /**
   * Resolves variables and kernels once; returns the op's run function, or
   * a run and a resume for an op that suspends for a value.
   */
  prepare(ctx: PrepareContext<A>): OpRun | ResumableRun;
}

/** Variables an op reads and rebinds outside its slots. */
export interface NamedVariables {
  /** Variables the op reads. */
  readonly reads: readonly string[];
  /** Variables the op binds to new values. */
  readonly writes: readonly string[];
}

/** What `check` may ask of the program around the op. */
export interface CheckContext {
  /** The static info of a variable visible from the op's block. */
  lookup(name: string): VarInfo | undefined;
  /** The static info of a variable that block `block` itself declares. */
  declaredIn(block: number, name: string): VarInfo | undefined;
  /** How many blocks the program has. */
  readonly blockCount: number;
  /** Whether the op names a variable in input slot `slot`. */
  hasInput(slot: string): boolean;
}

/**
 * Makes an op definition, checking the definition itself: slot names are
 * unique across inputs and outputs' own tables, and a required attribute has
 * no default.
 *
 * @param def The definition.
 * @returns The same definition, frozen.
 *
 * @example Usage
 * ```ts
 * import { attr, defineOp, slot } from "./op_def.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const noop = defineOp({
 *   type: "noop",
 *   summary: "does nothing",
 *   inputs: { X: slot.any({ optional: true }) },
 *   outputs: {},
 *   attrs: { note: attr.string("") },
 *   prepare: () => () => {},
 * });
 * assertEquals(noop.type, "noop");
 * ```
 */
export function defineOp<const A extends AttrSchema>(def: OpDef<A>): OpDef<A> {
  if (!/^[a-z][a-z0-9_]*$/.test(def.type)) {
    throw new TypeError(`define op: bad op type "${def.type}"`);
  }
  for (const [name, spec] of Object.entries(def.attrs)) {
    if (spec.required && spec.default !== undefined) {
      throw new TypeError(
        `define op ${def.type}: required attribute "${name}" has a default`,
      );
    }
  }
  return Object.freeze(def);
}

const BLOCK_ATTRS = new WeakMap<OpDef, readonly string[]>();

/**
 * The names of an op type's `block` and `blocks` attributes (the sub-blocks
 * it may run), in schema order, listed once per definition: the validator
 * and the preparer ask for every op of a long program.
 *
 * @param def The op type.
 * @returns Its block attributes' names; empty for an op without any.
 *
 * @example Usage
 * ```ts
 * import { attr, blockAttrNames, defineOp } from "./op_def.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const twice = defineOp({
 *   type: "twice",
 *   summary: "runs a block twice",
 *   inputs: {},
 *   outputs: {},
 *   attrs: { sub_block: attr.block(), times: attr.int(2) },
 *   prepare: () => () => {},
 * });
 * assertEquals(blockAttrNames(twice), ["sub_block"]);
 * ```
 */
export function blockAttrNames(def: OpDef): readonly string[] {
  let names = BLOCK_ATTRS.get(def);
  if (names === undefined) {
    names = Object.freeze(
      Object.entries(def.attrs)
        .filter(([, spec]) => spec.kind === "block" || spec.kind === "blocks")
        .map(([name]) => name),
    );
    BLOCK_ATTRS.set(def, names);
  }
  return names;
}
