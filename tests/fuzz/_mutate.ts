/**
 * The fuzzer's mutations: seeded, so a case is named by its seed and can be
 * made again. Three families, from shallow to deep:
 *
 * - bytes: flip, cut, insert, repeat a span, set a byte to an extreme: what
 *   a damaged download or a wrong file does to a `.pb`, a `.pdiparams` or
 *   an `.npy`;
 * - structure: decode a program, change one thing a person or another tool
 *   could write (an attribute to an extreme value, a shape, a dtype, an
 *   op's type or one of its slots), encode it again: inputs that pass
 *   decoding and test validation and the kernels;
 * - npy headers: variants of a header that NumPy's `read_array_header`
 *   refuses, each paired with that verdict, so the judge can require a
 *   refusal.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import {
  AttrType,
  type OpDesc_Attr,
  OpDesc_AttrSchema,
  type ProgramDesc,
  type VarType_Type,
} from "../../gen/rill/v1/framework_pb.ts";

/** A deterministic stream of numbers in [0, 1) (mulberry32). */
export class Rng {
  #state: number;

  /**
   * @param seed Any 32-bit number.
   */
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** The next number in [0, 1). */
  next(): number {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** A whole number in [0, n). */
  below(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** One of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)];
  }
}

/** What a mutation did, in a few words, for the report. */
export interface Mutated<T> {
  readonly value: T;
  readonly how: string;
}

/** Whole numbers a careless writer or an attacker would put in a field. */
const EXTREME_INTS: readonly number[] = [
  0,
  -1,
  -2,
  1,
  7,
  255,
  65536,
  100_000_000,
  2 ** 31 - 1,
  -(2 ** 31),
];

/** Floats likewise. */
const EXTREME_FLOATS: readonly number[] = [
  0,
  -0,
  -1,
  1e-45,
  3.4e38,
  -3.4e38,
  Infinity,
  -Infinity,
  NaN,
];

/**
 * One byte-level change to `bytes` (a copy; `bytes` is not touched).
 *
 * @param bytes A file's contents.
 * @param rng The case's numbers.
 * @returns The changed copy and what changed.
 */
export function mutateBytes(
  bytes: Uint8Array,
  rng: Rng,
): Mutated<Uint8Array> {
  const n = bytes.length;
  const at = rng.below(Math.max(n, 1));
  switch (rng.below(5)) {
    case 0: {
      const out = bytes.slice();
      if (n > 0) out[at] ^= 1 << rng.below(8);
      return { value: out, how: `flip a bit of byte ${at}` };
    }
    case 1:
      return { value: bytes.slice(0, at), how: `cut at byte ${at}` };
    case 2: {
      const junk = Uint8Array.from(
        { length: 1 + rng.below(16) },
        () => rng.below(256),
      );
      return {
        value: concat(bytes.slice(0, at), junk, bytes.slice(at)),
        how: `insert ${junk.length} bytes at ${at}`,
      };
    }
    case 3: {
      const end = Math.min(n, at + 1 + rng.below(64));
      return {
        value: concat(
          bytes.slice(0, end),
          bytes.slice(at, end),
          bytes.slice(end),
        ),
        how: `repeat bytes ${at}..${end}`,
      };
    }
    default: {
      const out = bytes.slice();
      const v = rng.pick([0x00, 0x7f, 0x80, 0xff]);
      if (n > 0) out[at] = v;
      return { value: out, how: `set byte ${at} to 0x${v.toString(16)}` };
    }
  }
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * One structural change to a program (mutated in place): an attribute,
 * a variable's shape or dtype, an op's type or one of its slots.
 *
 * @param program A decoded program; changed in place.
 * @param rng The case's numbers.
 * @returns What changed.
 */
export function mutateProgram(program: ProgramDesc, rng: Rng): string {
  const block = rng.pick(program.blocks);
  const kind = rng.below(4);
  if (kind === 0 && block.ops.length > 0) return mutateAttr(block, rng);
  if (kind === 1 && block.vars.length > 0) return mutateVar(block, rng);
  if (kind === 2 && block.ops.length > 0) {
    const op = rng.pick(block.ops);
    const other = rng.pick(program.blocks.flatMap((b) => b.ops));
    const was = op.type;
    op.type = rng.next() < 0.5 ? other.type : `${was}_x`;
    return `block ${block.idx}: op ${was} becomes ${op.type}`;
  }
  if (block.ops.length === 0) return "no change (an empty block)";
  const op = rng.pick(block.ops);
  const slots = rng.next() < 0.5 ? op.inputs : op.outputs;
  if (slots.length === 0) return `block ${block.idx}: ${op.type} has no slot`;
  const slot = rng.pick(slots);
  if (rng.next() < 0.5) {
    slot.arguments = [];
    return `block ${block.idx}: ${op.type}.${slot.parameter} emptied`;
  }
  const names = block.vars.map((v) => v.name);
  slot.arguments = [rng.pick([...names, "no_such_var"])];
  return `block ${block.idx}: ${op.type}.${slot.parameter} = ${
    slot.arguments[0]
  }`;
}

function mutateAttr(block: ProgramDesc["blocks"][number], rng: Rng): string {
  const op = rng.pick(block.ops);
  if (op.attrs.length === 0) {
    return `block ${block.idx}: ${op.type} has no attrs`;
  }
  const i = rng.below(op.attrs.length);
  const attr = op.attrs[i];
  op.attrs[i] = extremeAttr(attr, rng);
  return `block ${block.idx}: ${op.type}.${attr.name} = ${
    describe(op.attrs[i])
  }`;
}

function extremeAttr(attr: OpDesc_Attr, rng: Rng): OpDesc_Attr {
  const next = create(OpDesc_AttrSchema, attr);
  const int = () => rng.pick(EXTREME_INTS);
  const ints = (list: readonly number[]) => {
    const values = list.map((v) => rng.next() < 0.5 ? int() : v);
    if (rng.next() < 0.3) values.push(int());
    return values;
  };
  switch (attr.type) {
    case AttrType.INT:
    case AttrType.BLOCK:
      next.i = int();
      next.blockIdx = attr.type === AttrType.BLOCK ? int() : attr.blockIdx;
      break;
    case AttrType.LONG:
      next.l = BigInt(int());
      break;
    case AttrType.FLOAT:
      next.f = rng.pick(EXTREME_FLOATS);
      break;
    case AttrType.STRING:
      next.s = rng.pick(["", "\u0000", "NHWC", "x".repeat(300), "\udc00"]);
      break;
    case AttrType.INTS:
      next.ints = ints(attr.ints);
      break;
    case AttrType.LONGS:
      next.longs = ints(attr.longs.map(Number)).map(BigInt);
      break;
    case AttrType.FLOATS:
      next.floats = attr.floats.map(() => rng.pick(EXTREME_FLOATS));
      break;
    case AttrType.BOOLEAN:
      next.b = !attr.b;
      break;
    default:
      // Another kind than it declares: a wrong attribute type.
      next.type = rng.pick([AttrType.INT, AttrType.STRING, AttrType.FLOATS]);
  }
  return next;
}

function describe(attr: OpDesc_Attr): string {
  switch (attr.type) {
    case AttrType.INTS:
      return `[${attr.ints}]`;
    case AttrType.LONGS:
      return `[${attr.longs}]`;
    case AttrType.FLOATS:
      return `[${attr.floats}]`;
    case AttrType.STRING:
      return JSON.stringify(attr.s);
    case AttrType.LONG:
      return String(attr.l);
    case AttrType.FLOAT:
      return String(attr.f);
    case AttrType.BOOLEAN:
      return String(attr.b);
    default:
      return `${attr.i} (type ${attr.type})`;
  }
}

function mutateVar(block: ProgramDesc["blocks"][number], rng: Rng): string {
  const v = rng.pick(block.vars);
  const tensor = v.type?.lodTensor?.tensor;
  if (tensor === undefined) {
    v.persistable = !v.persistable;
    return `block ${block.idx}: var ${v.name} persistable = ${v.persistable}`;
  }
  if (rng.next() < 0.5) {
    tensor.dims = tensor.dims.map((d) =>
      rng.next() < 0.5 ? BigInt(rng.pick(EXTREME_INTS)) : d
    );
    return `block ${block.idx}: var ${v.name} dims = [${tensor.dims}]`;
  }
  tensor.dataType = rng.pick([
    0,
    1,
    2,
    3,
    4,
    5,
    6,
    9,
    19,
    20,
    21,
    99,
  ]) as VarType_Type;
  return `block ${block.idx}: var ${v.name} dtype = ${tensor.dataType}`;
}

/**
 * A `.npy` header NumPy refuses, as a whole file: the header of `bytes`
 * (a valid version-1 `.npy`) replaced by a broken variant, the data kept.
 *
 * @param bytes A valid `.npy` file.
 * @param rng The case's numbers.
 * @returns The file and which rule it breaks.
 */
export function refusedNpy(bytes: Uint8Array, rng: Rng): Mutated<Uint8Array> {
  const headerLen = bytes[8] | (bytes[9] << 8);
  const header = new TextDecoder().decode(bytes.subarray(10, 10 + headerLen));
  const data = bytes.subarray(10 + headerLen);
  const [how, broken, version] = rng.pick(brokenHeaders(header));
  const body = new TextEncoder().encode(broken.trimEnd());
  const padded = 10 + body.length + 1;
  const pad = (64 - (padded % 64)) % 64;
  const text = new Uint8Array(body.length + pad + 1).fill(0x20);
  text.set(body);
  text[text.length - 1] = 0x0a;
  const head = Uint8Array.of(
    0x93,
    ...new TextEncoder().encode("NUMPY"),
    version,
    0,
    text.length & 0xff,
    text.length >> 8,
  );
  return { value: concat(head, text, data), how };
}

/** Broken variants of `header`: [what is wrong, header, major version]. */
function brokenHeaders(header: string): [string, string, number][] {
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1] ?? "";
  const first = shape.split(",")[0].trim() || "1";
  return [
    ["no braces", header.trim().slice(1, -1), 1],
    ["an extra key", header.replace("}", ", 'extra': 1}"), 1],
    ["a float in the shape", header.replace(`(${shape})`, `(${first}.0,)`), 1],
    ["an empty shape item", header.replace(`(${shape})`, `(${first},, 1)`), 1],
    ["a negative dim", header.replace(`(${shape})`, `(-${first},)`), 1],
    ["major version 9", header, 9],
    ["no shape key", header.replace(/'shape':\s*\([^)]*\),?\s*/, ""), 1],
    [
      "an unknown descr",
      header.replace(/'descr':\s*'[^']*'/, "'descr': '<q9'"),
      1,
    ],
    [
      "fortran_order 2",
      header.replace(/'fortran_order':\s*\w+/, "'fortran_order': 2"),
      1,
    ],
    ["not a literal", header.replace("}", ", 'x': __import__('os')}"), 1],
  ];
}
