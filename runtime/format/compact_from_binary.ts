/**
 * A protobuf binary decoder for programs, faster than protobuf-es's
 * `fromBinary` because it builds a smaller tree: its messages are
 * protobuf-es messages (same `$typeName`, same prototype with the same
 * defaults, same own properties) but their arrays have no spare capacity and
 * equal strings are one string.
 *
 * Why this exists: decoding a large program is dominated by the garbage
 * collector, not by parsing. The decoded tree is young and all of it
 * survives, so every scavenge during decoding copies all of it again.
 * protobuf-es grows each repeated field by `push`, and V8 gives a one-element
 * array room for 17; a program's operands are mostly one-element lists, so
 * spare capacity was 40% of the tree. Variable names recur in every op that
 * uses them and are decoded once here. Small int64 values (dims) share
 * their BigInts. Each message type's reader is compiled once from its
 * descriptor (`compileRead`), so that every property store names its
 * property and V8 keeps one hidden class per message type, where a generic
 * reader's `message[name] = value` takes V8's megamorphic path (decoding
 * and validating a 10,000-op program: 221 M instructions, against 420 M
 * before; bench/README.md).
 *
 * Invariants:
 * - The result equals `fromBinary(schema, bytes)` field for field, key order
 *   included.
 * - Anything outside the common case makes the fast path give up and
 *   protobuf-es decode the bytes instead, so odd input (unknown fields,
 *   groups, an unknown closed-enum value, a message field repeated to be
 *   merged, a wire type that does not match the field) and every malformed
 *   input get exactly protobuf-es's result or error.
 * - How a message is read comes from its generated descriptor alone, so a
 *   field added to `framework.proto` is read here with no change, as long
 *   as its kind is one the plans take (Paddle 2.x's doubles, `Scalar`
 *   messages and newer enum values are). A kind they do not take would hand
 *   every message type holding it to protobuf-es; the tests check that
 *   programs, Paddle 2.x's included, still take the fast path.
 *
 * @module
 */
import {
  create,
  type DescField,
  type DescMessage,
  fromBinary,
  type MessageShape,
  ScalarType,
} from "@bufbuild/protobuf";

/** The fast path's only signal: protobuf-es must decode these bytes. */
class GiveUp {}
const GIVE_UP = new GiveUp();

// Wire types (protobuf encoding spec).
const VARINT = 0;
const FIXED64 = 1;
const DELIMITED = 2;
const FIXED32 = 5;

/** Strings longer than this are decoded each time, not shared. */
const MAX_SHARED_STRING = 64;

/**
 * The most slots of the shared-string table. The table is direct-mapped: a
 * string whose slot holds another string is decoded again and takes the
 * slot, which costs only sharing, and a name is mostly used soon after
 * the op that makes it. A table gets a slot per 32 bytes of input, from
 * 256 up to this (a 1.5 MB program of 10,000 variables).
 */
const MAX_STRING_SLOTS = 1 << 15;

/**
 * BigInts -1 to 1022 made once: int64 values are mostly small dims and
 * indices, and a BigInt is immutable, so one value serves every field.
 */
const SMALL_BIGINTS: readonly bigint[] = Array.from(
  { length: 1024 },
  (_, i) => BigInt(i - 1),
);

/**
 * A repeated field's value while its message is read and the field has no
 * values yet; the reader replaces it with a fresh array at the end. Lists start here
 * rather than as `[]` so that a list that gets values allocates only arrays
 * it keeps.
 */
const NO_VALUES: readonly unknown[] = Object.freeze([]);

/** Reusable argument arrays for `String.fromCharCode`, by length. */
const CHAR_CODES: number[][] = [];

type Message = Record<string, unknown>;

/** How one field is read; built once per message type. */
interface FieldPlan {
  readonly name: string;
  readonly list: boolean;
  readonly scalar: ScalarType | undefined;
  /** A closed enum's values; `undefined` for an open enum or a scalar. */
  readonly enumValues: ReadonlySet<number> | undefined;
  readonly isEnum: boolean;
  readonly message: MessagePlan | undefined;
}

/** Reads one message whose bytes end at `end`. */
type ReadMessage = (r: Reader, end: number) => Message;

/** How one message type is read; built once per message type. */
interface MessagePlan {
  readonly desc: DescMessage;
  readonly prototype: object;
  /** Indexed by field number. */
  readonly fields: readonly (FieldPlan | undefined)[];
  /**
   * The reader, compiled on first use (`compileRead`), when every message
   * type it reaches has its plan.
   */
  read: ReadMessage;
}

const SUPPORTED_SCALARS: ReadonlySet<ScalarType> = new Set([
  ScalarType.INT32,
  ScalarType.UINT32,
  ScalarType.INT64,
  ScalarType.FLOAT,
  ScalarType.DOUBLE,
  ScalarType.BOOL,
  ScalarType.STRING,
]);

const plans = new WeakMap<DescMessage, MessagePlan | null>();

/**
 * The plan for a message type, or `null` when it uses something the fast
 * path does not read: maps, oneofs, groups, bytes, fixed or zigzag integers,
 * 64-bit integers as strings, or fields that protobuf-es sets on a new
 * message (proto3's implicit presence).
 */
function planFor(desc: DescMessage): MessagePlan | null {
  const known = plans.get(desc);
  if (known !== undefined) return known;
  const lists = desc.fields.filter((f) => f.fieldKind === "list")
    .map((f) => f.localName);
  const zero = create(desc);
  const zeroKeys = Object.keys(zero).join();
  if (desc.oneofs.length > 0 || zeroKeys !== ["$typeName", ...lists].join()) {
    plans.set(desc, null);
    return null;
  }
  const fields: (FieldPlan | undefined)[] = [];
  const plan: MessagePlan = {
    desc,
    prototype: Object.getPrototypeOf(zero),
    fields,
    read(r, end) {
      plan.read = compileRead(plan);
      return plan.read(r, end);
    },
  };
  plans.set(desc, plan); // before the fields, for recursive types
  for (const field of desc.fields) {
    const fieldPlan = planField(field);
    if (fieldPlan === null) {
      plans.set(desc, null);
      return null;
    }
    fields[field.number] = fieldPlan;
  }
  return plan;
}

function planField(field: DescField): FieldPlan | null {
  const base = { name: field.localName, list: field.fieldKind === "list" };
  const none = { scalar: undefined, enumValues: undefined, isEnum: false };
  let kind: "scalar" | "enum" | "message";
  if (field.fieldKind === "list") kind = field.listKind;
  else if (field.fieldKind === "map") return null;
  else kind = field.fieldKind;
  if (kind === "message") {
    if (
      !field.message ||
      (field as { delimitedEncoding?: boolean }).delimitedEncoding
    ) {
      return null;
    }
    const message = planFor(field.message);
    return message === null ? null : { ...base, ...none, message };
  }
  if (kind === "enum") {
    const values = field.enum!.values.map((v) => v.number);
    const enumValues = field.enum!.open ? undefined : new Set(values);
    return { ...base, ...none, enumValues, isEnum: true, message: undefined };
  }
  const scalar = field.scalar!;
  const { longAsString } = field as { longAsString?: boolean };
  if (!SUPPORTED_SCALARS.has(scalar) || longAsString) return null;
  return { ...base, ...none, scalar, message: undefined };
}

/** The reading position over one buffer, and the strings read so far. */
class Reader {
  pos = 0;
  /** The low and high 32 bits of the last varint read. */
  lo = 0;
  hi = 0;
  readonly buf: Uint8Array;
  readonly view: DataView;
  /**
   * The shared-string table: by slot, a string, its hash plus one (0 for
   * an empty slot) and where its bytes occur.
   */
  readonly strings: string[];
  readonly stringHashes: Int32Array;
  readonly stringsAt: Int32Array;
  readonly stringSlotMask: number;
  readonly utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

  constructor(buf: Uint8Array) {
    this.buf = buf;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    let slots = 256;
    while (slots < MAX_STRING_SLOTS && slots * 32 < buf.length) slots *= 2;
    this.strings = new Array(slots).fill("");
    this.stringHashes = new Int32Array(slots);
    this.stringsAt = new Int32Array(slots);
    this.stringSlotMask = slots - 1;
  }

  /** Reads a varint into `lo` and `hi`. */
  varint(): void {
    const buf = this.buf;
    let lo = 0;
    let b = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      b = buf[this.pos++];
      lo |= (b & 0x7f) << shift;
      if (b < 0x80) return this.#done(lo, 0);
    }
    b = buf[this.pos++];
    lo |= (b & 0x0f) << 28;
    let hi = (b & 0x7f) >> 4;
    if (b < 0x80) return this.#done(lo, hi);
    for (let shift = 3; shift < 32; shift += 7) {
      b = buf[this.pos++];
      hi |= (b & 0x7f) << shift;
      if (b < 0x80) return this.#done(lo, hi);
    }
    throw GIVE_UP;
  }

  #done(lo: number, hi: number): void {
    if (this.pos > this.buf.length) throw GIVE_UP;
    this.lo = lo >>> 0;
    this.hi = hi >>> 0;
  }

  /** Reads a varint that must fit in 32 bits unsigned (tags, lengths). */
  uint32(): number {
    this.varint();
    return this.lo;
  }

  int32(): number {
    this.varint();
    return this.lo | 0;
  }

  bool(): boolean {
    this.varint();
    return this.lo !== 0 || this.hi !== 0;
  }

  int64(): bigint {
    this.varint();
    return int64(this.lo, this.hi);
  }

  /** A closed enum's value; protobuf-es keeps others as unknown fields. */
  closedEnum(values: ReadonlySet<number>): number {
    const value = this.int32();
    if (!values.has(value)) throw GIVE_UP;
    return value;
  }

  float32(): number {
    const at = this.pos;
    this.pos += 4;
    if (this.pos > this.buf.length) throw GIVE_UP;
    return this.view.getFloat32(at, true);
  }

  float64(): number {
    const at = this.pos;
    this.pos += 8;
    if (this.pos > this.buf.length) throw GIVE_UP;
    return this.view.getFloat64(at, true);
  }

  /** The end of a length-delimited record that starts here. */
  delimitedEnd(): number {
    const length = this.uint32();
    const end = this.pos + length;
    if (end > this.buf.length) throw GIVE_UP;
    return end;
  }

  string(): string {
    const end = this.delimitedEnd();
    const start = this.pos;
    this.pos = end;
    const buf = this.buf;
    if (end - start > MAX_SHARED_STRING) return this.#decode(start, end);
    // FNV-1a over the bytes; a hit is confirmed byte by byte below.
    let hash = 0x811c9dc5;
    for (let i = start; i < end; i++) {
      const c = buf[i];
      if (c >= 0x80) return this.#decode(start, end);
      hash = Math.imul(hash ^ c, 0x01000193);
    }
    hash = Math.imul(hash ^ (end - start), 0x01000193) & 0x3fffffff;
    const slot = (hash ^ (hash >>> 15)) & this.stringSlotMask;
    if (this.stringHashes[slot] === hash + 1) {
      const s = this.strings[slot];
      if (
        s.length === end - start &&
        sameBytes(buf, this.stringsAt[slot], start, end)
      ) {
        return s;
      }
    }
    const s = asciiString(buf, start, end);
    this.strings[slot] = s;
    this.stringHashes[slot] = hash + 1;
    this.stringsAt[slot] = start;
    return s;
  }

  #decode(start: number, end: number): string {
    return this.utf8.decode(this.buf.subarray(start, end));
  }
}

/** The ASCII bytes `buf[start..end)` as a string, with no garbage. */
function asciiString(buf: Uint8Array, start: number, end: number): string {
  const length = end - start;
  const codes = CHAR_CODES[length] ??= new Array(length).fill(0);
  for (let i = 0; i < length; i++) codes[i] = buf[start + i];
  return String.fromCharCode.apply(null, codes);
}

/** Whether `buf[at...]` repeats the bytes `buf[start..end)`. */
function sameBytes(buf: Uint8Array, at: number, start: number, end: number) {
  for (let i = start; i < end; i++) {
    if (buf[i] !== buf[at + i - start]) return false;
  }
  return true;
}

// Wire types by scalar type, for a value that is not packed.
function wireTypeOf(field: FieldPlan): number {
  if (field.scalar === ScalarType.STRING) return DELIMITED;
  if (field.scalar === ScalarType.FLOAT) return FIXED32;
  if (field.scalar === ScalarType.DOUBLE) return FIXED64;
  return VARINT; // integers, bools, enums
}

/**
 * The source of an expression that reads one value of a scalar or enum
 * field; `enums[k]` is a closed enum's set of values.
 */
function valueSource(field: FieldPlan, enums: unknown[]): string {
  if (field.isEnum) {
    if (field.enumValues === undefined) return "r.int32()";
    enums.push(field.enumValues);
    return `r.closedEnum(enums[${enums.length - 1}])`;
  }
  switch (field.scalar) {
    case ScalarType.STRING:
      return "r.string()";
    case ScalarType.FLOAT:
      return "r.float32()";
    case ScalarType.DOUBLE:
      return "r.float64()";
    case ScalarType.INT32:
      return "r.int32()";
    case ScalarType.UINT32:
      return "r.uint32()";
    case ScalarType.BOOL:
      return "r.bool()";
    default:
      return "r.int64()";
  }
}

/**
 * Compiles a message type's reader and its constructor from the plan:
 * straight-line code with every property named, so that V8 keeps one
 * hidden class per message type and each store is a plain field write,
 * where a generic reader's `message[name] = value` takes V8's slowest
 * (megamorphic) path. The source is made from the descriptor's field
 * numbers and names alone (names quoted with `JSON.stringify`), never from
 * the bytes being read. Which tags a field takes, and what gives up, is
 * the generic rule: a field's own wire type, plus packed for repeated
 * numbers and enums; anything else is protobuf-es's to read.
 */
function compileRead(plan: MessagePlan): ReadMessage {
  const subPlans: MessagePlan[] = [];
  const enums: unknown[] = [];
  const make: string[] = [];
  const cases: string[] = [];
  const finish: string[] = [];
  // In declaration order, as protobuf-es's `create` sets them.
  for (const field of plan.desc.fields) {
    if (field.fieldKind === "list") {
      make.push(`this[${JSON.stringify(field.localName)}] = NO_VALUES;`);
    }
  }
  for (let number = 0; number < plan.fields.length; number++) {
    const field = plan.fields[number];
    if (field === undefined) continue;
    const name = JSON.stringify(field.name);
    const at = `m[${name}]`;
    const tag = (wireType: number) => `case ${(number << 3) | wireType}:`;
    if (field.message !== undefined) {
      subPlans.push(field.message);
      const read = `sub[${subPlans.length - 1}].read(r, r.delimitedEnd())`;
      cases.push(
        field.list
          ? `${tag(DELIMITED)} ${at} = add(${at}, ${read}); break;`
          // A second occurrence would be merged into the first.
          : `${tag(DELIMITED)} if (${at} !== undefined) throw GIVE_UP; ` +
            `${at} = ${read}; break;`,
      );
    } else if (!field.list) {
      cases.push(
        `${tag(wireTypeOf(field))} ${at} = ${
          valueSource(field, enums)
        }; break;`,
      );
    } else {
      const value = valueSource(field, enums);
      cases.push(
        `${tag(wireTypeOf(field))} ${at} = add(${at}, ${value}); break;`,
      );
      if (field.scalar !== ScalarType.STRING) {
        cases.push(
          `${tag(DELIMITED)} { const e = r.delimitedEnd(); ` +
            `while (r.pos < e) ${at} = add(${at}, ${value}); ` +
            `if (r.pos !== e) throw GIVE_UP; break; }`,
        );
      }
    }
    if (field.list) {
      finish.push(
        `{ const l = ${at}; if (l === NO_VALUES) ${at} = []; ` +
          `else if (l.length > 2) ${at} = l.slice(); }`,
      );
    }
  }
  const source = `
    function Message() { this.$typeName = typeName; ${make.join(" ")} }
    Message.prototype = prototype;
    return function read(r, end) {
      const m = new Message();
      while (r.pos < end) {
        switch (r.uint32()) {
          ${cases.join("\n          ")}
          default: throw GIVE_UP;
        }
      }
      if (r.pos !== end) throw GIVE_UP;
      ${finish.join("\n      ")}
      return m;
    };`;
  let compile: (...args: unknown[]) => unknown;
  try {
    compile = new Function(
      "typeName",
      "prototype",
      "sub",
      "enums",
      "NO_VALUES",
      "GIVE_UP",
      "add",
      source,
    ) as typeof compile;
  } catch {
    // A host that refuses code from strings: protobuf-es reads every such
    // message.
    return () => {
      throw GIVE_UP;
    };
  }
  return compile(
    plan.desc.typeName,
    plan.prototype,
    subPlans,
    enums,
    NO_VALUES,
    GIVE_UP,
    add,
  ) as ReadMessage;
}

/**
 * A repeated field's list with `value` appended. The first two values make
 * exactly sized arrays; later ones grow the array by push, and the reader
 * trims it at the end with an exact copy.
 */
function add(list: unknown[], value: unknown): unknown[] {
  if (list === NO_VALUES) return [value];
  if (list.length === 1) return [list[0], value];
  list.push(value);
  return list;
}

function int64(lo: number, hi: number): bigint {
  if (hi === 0) return lo < 1023 ? SMALL_BIGINTS[lo + 1] : BigInt(lo);
  if ((hi & lo) === -1) return SMALL_BIGINTS[0];
  if (hi === 0xffffffff && lo >= 0x80000000) return BigInt(lo - 0x100000000);
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo));
}

/**
 * The fast path alone: what `compactFromBinary` returns when it does not
 * need protobuf-es, else `undefined` (for input outside the common case, or
 * bytes that are not a valid message).
 *
 * @typeParam Desc The message's descriptor type.
 * @param schema The message's generated schema.
 * @param bytes The encoded message.
 * @returns The decoded message, or `undefined`.
 *
 * @example Usage
 * ```ts
 * import { ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { tryCompactFromBinary } from "./compact_from_binary.ts";
 * import { assertEquals } from "@std/assert";
 *
 * // One empty block (field 1, length 0).
 * const program = tryCompactFromBinary(ProgramDescSchema, new Uint8Array([0x0a, 0]));
 * assertEquals(program?.blocks.length, 1);
 * assertEquals(tryCompactFromBinary(ProgramDescSchema, new Uint8Array([0xff])), undefined);
 * ```
 */
export function tryCompactFromBinary<Desc extends DescMessage>(
  schema: Desc,
  bytes: Uint8Array,
): MessageShape<Desc> | undefined {
  const plan = planFor(schema);
  if (plan === null) return undefined;
  try {
    return plan.read(new Reader(bytes), bytes.length) as MessageShape<Desc>;
  } catch (e) {
    if (e === GIVE_UP) return undefined;
    throw e;
  }
}

/**
 * Decodes a binary protobuf message into a protobuf-es message equal to what
 * `fromBinary(schema, bytes)` returns, with a smaller footprint: repeated
 * fields without spare capacity, and equal short strings shared. Input the
 * fast path does not handle (see the module notes) goes to protobuf-es's
 * `fromBinary`, which also makes every decode error its error.
 *
 * @typeParam Desc The message's descriptor type.
 * @param schema The message's generated schema.
 * @param bytes The encoded message.
 * @returns The decoded message.
 * @throws {Error} protobuf-es's error when the bytes are not a valid message.
 *
 * @example Usage
 * ```ts
 * import { create, equals, toBinary } from "@bufbuild/protobuf";
 * import { ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { compactFromBinary } from "./compact_from_binary.ts";
 * import { assert } from "@std/assert";
 *
 * const program = create(ProgramDescSchema, {
 *   blocks: [{ idx: 0, parentIdx: -1, vars: [{ name: "x" }] }],
 * });
 * const bytes = toBinary(ProgramDescSchema, program);
 * assert(equals(ProgramDescSchema, compactFromBinary(ProgramDescSchema, bytes), program));
 * ```
 */
export function compactFromBinary<Desc extends DescMessage>(
  schema: Desc,
  bytes: Uint8Array,
): MessageShape<Desc> {
  return tryCompactFromBinary(schema, bytes) ?? fromBinary(schema, bytes);
}
