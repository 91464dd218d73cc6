/**
 * The readable text form of a program (`deno run -A mod.ts dump p.pb`):
 * each block with its parent, its variables with kinds, dtypes and shapes,
 * and its ops with slots and attributes in their definitions' order. The
 * header of a `go` or `parallel_for` block says where its threads may run
 * (`runtime/pool/placement.ts`): `go, movable`, or
 * `parallel_for, pinned by "total" (written by the block)`.
 *
 * @module
 */
import type {
  BlockDesc,
  OpDesc,
  OpDesc_Attr,
  ProgramDesc,
  VarDesc,
} from "../gen/rill/v1/framework_pb.ts";
import { AttrType } from "../gen/rill/v1/framework_pb.ts";
import { formatTensor } from "../kernels/tensor_format.ts";
import { Tensor } from "../kernels/tensor.ts";
import { typeName } from "./dtype_codes.ts";
import { InternalError, printable } from "./errors.ts";
import { OPS } from "./ops/mod.ts";
import {
  type BlockPlacement,
  placeProgram,
  type ProgramPlacement,
} from "./pool/placement.ts";
import { varInfoOf } from "./var_info.ts";

/** Attributes whose INT value is a `VarType.Type`; shown by name. */
const DTYPE_ATTRS: ReadonlySet<string> = new Set([
  "dtype",
  "out_dtype",
  "in_dtype",
  "data_type",
]);

/**
 * Renders a program as readable text.
 *
 * @param program The program.
 * @returns The text, one line per block header, variable and op.
 *
 * @example Usage
 * ```ts
 * import { dumpProgram, fillConstant, Program } from "../mod.ts";
 * import { assertStringIncludes } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => fillConstant({ shape: [2], value: 1 }));
 * assertStringIncludes(dumpProgram(p.desc), "fill_constant() -> Out=[fill_constant.out_0]");
 * ```
 *
 * @example A goroutine's placement in its block's header
 * ```ts
 * import { dumpProgram, fillConstant, go, makeChannel, Program, send } from "../mod.ts";
 * import { assertStringIncludes } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const ch = makeChannel({ capacity: 1 });
 *   go(() => send(ch, fillConstant({ shape: [1], value: 1 })));
 * });
 * assertStringIncludes(dumpProgram(p.desc), "block 1 (parent 0): go, movable\n");
 * ```
 */
export function dumpProgram(program: ProgramDesc): string {
  const placement = placementOf(program);
  return program.blocks.map((block, i) =>
    dumpBlock(block, placement?.blocks.get(i))
  ).join("\n");
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

function dumpBlock(block: BlockDesc, placement?: BlockPlacement): string {
  let header = `block ${block.idx} (parent ${block.parentIdx}):`;
  if (placement !== undefined) header += ` ${dumpPlacement(placement)}`;
  const lines = [header];
  for (const v of block.vars) lines.push(`  var ${dumpVar(v)}`);
  block.ops.forEach((op, i) => lines.push(`  op ${i}: ${dumpOp(op)}`));
  return lines.join("\n") + "\n";
}

function dumpPlacement(p: BlockPlacement): string {
  if (p.pinnedBy === undefined) return `${p.op.type}, movable`;
  const { variable, reason } = p.pinnedBy;
  return `${p.op.type}, pinned by ${quoted(variable)} (${printable(reason)})`;
}

function dumpVar(v: VarDesc): string {
  const info = varInfoOf(v);
  const parts = [shownName(v.name), typeName(v.type?.type ?? 7)];
  if (info.dtype !== undefined) parts.push(info.dtype);
  if (info.shape !== undefined) parts.push(`[${info.shape.join(", ")}]`);
  if (v.type?.channel !== undefined) {
    parts.push(`capacity ${v.type.channel.capacity}`);
  }
  if (v.persistable) parts.push("persistable");
  return parts.join(" ");
}

function dumpOp(op: OpDesc): string {
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
  const attrNames = Object.keys(def?.attrs ?? {});
  const attrs = [...op.attrs]
    .sort((a, b) => attrNames.indexOf(a.name) - attrNames.indexOf(b.name))
    .map((a) => `${shownName(a.name)}=${dumpAttr(a)}`);
  let text = `${shownName(op.type)}(${inputs})`;
  if (outputs !== "") text += ` -> ${outputs}`;
  if (attrs.length > 0) text += ` {${attrs.join(", ")}}`;
  return text;
}

function dumpAttr(a: OpDesc_Attr): string {
  const float32 = (f: number) => formatTensor(Tensor.scalar(f, "float32"));
  switch (a.type) {
    case AttrType.INT:
      return DTYPE_ATTRS.has(a.name) ? `${typeName(a.i)}(${a.i})` : String(a.i);
    case AttrType.FLOAT:
      return float32(a.f);
    case AttrType.STRING:
      return quoted(a.s);
    case AttrType.INTS:
      return `[${a.ints.join(", ")}]`;
    case AttrType.FLOATS:
      return `[${a.floats.map(float32).join(", ")}]`;
    case AttrType.STRINGS:
      return `[${a.strings.map(quoted).join(", ")}]`;
    case AttrType.BOOLEAN:
      return String(a.b);
    case AttrType.BOOLEANS:
      return `[${a.bools.join(", ")}]`;
    case AttrType.BLOCK:
      return `block ${a.blockIdx}`;
    case AttrType.LONG:
      return String(a.l);
    case AttrType.BLOCKS:
      return `[${a.blocksIdx.map((b) => `block ${b}`).join(", ")}]`;
    case AttrType.LONGS:
      return `[${a.longs.join(", ")}]`;
  }
  return `?(${a.type})`;
}
