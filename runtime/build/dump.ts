/**
 * The readable text form of a program (`deno run -A mod.ts dump p.pb`):
 * each block with its parent, its variables with kinds, dtypes and shapes,
 * and its ops with slots and attributes in their definitions' order. The
 * header of a `go` or `parallel_for` block says where its threads may run
 * (`runtime/check/placement.ts`): `go, movable`, or
 * `parallel_for, pinned by "total" (written by the block)`.
 *
 * Programs saved by Paddle carry bookkeeping and extra attributes on every
 * op (its role, name scope, a Python call stack of dozens of lines, kernel
 * and quantization hints: `PADDLE_EXTRA_ATTRS`) and flags on variables
 * (`stop_gradient`, ...). The dump leaves out those at a neutral value
 * unless asked (`allAttrs`), shows any other value, and says in a last
 * line what it left out. Every value
 * is shortened to about `MAX_VALUE_CHARS` characters, with or without
 * `allAttrs`, so that each op stays one line of bounded length.
 *
 * @module
 */
import { isFieldSet } from "@bufbuild/protobuf";
import type {
  BlockDesc,
  OpDesc,
  OpDesc_Attr,
  ProgramDesc,
  Scalar,
  VarDesc,
  VarDesc_Attr,
} from "../../gen/rill/v1/framework_pb.ts";
import {
  AttrType,
  Scalar_Type,
  VarType_ChannelDescSchema,
  VarType_Type,
} from "../../gen/rill/v1/framework_pb.ts";
import { formatFloat } from "../../kernels/tensor_format.ts";
import { judgeExtraAttr } from "../core/judge_extra_attr.ts";
import { typeName } from "../core/dtype_codes.ts";
import { InternalError, printable } from "../core/errors.ts";
import type { OpDef } from "../core/op_def.ts";
import { OPS } from "../ops/mod.ts";
import {
  type BlockPlacement,
  placeProgram,
  type ProgramPlacement,
} from "../check/placement.ts";
import { varInfoOf } from "../core/var_info.ts";

/** Attributes whose INT value is a `VarType.Type`; shown by name. */
const DTYPE_ATTRS: ReadonlySet<string> = new Set([
  "dtype",
  "out_dtype",
  "in_dtype",
  "data_type",
]);

/**
 * The most characters one value takes in the dump (an attribute's, or one
 * string of a list); a longer one is cut and says how long it was. Enough
 * for a shape, a dtype list or a few `select` cases in full; a 40-line call
 * stack or a weight list shows its start.
 */
export const MAX_VALUE_CHARS = 160;

/** Options of `dumpProgram`. */
export interface DumpOptions {
  /**
   * Show Paddle's bookkeeping: the extra attributes of `PADDLE_EXTRA_ATTRS`
   * at their neutral values (`is_test` and `data_format` are shown anyway
   * on ops Rill lacks), ops' `is_target`, and variables' `is_parameter`,
   * `stop_gradient`, `need_check_feed` and attributes.
   * @default {false}
   */
  allAttrs?: boolean;
}

/**
 * Renders a program as readable text.
 *
 * @param program The program.
 * @param options What to show.
 * @returns The text, one line per block header, variable and op, then a
 * line naming the hidden attributes when some were hidden.
 *
 * @example Usage
 * ```ts
 * import { dumpProgram, fillConstant, Program } from "../../mod.ts";
 * import { assertStringIncludes } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => fillConstant({ shape: [2], value: 1 }));
 * assertStringIncludes(dumpProgram(p.desc), "fill_constant() -> Out=[fill_constant.out_0]");
 * ```
 *
 * @example A goroutine's placement in its block's header
 * ```ts
 * import { dumpProgram, fillConstant, go, makeChannel, Program, send } from "../../mod.ts";
 * import { assertStringIncludes } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const ch = makeChannel({ capacity: 1 });
 *   go(() => send(ch, fillConstant({ shape: [1], value: 1 })));
 * });
 * assertStringIncludes(dumpProgram(p.desc), "block 1 (parent 0): go, movable\n");
 * ```
 *
 * @example Paddle's bookkeeping, hidden unless asked
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { AttrType, ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { dumpProgram } from "./dump.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const program = create(ProgramDescSchema, {
 *   blocks: [{
 *     idx: 0,
 *     parentIdx: -1,
 *     ops: [{
 *       type: "relu",
 *       attrs: [{ name: "op_role", type: AttrType.INT, i: 0 }],
 *     }],
 *   }],
 * });
 * assertEquals(dumpProgram(program).split("\n").slice(1, 4), [
 *   "  op 0: relu()",
 *   "",
 *   "hidden: op_role on 1 op (--all-attrs shows them)",
 * ]);
 * assertEquals(
 *   dumpProgram(program, { allAttrs: true }).split("\n")[1],
 *   "  op 0: relu() {op_role=0}",
 * );
 * ```
 */
export function dumpProgram(
  program: ProgramDesc,
  options: DumpOptions = {},
): string {
  const placement = placementOf(program);
  const hidden = new HiddenAttrs(options.allAttrs ?? false);
  const text = program.blocks.map((block, i) =>
    dumpBlock(block, hidden, placement?.blocks.get(i))
  ).join("\n");
  const note = hidden.note();
  return note === undefined ? text : `${text}\n${note}\n`;
}

/** Which attributes the dump leaves out, and what it left out. */
class HiddenAttrs {
  readonly showAll: boolean;
  /** Hidden attribute names, in order of first appearance. */
  readonly #names = new Set<string>();
  #ops = 0;

  constructor(showAll: boolean) {
    this.showAll = showAll;
  }

  /**
   * Whether to leave `a` out of an op of `def` (undefined: an op Rill
   * lacks): an extra attribute at a neutral value, unless the op's schema
   * declares it; one that some ops declare (`is_test`, semantic on
   * `dropout` and `batch_norm`) only on ops known to ignore it.
   */
  hides(a: OpDesc_Attr, def: OpDef | undefined): boolean {
    if (this.showAll || (def !== undefined && a.name in def.attrs)) {
      return false;
    }
    const verdict = judgeExtraAttr(a);
    return verdict.kind === "neutral" &&
      (def !== undefined || !verdict.rule.meaningfulOnSomeOps);
  }

  /** Records that an op had `names` hidden. */
  record(names: readonly string[]): void {
    if (names.length === 0) return;
    this.#ops++;
    for (const name of names) this.#names.add(name);
  }

  /** The dump's last line when something was hidden. */
  note(): string | undefined {
    if (this.#ops === 0) return undefined;
    const ops = this.#ops === 1 ? "1 op" : `${this.#ops} ops`;
    return `hidden: ${[...this.#names].join(", ")} on ${ops}` +
      " (--all-attrs shows them)";
  }
}

// The dump prints programs that do not validate too; when the placement of
// one cannot be decided (an op's attributes cannot be read), its headers
// say nothing of placement. A Rill bug still surfaces.
function placementOf(program: ProgramDesc): ProgramPlacement | undefined {
  try {
    return placeProgram(program);
  } catch (e) {
    if (e instanceof InternalError) throw e;
    return undefined;
  }
}

// A name prints as it is when plain; anything else (empty, spaces, commas,
// brackets, quotes, control characters) prints quoted, so a line of the dump
// reads one way only.
const PLAIN_NAME = /^[\p{L}\p{N}_.@/:-]+$/u;

function shownName(name: string): string {
  return PLAIN_NAME.test(name) ? name : quoted(name);
}

function quoted(text: string): string {
  return `"${printable(text.replace(/["\\]/g, "\\$&"))}"`;
}

function dumpBlock(
  block: BlockDesc,
  hidden: HiddenAttrs,
  placement?: BlockPlacement,
): string {
  let header = `block ${block.idx} (parent ${block.parentIdx}):`;
  if (placement !== undefined) header += ` ${dumpPlacement(placement)}`;
  const lines = [header];
  for (const v of block.vars) {
    lines.push(`  var ${dumpVar(v, hidden.showAll)}`);
  }
  block.ops.forEach((op, i) => lines.push(`  op ${i}: ${dumpOp(op, hidden)}`));
  return lines.join("\n") + "\n";
}

function dumpPlacement(p: BlockPlacement): string {
  if (p.pinnedBy === undefined) return `${p.op.type}, movable`;
  const { variable, reason } = p.pinnedBy;
  return `${p.op.type}, pinned by ${quoted(variable)} (${printable(reason)})`;
}

function dumpVar(v: VarDesc, showAll: boolean): string {
  const info = varInfoOf(v);
  const parts = [shownName(v.name), typeName(v.type?.type ?? 7)];
  // An element type Rill has no tensors of (BF16) still shows, by name.
  const declared = v.type?.lodTensor?.tensor ?? v.type?.selectedRows;
  if (info.dtype !== undefined) parts.push(info.dtype);
  else if (declared !== undefined) parts.push(typeName(declared.dataType));
  else if (info.kind === "channel") parts.push(untypedChannelElement(v));
  if (info.shape !== undefined) parts.push(`[${info.shape.join(", ")}]`);
  if (v.type?.channel !== undefined) {
    parts.push(`capacity ${v.type.channel.capacity}`);
  }
  if (v.persistable) parts.push("persistable");
  if (showAll) {
    if (v.isParameter) parts.push("is_parameter");
    if (v.stopGradient) parts.push("stop_gradient");
    if (v.needCheckFeed) parts.push("need_check_feed");
    if (v.attrs.length > 0) {
      const attrs = v.attrs.map((a) => `${shownName(a.name)}=${varAttr(a)}`);
      parts.push(`{${attrs.join(", ")}}`);
    }
  }
  return parts.join(" ");
}

// A channel whose declaration names no element type Rill has: `any` for
// a channel of any tensor, else the type's name (BF16).
function untypedChannelElement(v: VarDesc): string {
  const c = v.type?.channel;
  const code = c !== undefined &&
      isFieldSet(c, VarType_ChannelDescSchema.field.dataType)
    ? c.dataType
    : VarType_Type.LOD_TENSOR;
  return code === VarType_Type.LOD_TENSOR ? "any" : typeName(code);
}

function varAttr(a: VarDesc_Attr): string {
  switch (a.type) {
    case AttrType.INT:
      return String(a.i);
    case AttrType.STRING:
      return shownString(a.s);
    case AttrType.INTS:
      return shownList(a.ints.length, (i) => String(a.ints[i]));
  }
  return `?(${a.type})`;
}

/** The op's attributes in its definition's order, then any others. */
function orderedAttrs(op: OpDesc, def: OpDef | undefined): OpDesc_Attr[] {
  const names = Object.keys(def?.attrs ?? {});
  const rank = (a: OpDesc_Attr) => {
    const i = names.indexOf(a.name);
    return i < 0 ? names.length : i;
  };
  return [...op.attrs].sort((a, b) => rank(a) - rank(b));
}

function dumpOp(op: OpDesc, hidden: HiddenAttrs): string {
  const def = OPS.get(op.type);
  const order =
    (names: string[]) => (a: { parameter: string }, b: { parameter: string }) =>
      names.indexOf(a.parameter) - names.indexOf(b.parameter);
  const slots = (vars: OpDesc["inputs"], names: string[]) =>
    [...vars].sort(order(names)).map((v) =>
      `${shownName(v.parameter)}=[${v.arguments.map(shownName).join(", ")}]`
    )
      .join(", ");
  const inputs = slots(op.inputs, Object.keys(def?.inputs ?? {}));
  const outputs = slots(op.outputs, Object.keys(def?.outputs ?? {}));
  const attrs: string[] = [];
  const left: string[] = [];
  for (const a of orderedAttrs(op, def)) {
    if (hidden.hides(a, def)) left.push(a.name);
    else attrs.push(`${shownName(a.name)}=${dumpAttr(a)}`);
  }
  hidden.record(left);
  let text = `${shownName(op.type)}(${inputs})`;
  if (outputs !== "") text += ` -> ${outputs}`;
  if (attrs.length > 0) text += ` {${attrs.join(", ")}}`;
  if (hidden.showAll && op.isTarget) text += " is_target";
  return text;
}

function dumpAttr(a: OpDesc_Attr): string {
  const float32 = (f: number) => formatFloat(Math.fround(f), "float32");
  const float64 = (f: number) => formatFloat(f, "float64");
  switch (a.type) {
    case AttrType.INT:
      return DTYPE_ATTRS.has(a.name) ? `${typeName(a.i)}(${a.i})` : String(a.i);
    case AttrType.FLOAT:
      return float32(a.f);
    case AttrType.STRING:
      return shownString(a.s);
    case AttrType.INTS:
      return shownList(a.ints.length, (i) => String(a.ints[i]));
    case AttrType.FLOATS:
      return shownList(a.floats.length, (i) => float32(a.floats[i]));
    case AttrType.STRINGS:
      return shownList(a.strings.length, (i) => shownString(a.strings[i]));
    case AttrType.BOOLEAN:
      return String(a.b);
    case AttrType.BOOLEANS:
      return shownList(a.bools.length, (i) => String(a.bools[i]));
    case AttrType.BLOCK:
      return `block ${a.blockIdx}`;
    case AttrType.LONG:
      return String(a.l);
    case AttrType.BLOCKS:
      return shownList(a.blocksIdx.length, (i) => `block ${a.blocksIdx[i]}`);
    case AttrType.LONGS:
      return shownList(a.longs.length, (i) => String(a.longs[i]));
    case AttrType.FLOAT64S:
      return shownList(a.float64s.length, (i) => float64(a.float64s[i]));
    case AttrType.VAR:
      return `var(${shownName(a.varName)})`;
    case AttrType.VARS:
      return shownList(
        a.varsName.length,
        (i) => `var(${shownName(a.varsName[i])})`,
      );
    case AttrType.FLOAT64:
      return float64(a.float64);
    case AttrType.SCALAR:
      return a.scalar === undefined ? "?(SCALAR)" : shownScalar(a.scalar);
    case AttrType.SCALARS:
      return shownList(a.scalars.length, (i) => shownScalar(a.scalars[i]));
  }
  return `?(${a.type})`;
}

/** A Scalar as its value reads: `true`, `-3`, `0.5`, `1-2i`. */
function shownScalar(s: Scalar): string {
  const float64 = (f: number) => formatFloat(f, "float64");
  switch (s.type) {
    case Scalar_Type.BOOLEAN:
      return String(s.b);
    case Scalar_Type.LONG:
      return String(s.i);
    case Scalar_Type.FLOAT64:
      return float64(s.r);
    case Scalar_Type.COMPLEX128: {
      const re = s.c?.r ?? 0;
      const im = s.c?.i ?? 0;
      const sign = im < 0 || Object.is(im, -0) ? "-" : "+";
      return `${float64(re)}${sign}${float64(Math.abs(im))}i`;
    }
  }
  return `?(${s.type})`;
}

/** A string quoted, cut to `MAX_VALUE_CHARS` with its length said. */
function shownString(text: string): string {
  if (text.length <= MAX_VALUE_CHARS) return quoted(text);
  return `${quoted(text.slice(0, MAX_VALUE_CHARS))}… (${text.length} chars)`;
}

/**
 * `[a, b, c]` from `count` items made by `item`, stopping once the text
 * passes `MAX_VALUE_CHARS`: `[a, b, … 38 more]`. At least one item shows.
 */
function shownList(count: number, item: (i: number) => string): string {
  let text = "[";
  for (let i = 0; i < count; i++) {
    const next = item(i);
    if (i > 0 && text.length + next.length > MAX_VALUE_CHARS) {
      return `${text}, … ${count - i} more]`;
    }
    text += (i > 0 ? ", " : "") + next;
  }
  return text + "]";
}
