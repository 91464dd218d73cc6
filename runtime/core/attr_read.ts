/**
 * Reads an op's attributes out of its `OpDesc` by the op's schema. The
 * value is taken from the field the attribute's `type` names; an INT is
 * accepted where a LONG is expected and the reverse (docs/architecture.md §2).
 *
 * Paddle 1.x stored some flags as INT (`is_test` on `batch_norm` and the
 * activations): an INT 0 or 1 is read where a BOOLEAN is expected, any
 * other INT is the wrong type there.
 *
 * Paddle 2.x stores some attributes in types Rill's schemas do not name;
 * they are read where they convert without loss of meaning:
 *   FLOAT64 and FLOAT64S where a FLOAT or FLOATS is expected, rounded to
 *   float32 as a FLOAT holds it;
 *   a SCALAR holding a LONG where an INT, LONG or FLOAT is expected, one
 *   holding a FLOAT64 where a FLOAT is, one holding a BOOLEAN where a
 *   BOOLEAN is; SCALARS likewise where a list is expected.
 * VAR and VARS (an attribute whose value a variable holds at run time) and
 * complex SCALARs are read nowhere: they are the wrong type for every
 * schema, and the error says what they are.
 *
 * @module
 */
import {
  AttrType,
  type OpDesc_Attr,
  type Scalar,
  Scalar_Type,
} from "../../gen/rill/v1/framework_pb.ts";
import type { AttrKind, AttrSchema, AttrSpec, AttrValueOf } from "./op_def.ts";
import { judgeExtraAttr, notNeutralDetail } from "./judge_extra_attr.ts";

/**
 * The `AttrType` each attribute kind is stored as.
 *
 * @example Usage
 * ```ts
 * import { ATTR_TYPE_OF_KIND } from "./attr_read.ts";
 * import { AttrType } from "../../gen/rill/v1/framework_pb.ts";
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

/** Options of `AttrError`. */
export interface AttrErrorOptions {
  /** The refused value, as the message shows it. @default {undefined} */
  value?: string;
}

/**
 * Why an attribute is wrong; `attr` names it, and `value` the refused
 * value where one is (a Paddle extra attribute that is not neutral), as
 * data.
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
  /** The refused value, as the message shows it. */
  readonly value: string | undefined;

  /**
   * Makes the error.
   *
   * @param attr The attribute's name.
   * @param detail What is wrong with it.
   * @param options The refused value.
   */
  constructor(attr: string, detail: string, options: AttrErrorOptions = {}) {
    super(`attribute "${attr}": ${detail}`);
    this.name = "AttrError";
    this.attr = attr;
    this.value = options.value;
  }
}

/**
 * Reads every attribute of the schema from `attrs`, applying defaults.
 * Throws an `AttrError` for a wrong type, a missing required attribute, a
 * duplicate or an unknown attribute. An attribute the schema does not
 * declare is judged by Paddle's extra attributes (`PADDLE_EXTRA_ATTRS` in
 * `paddle_extra_attrs.ts`): accepted and not read at a neutral value,
 * refused at any other, naming the value.
 *
 * @param schema The op's attribute schema.
 * @param attrs The op's `OpDesc.attrs`.
 * @returns The values by name; absent attributes without default are
 * `undefined`.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { AttrType, OpDesc_AttrSchema } from "../../gen/rill/v1/framework_pb.ts";
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
    if (!(name in schema)) checkExtra(attrs[i]);
    // An op has a handful of attributes: a scan beats building a map.
    for (let j = 0; j < i; j++) {
      if (attrs[j].name === name) throw new AttrError(name, "given twice");
    }
  }
  // An op that states no attribute (most ops of a long program) gets its
  // schema's defaults, made once and frozen: validation reads every op's
  // attributes, and an object per op is garbage that a scavenge of the
  // young decoded program would pay for.
  if (attrs.length === 0) return defaultsOf(schema);
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

// An attribute the schema lacks: one of Paddle's extra attributes at a
// neutral value, or an error.
function checkExtra(a: OpDesc_Attr): void {
  const verdict = judgeExtraAttr(a);
  switch (verdict.kind) {
    case "neutral":
      return;
    case "not_extra":
      throw new AttrError(a.name, "unknown attribute");
    case "wrong_type":
      throw new AttrError(
        a.name,
        `expected ${alternatives(verdict.expected.map((t) => AttrType[t]))}, ` +
          `got ${storedTypeName(a)}`,
      );
    case "not_neutral":
      throw new AttrError(
        a.name,
        notNeutralDetail(verdict.rule, a.type, verdict.value),
        { value: verdict.value },
      );
  }
}

/** `A`, `A or B`, `A, B or C`. */
function alternatives(names: readonly string[]): string {
  return names.length <= 1
    ? names.join("")
    : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}

const DEFAULTS = new WeakMap<AttrSchema, Readonly<Record<string, unknown>>>();

// A schema's values when an op states none of them, frozen and shared; a
// required attribute makes them an AttrError, as the loop in readAttrs
// would.
function defaultsOf(schema: AttrSchema): Record<string, unknown> {
  let values = DEFAULTS.get(schema);
  if (values === undefined) {
    const made: Record<string, unknown> = {};
    for (const [name, spec] of entriesOf(schema)) {
      if (spec.required) throw new AttrError(name, "required but absent");
      made[name] = spec.default;
    }
    values = Object.freeze(made);
    DEFAULTS.set(schema, values);
  }
  return values as Record<string, unknown>;
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
      `expected ${AttrType[ATTR_TYPE_OF_KIND[kind]]}, got ${storedTypeName(a)}`,
    );
  }
  return value as AttrValueOf[K];
}

/**
 * The type of a stored attribute as errors name it: `FLOAT`,
 * `SCALAR(COMPLEX128)`, `VAR "x"`.
 */
function storedTypeName(a: OpDesc_Attr): string {
  const name = AttrType[a.type] ?? String(a.type);
  switch (a.type) {
    case AttrType.SCALAR:
      return a.scalar === undefined
        ? `${name} with no value`
        : `${name}(${scalarTypeName(a.scalar)})`;
    case AttrType.VAR:
      return `${name} ${JSON.stringify(a.varName)}`;
    case AttrType.VARS:
      return `${name} ${JSON.stringify(a.varsName)}`;
  }
  return name;
}

function scalarTypeName(s: Scalar): string {
  return Scalar_Type[s.type] ?? String(s.type);
}

// The INT/LONG pairs convert, and an INT 0 or 1 is a BOOLEAN; everything
// else must match exactly.
function valueOf(kind: AttrKind, a: OpDesc_Attr): unknown {
  switch (a.type) {
    case AttrType.INT:
      if (kind === "bool") {
        return a.i === 0 || a.i === 1 ? a.i === 1 : undefined;
      }
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
    case AttrType.FLOAT64:
      return kind === "float" ? float32Of(a.float64, a.name) : undefined;
    case AttrType.FLOAT64S:
      return kind === "floats"
        ? a.float64s.map((x) => float32Of(x, a.name))
        : undefined;
    case AttrType.SCALAR:
      return a.scalar === undefined
        ? undefined
        : scalarValueOf(kind, a.scalar, a.name);
    case AttrType.SCALARS:
      return scalarsValueOf(kind, a.scalars, a.name);
  }
  return undefined;
}

/** The element kind a SCALARS attribute is read as, for each list kind. */
const ELEMENT_KIND: Partial<Record<AttrKind, AttrKind>> = {
  ints: "int",
  longs: "long",
  floats: "float",
  bools: "bool",
};

function scalarsValueOf(
  kind: AttrKind,
  scalars: readonly Scalar[],
  name: string,
): unknown[] | undefined {
  const element = ELEMENT_KIND[kind];
  if (element === undefined) return undefined;
  const values = scalars.map((s) => scalarValueOf(element, s, name));
  return values.includes(undefined) ? undefined : values;
}

// A Scalar converts where its value keeps its meaning: no float becomes an
// integer, and no number a bool.
function scalarValueOf(kind: AttrKind, s: Scalar, name: string): unknown {
  switch (s.type) {
    case Scalar_Type.BOOLEAN:
      return kind === "bool" ? s.b : undefined;
    case Scalar_Type.LONG:
      if (kind === "long") return s.i;
      if (kind === "int") return int32Of(s.i, name);
      return kind === "float" ? Math.fround(Number(s.i)) : undefined;
    case Scalar_Type.FLOAT64:
      return kind === "float" ? float32Of(s.r, name) : undefined;
  }
  return undefined;
}

/** A float64 as a FLOAT holds it; a finite value must stay finite. */
function float32Of(x: number, name: string): number {
  const f = Math.fround(x);
  if (Number.isFinite(x) && !Number.isFinite(f)) {
    throw new AttrError(name, `value ${x} does not fit a FLOAT`);
  }
  return f;
}

function int32Of(l: bigint, name: string): number {
  if (l < -2147483648n || l > 2147483647n) {
    throw new AttrError(name, `value ${l} does not fit an INT`);
  }
  return Number(l);
}
