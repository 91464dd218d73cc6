/**
 * Paddle 3's PIR programs as JSON (`inference.json`), decoded into plain
 * structures: regions, blocks, ops, values, types and attributes. What the
 * file holds is recorded in `../shared/paddle-models-pir/README.md` (key
 * names from Paddle's `serialize_deserialize/include/schema.h`):
 *
 * - top level `{base_code: {magic: "pir", version, trainable}, program:
 *   {regions}}`; a region is `{"#", blocks}`, a block `{"#", args, ops}`;
 * - an op is `{"#": "<dialect>.<name>", I: operands, O: results, A:
 *   attributes, OA: result attributes, regions?}`, except the parameter op
 *   `p`, written compactly (`A` = [flags…, name], `O` one result);
 * - a value id is a positive integer for an op's result and a negative one
 *   for a block argument, each unique in the file; an operand `{"%": 0}` is
 *   the null value.
 *
 * Invariants of a decoded program (the decoder refuses a file that breaks
 * them, naming the block, the op and the value):
 * - every operand other than the null value names a value defined before
 *   it in its own block or an enclosing one (SSA dominance as written);
 * - no value id is defined twice;
 * - `version` is 1 or 2: version 2 only writes some integer attributes
 *   tagged `0.a_i64` where version 1 wrote `0.a_i32`, and both tags read
 *   as integers everywhere.
 *
 * Unknown attribute and type tags are not errors here: they decode as
 * `opaque`, and the conversion (`pir_to_program.ts`) lists them.
 *
 * @module
 */
import { ProgramError, type ProgramErrorWhere } from "../core/errors.ts";
import {
  attrOf,
  type PirAttr,
  type PirType,
  typeOf,
} from "./_pir_attr_type.ts";

export type { PirAttr, PirType } from "./_pir_attr_type.ts";

/** The PIR versions Rill reads. */
export const PIR_VERSIONS: readonly number[] = [1, 2];

/** A value: an op's result or a block argument. */
export interface PirValue {
  /** Its id: positive for a result, negative for a block argument. */
  readonly id: number;
  /** Its type. */
  readonly type: PirType;
}

/** The flags and name of a parameter op `p`. */
export interface PirParameter {
  /** The key of its record in the `.pdiparams`. */
  readonly name: string;
  /** Whether training updates it (`OA`'s third flag). */
  readonly trainable: boolean;
}

/** One op. */
export interface PirOp {
  /** Its name with the dialect: `1.conv2d`, `0.combine`, or `p`. */
  readonly name: string;
  /** Its operands' value ids, 0 for the null value. */
  readonly operands: readonly number[];
  /** Its results. */
  readonly results: readonly PirValue[];
  /** Its attributes, in the file's order. */
  readonly attrs: readonly { readonly name: string; readonly value: PirAttr }[];
  /** Its regions (`1.if` has two, `1.while` one). */
  readonly regions: readonly PirRegion[];
  /** The parameter, for a `p` op. */
  readonly parameter?: PirParameter;
}

/** A block: its arguments and its ops. */
export interface PirBlock {
  /** Its name in the file (`block_3`). */
  readonly name: string;
  /** Its index in write order over the whole file (0 for the top block). */
  readonly index: number;
  /** Its arguments. */
  readonly args: readonly PirValue[];
  /** Its ops, in order. */
  readonly ops: readonly PirOp[];
}

/** A region: its blocks. */
export interface PirRegion {
  /** Its name in the file (`region_1`). */
  readonly name: string;
  /** Its blocks. */
  readonly blocks: readonly PirBlock[];
}

/** A decoded PIR program. */
export interface PirProgram {
  /** `base_code.version`: 1 or 2. */
  readonly version: number;
  /** `base_code.trainable`. */
  readonly trainable: boolean;
  /** The top-level block (the program's one region's one block). */
  readonly top: PirBlock;
}

type Json = unknown;

// The block and op a decode is at, for errors.
interface At {
  readonly file: string | undefined;
  block?: number;
  op?: number;
  opType?: string;
}

/**
 * Decodes a PIR program from its JSON text.
 *
 * @param text The file's contents.
 * @param file The file's path, named in errors.
 * @returns The program.
 * @throws {ProgramError} If the text is not JSON, not a PIR program of a
 * version Rill reads, or breaks an invariant of the module.
 *
 * @example Usage
 * ```ts
 * import { decodePirProgram } from "./pir_program.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const text = JSON.stringify({
 *   base_code: { magic: "pir", trainable: false, version: 1 },
 *   program: { regions: [{ "#": "region_0", blocks: [{ "#": "block_0", args: [], ops: [
 *     { "#": "1.full", I: [], O: [{ "%": 1, TT: { "#": "0.t_dtensor", D: [{ "#": "0.t_f32" }, [2], "NCHW", [], 0] } }],
 *       A: [{ N: "value", AT: { "#": "0.a_f64", D: 1.5 } }], OA: [] },
 *   ] }] }] },
 * });
 * const program = decodePirProgram(text, "m.json");
 * assertEquals(program.top.ops[0].name, "1.full");
 * assertEquals(program.top.ops[0].results[0].type, { kind: "dense", element: "0.t_f32", dims: [2] });
 * assertEquals(program.top.ops[0].attrs[0].value, { kind: "f64", value: 1.5 });
 * ```
 */
export function decodePirProgram(text: string, file?: string): PirProgram {
  let json: Json;
  try {
    json = JSON.parse(text);
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    throw new ProgramError(`not a PIR program: invalid JSON: ${detail}`, {
      file,
    });
  }
  const at: At = { file };
  const base = field(json, "base_code", at);
  const magic = field(base, "magic", at);
  if (magic !== "pir") {
    fail(at, `not a PIR program: magic is ${JSON.stringify(magic)}, not "pir"`);
  }
  const version = field(base, "version", at);
  if (typeof version !== "number" || !PIR_VERSIONS.includes(version)) {
    fail(
      at,
      `unknown PIR version ${JSON.stringify(version)} (Rill reads ${
        PIR_VERSIONS.join(" and ")
      })`,
    );
  }
  const regions = list(field(field(json, "program", at), "regions", at), at);
  if (regions.length !== 1) {
    fail(at, `the program has ${regions.length} regions, not 1`);
  }
  const decoder = new Decoder(file);
  const region = decoder.region(regions[0], at);
  if (region.blocks.length !== 1) {
    fail(at, `the program's region has ${region.blocks.length} blocks, not 1`);
  }
  return {
    version: version as number,
    trainable: field(base, "trainable", at, true) === true,
    top: region.blocks[0],
  };
}

// Walks the file depth-first in write order, numbering blocks and keeping
// the values each block may use.
class Decoder {
  readonly #file: string | undefined;
  #blocks = 0;
  // Every id defined so far, and the ids visible at this point: one set
  // per enclosing block, innermost last.
  readonly #defined = new Set<number>();
  readonly #visible: Set<number>[] = [];

  constructor(file: string | undefined) {
    this.#file = file;
  }

  region(json: Json, at: At): PirRegion {
    const blocks = list(field(json, "blocks", at), at).map((b) =>
      this.#block(b)
    );
    return { name: String(field(json, "#", at)), blocks };
  }

  #block(json: Json): PirBlock {
    const index = this.#blocks++;
    const at: At = { file: this.#file, block: index };
    this.#visible.push(new Set());
    const args = list(field(json, "args", at, []), at).map((a) =>
      this.#define(a, at)
    );
    const ops = list(field(json, "ops", at), at).map((o, i) => {
      const opAt: At = { file: this.#file, block: index, op: i };
      return this.#op(o, opAt);
    });
    this.#visible.pop();
    return { name: String(field(json, "#", at)), index, args, ops };
  }

  #op(json: Json, at: At): PirOp {
    const name = field(json, "#", at);
    if (typeof name !== "string") fail(at, "the op's name is not a string");
    at.opType = name as string;
    if (name === "p") return this.#parameter(json, at);
    const operands = list(field(json, "I", at, []), at).map((o) =>
      this.#use(field(o, "%", at), at)
    );
    // An op's regions see the values defined before the op, not its
    // results.
    const regions = list(field(json, "regions", at, []), at).map((r) =>
      this.region(r, at)
    );
    const results = list(field(json, "O", at, []), at).map((r) =>
      this.#define(r, at)
    );
    const attrs = list(field(json, "A", at, []), at).map((a) => ({
      name: String(field(a, "N", at)),
      value: attrOf(field(a, "AT", at), (d) => fail(at, d)),
    }));
    return { name: name as string, operands, results, attrs, regions };
  }

  // `p`: A = [is_distributed, is_parameter, need_clip, name], OA =
  // [persistable, stop_gradient, trainable], O = one result.
  #parameter(json: Json, at: At): PirOp {
    const flags = list(field(json, "A", at), at);
    const name = flags[flags.length - 1];
    if (typeof name !== "string") {
      fail(at, "the parameter op's last attribute is not its name");
    }
    const oa = list(field(json, "OA", at, []), at);
    const result = this.#define(field(json, "O", at), at);
    return {
      name: "p",
      operands: [],
      results: [result],
      attrs: [],
      regions: [],
      parameter: { name: name as string, trainable: oa[2] === 1 },
    };
  }

  #define(json: Json, at: At): PirValue {
    const id = field(json, "%", at);
    if (typeof id !== "number" || !Number.isInteger(id) || id === 0) {
      fail(at, `value id ${JSON.stringify(id)} is not a non-zero integer`);
    }
    if (this.#defined.has(id as number)) {
      fail(at, `value %${id} is defined twice`);
    }
    this.#defined.add(id as number);
    this.#visible[this.#visible.length - 1].add(id as number);
    const type = typeOf(field(json, "TT", at), (d) => fail(at, d));
    return { id: id as number, type };
  }

  #use(id: Json, at: At): number {
    if (id === 0) return 0;
    if (typeof id !== "number" || !Number.isInteger(id)) {
      fail(at, `operand ${JSON.stringify(id)} is not a value id`);
    }
    if (this.#visible.some((s) => s.has(id as number))) return id as number;
    fail(
      at,
      this.#defined.has(id as number)
        ? `value %${id} is used outside the block that defines it`
        : `value %${id} is used before it is defined`,
    );
  }
}

function fail(at: At, detail: string): never {
  const where: ProgramErrorWhere = { file: at.file };
  if (at.block !== undefined) where.block = at.block;
  if (at.op !== undefined) where.op = at.op;
  if (at.opType !== undefined) where.opType = at.opType;
  throw new ProgramError(detail, where);
}

// `json[key]`, or `fallback` when absent; absent without a fallback is an
// error naming the key.
function field(json: Json, key: string, at: At, fallback?: Json): Json {
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    fail(at, `not a PIR program: expected an object with "${key}"`);
  }
  const value = (json as Record<string, Json>)[key];
  if (value !== undefined) return value;
  if (fallback !== undefined) return fallback;
  fail(at, `not a PIR program: "${key}" is missing`);
}

function list(json: Json, at: At): Json[] {
  if (!Array.isArray(json)) fail(at, "not a PIR program: expected a list");
  return json as Json[];
}
