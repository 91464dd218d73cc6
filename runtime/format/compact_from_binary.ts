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
 * uses them and are decoded once here.
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
 * A repeated field's value while its message is read and the field has no
 * values yet; `readMessage` replaces it with a fresh array. Lists start here
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

/** How one message type is read; built once per message type. */
interface MessagePlan {
  readonly make: new () => Message;
  /** Indexed by field number. */
  readonly fields: readonly (FieldPlan | undefined)[];
  readonly lists: readonly string[];
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
  const make = messageConstructor(desc, Object.getPrototypeOf(zero), lists);
  const plan: MessagePlan = { make, fields, lists };
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

/**
 * A constructor whose instances are what protobuf-es's `create(desc)`
 * returns: `$typeName`, then a fresh array per repeated field, on the same
 * prototype (which holds the proto2 defaults). A constructor rather than
 * `Object.create`, because V8 sizes a constructor's instances to the
 * properties they end up holding, while `Object.create` objects spill the
 * fifth property into a separate store.
 */
function messageConstructor(
  desc: DescMessage,
  prototype: object,
  lists: readonly string[],
): new () => Message {
  const typeName = desc.typeName;
  const make = function (this: Message): void {
    this.$typeName = typeName;
    for (let i = 0; i < lists.length; i++) this[lists[i]] = NO_VALUES;
  } as unknown as new () => Message;
  make.prototype = prototype;
  return make;
}

/** The reading position over one buffer, and the strings read so far. */
class Reader {
  pos = 0;
  /** The low and high 32 bits of the last varint read. */
  lo = 0;
  hi = 0;
  readonly buf: Uint8Array;
  readonly view: DataView;
  /** Shared strings by hash, each with where its bytes first occurred. */
  readonly strings = new Map<number, number>();
  readonly shared: string[] = [];
  readonly sharedAt: number[] = [];
  readonly utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

  constructor(buf: Uint8Array) {
    this.buf = buf;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
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
    // 30 bits keep the key a small integer, which a Map takes unboxed.
    hash = Math.imul(hash ^ (end - start), 0x01000193) & 0x3fffffff;
    const seen = this.strings.get(hash);
    if (seen !== undefined) {
      const s = this.shared[seen];
      if (
        s.length === end - start &&
        sameBytes(buf, this.sharedAt[seen], start, end)
      ) {
        return s;
      }
    }
    const s = asciiString(buf, start, end);
    if (seen === undefined) {
      this.strings.set(hash, this.shared.length);
      this.shared.push(s);
      this.sharedAt.push(start);
    }
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

function readMessage(r: Reader, plan: MessagePlan, end: number): Message {
  const message = new plan.make();
  while (r.pos < end) {
    const tag = r.uint32();
    const field = plan.fields[tag >>> 3];
    if (field === undefined) throw GIVE_UP;
    const wireType = tag & 7;
    if (!field.list) {
      if (field.message !== undefined) {
        // A second occurrence would be merged into the first.
        if (wireType !== DELIMITED || message[field.name] !== undefined) {
          throw GIVE_UP;
        }
        message[field.name] = readMessage(r, field.message, r.delimitedEnd());
      } else {
        message[field.name] = readValue(r, field, wireType);
      }
    } else if (wireType === DELIMITED && field.scalar !== ScalarType.STRING) {
      const listEnd = r.delimitedEnd();
      if (field.message !== undefined) {
        append(message, field.name, readMessage(r, field.message, listEnd));
      } else {
        const packed = packedWireType(field);
        while (r.pos < listEnd) {
          append(message, field.name, readValue(r, field, packed));
        }
        if (r.pos !== listEnd) throw GIVE_UP;
      }
    } else {
      if (field.message !== undefined) throw GIVE_UP;
      append(message, field.name, readValue(r, field, wireType));
    }
  }
  if (r.pos !== end) throw GIVE_UP;
  for (const name of plan.lists) {
    const list = message[name] as unknown[];
    if (list === NO_VALUES) message[name] = [];
    else if (list.length > 2) message[name] = list.slice();
  }
  return message;
}

/**
 * Appends to a repeated field. The first two values make exactly sized
 * arrays; later ones grow the array by push, and `readMessage` trims it at
 * the end with an exact copy.
 */
function append(message: Message, name: string, value: unknown): void {
  const list = message[name] as unknown[];
  if (list === NO_VALUES) message[name] = [value];
  else if (list.length === 1) message[name] = [list[0], value];
  else list.push(value);
}

function packedWireType(field: FieldPlan): number {
  if (field.scalar === ScalarType.FLOAT) return FIXED32;
  if (field.scalar === ScalarType.DOUBLE) return FIXED64;
  return VARINT;
}

/** Reads one scalar or enum value of a field. */
function readValue(r: Reader, field: FieldPlan, wireType: number): unknown {
  if (field.isEnum) {
    if (wireType !== VARINT) throw GIVE_UP;
    r.varint();
    const value = r.lo | 0;
    // protobuf-es keeps an unknown closed-enum value as an unknown field.
    if (field.enumValues !== undefined && !field.enumValues.has(value)) {
      throw GIVE_UP;
    }
    return value;
  }
  switch (field.scalar) {
    case ScalarType.STRING:
      if (wireType !== DELIMITED) throw GIVE_UP;
      return r.string();
    case ScalarType.FLOAT:
    case ScalarType.DOUBLE: {
      const fixed32 = field.scalar === ScalarType.FLOAT;
      if (wireType !== (fixed32 ? FIXED32 : FIXED64)) throw GIVE_UP;
      const at = r.pos;
      r.pos += fixed32 ? 4 : 8;
      if (r.pos > r.buf.length) throw GIVE_UP;
      return fixed32
        ? r.view.getFloat32(at, true)
        : r.view.getFloat64(at, true);
    }
  }
  if (wireType !== VARINT) throw GIVE_UP;
  r.varint();
  switch (field.scalar) {
    case ScalarType.INT32:
      return r.lo | 0;
    case ScalarType.UINT32:
      return r.lo;
    case ScalarType.BOOL:
      return r.lo !== 0 || r.hi !== 0;
    default: // INT64
      return int64(r.lo, r.hi);
  }
}

function int64(lo: number, hi: number): bigint {
  if (hi === 0) return BigInt(lo);
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
    return readMessage(new Reader(bytes), plan, bytes.length) as MessageShape<
      Desc
    >;
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
