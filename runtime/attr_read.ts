/**
 * Reads an op's attributes out of its `OpDesc` by the op's schema. The
 * value is taken from the field the attribute's `type` names; an INT is
 * accepted where a LONG is expected and the reverse (design.md §2).
 *
 * @module
 */
import { AttrType, type OpDesc_Attr } from "../gen/rill/v1/framework_pb.ts";
import type { AttrKind, AttrSchema, AttrSpec, AttrValueOf } from "./op_def.ts";

/**
 * The `AttrType` each attribute kind is stored as.
 *
 * @example Usage
 * ```ts
 * import { ATTR_TYPE_OF_KIND } from "./attr_read.ts";
 * import { AttrType } from "../gen/rill/v1/framework_pb.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(ATTR_TYPE_OF_KIND.longs, AttrType.LONGS);
 * ```
 */
export const ATTR_TYPE_OF_KIND: Readonly<Record<AttrKind, AttrType>> = {
  int: AttrType.INT,
  float: AttrType.FLOAT,
  string: AttrType.STRING,
  ints: AttrType.INTS,
  floats: AttrType.FLOATS,
  strings: AttrType.STRINGS,
  bool: AttrType.BOOLEAN,
  bools: AttrType.BOOLEANS,
  block: AttrType.BLOCK,
  long: AttrType.LONG,
  blocks: AttrType.BLOCKS,
  longs: AttrType.LONGS,
};

/**
 * Attribute names any Fluid op may carry that Rill reads from no op; they
 * are accepted and ignored so that programs saved by Fluid still load.
 */
const FLUID_COMMON_ATTRS: ReadonlySet<string> = new Set([
  "op_role",
  "op_role_var",
  "op_namescope",
  "op_callstack",
  "op_device",
  "use_mkldnn",
  "use_cudnn",
  "is_test",
  "with_quant_attr",
]);

/**
 * Why an attribute is wrong; `attr` names it, as data.
 *
 * @example Usage
 * ```ts
 * import { AttrError } from "./attr_read.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const e = new AttrError("axis", "expected INT, got FLOAT");
 * assertEquals([e.attr, e.message], ["axis", 'attribute "axis": expected INT, got FLOAT']);
 * ```
 */
export class AttrError extends Error {
  /** The attribute's name. */
  readonly attr: string;

  /**
   * Makes the error.
   *
   * @param attr The attribute's name.
   * @param detail What is wrong with it.
   */
  constructor(attr: string, detail: string) {
    super(`attribute "${attr}": ${detail}`);
    this.name = "AttrError";
    this.attr = attr;
  }
}

/**
 * Reads every attribute of the schema from `attrs`, applying defaults.
 * Throws an `AttrError` for a wrong type, a missing required attribute, a
 * duplicate or an unknown attribute.
 *
 * @param schema The op's attribute schema.
 * @param attrs The op's `OpDesc.attrs`.
 * @returns The values by name; absent attributes without default are
 * `undefined`.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { AttrType, OpDesc_AttrSchema } from "../gen/rill/v1/framework_pb.ts";
 * import { readAttrs } from "./attr_read.ts";
 * import { attr } from "./op_def.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const a = create(OpDesc_AttrSchema, { name: "shape", type: AttrType.INTS, ints: [2, 3] });
 * const values = readAttrs({ shape: attr.longs(), axis: attr.int(-1) }, [a]);
 * assertEquals(values, { shape: [2n, 3n], axis: -1 });
 * ```
 */
export function readAttrs(
  schema: AttrSchema,
  attrs: readonly OpDesc_Attr[],
): Record<string, unknown> {
  for (let i = 0; i < attrs.length; i++) {
    const name = attrs[i].name;
    if (!(name in schema) && !FLUID_COMMON_ATTRS.has(name)) {
      throw new AttrError(name, "unknown attribute");
    }
    // An op has a handful of attributes: a scan beats building a map.
    for (let j = 0; j < i; j++) {
      if (attrs[j].name === name) throw new AttrError(name, "given twice");
    }
  }
  const values: Record<string, unknown> = {};
  for (const [name, spec] of entriesOf(schema)) {
    let a: OpDesc_Attr | undefined;
    for (let i = 0; i < attrs.length && a === undefined; i++) {
      if (attrs[i].name === name) a = attrs[i];
    }
    if (a === undefined) {
      if (spec.required) throw new AttrError(name, "required but absent");
      values[name] = spec.default;
    } else {
      values[name] = readOne(name, spec.kind, a);
    }
  }
  return values;
}

const ENTRIES = new WeakMap<AttrSchema, [string, AttrSpec][]>();

// A schema's entries, listed once: every op of a type reads the same schema.
function entriesOf(schema: AttrSchema): [string, AttrSpec][] {
  let entries = ENTRIES.get(schema);
  if (entries === undefined) {
    ENTRIES.set(schema, entries = Object.entries(schema));
  }
  return entries;
}

function readOne<K extends AttrKind>(
  name: string,
  kind: K,
  a: OpDesc_Attr,
): AttrValueOf[K] {
  const value = valueOf(kind, a);
  if (value === undefined) {
    throw new AttrError(
      name,
      `expected ${AttrType[ATTR_TYPE_OF_KIND[kind]]}, got ${
        AttrType[a.type] ?? a.type
      }`,
    );
  }
  return value as AttrValueOf[K];
}

// The INT/LONG pairs convert; everything else must match exactly.
function valueOf(kind: AttrKind, a: OpDesc_Attr): unknown {
  switch (a.type) {
    case AttrType.INT:
      return kind === "int" ? a.i : kind === "long" ? BigInt(a.i) : undefined;
    case AttrType.LONG:
      if (kind === "long") return a.l;
      return kind === "int" ? int32Of(a.l, a.name) : undefined;
    case AttrType.INTS:
      if (kind === "ints") return [...a.ints];
      return kind === "longs" ? a.ints.map(BigInt) : undefined;
    case AttrType.LONGS:
      if (kind === "longs") return [...a.longs];
      return kind === "ints"
        ? a.longs.map((l) => int32Of(l, a.name))
        : undefined;
    case AttrType.FLOAT:
      return kind === "float" ? a.f : undefined;
    case AttrType.FLOATS:
      return kind === "floats" ? [...a.floats] : undefined;
    case AttrType.STRING:
      return kind === "string" ? a.s : undefined;
    case AttrType.STRINGS:
      return kind === "strings" ? [...a.strings] : undefined;
    case AttrType.BOOLEAN:
      return kind === "bool" ? a.b : undefined;
    case AttrType.BOOLEANS:
      return kind === "bools" ? [...a.bools] : undefined;
    case AttrType.BLOCK:
      return kind === "block" ? a.blockIdx : undefined;
    case AttrType.BLOCKS:
      return kind === "blocks" ? [...a.blocksIdx] : undefined;
  }
  return undefined;
}

function int32Of(l: bigint, name: string): number {
  if (l < -2147483648n || l > 2147483647n) {
    throw new AttrError(name, `value ${l} does not fit an INT`);
  }
  return Number(l);
}
