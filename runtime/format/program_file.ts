/**
 * Reading and writing program files: `.pb` (protobuf binary) and `.txtpb`
 * (protobuf text format), and reading Paddle 3's PIR programs (`.json`, or
 * any file whose first non-blank byte is `{`), converted to a `ProgramDesc`
 * (`pir_to_program.ts`). Every failure is a `ProgramError` whose one-line
 * message names the file and what is wrong with it.
 *
 * @module
 */
import { toBinary } from "@bufbuild/protobuf";
import {
  type ProgramDesc,
  ProgramDescSchema,
} from "../../gen/rill/v1/framework_pb.ts";
import { compactFromBinary } from "./compact_from_binary.ts";
import { ProgramError } from "../core/errors.ts";
import { fileErrorReason } from "../core/file_error.ts";
import { fromText, toText } from "@bufbuild/protobuf/txtpb";
import { decodePirProgram } from "./pir_program.ts";
import { pirToProgram } from "./pir_to_program.ts";

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split("\n")[0];
}

function parseText(text: string, path: string): ProgramDesc {
  try {
    return fromText(ProgramDescSchema, text);
  } catch (e) {
    const detail = firstLine(e);
    const where = text.length <= MAX_LOCATED_TEXT
      ? lineAndColumn(text, failureOffset(text, detail))
      : {};
    throw new ProgramError(`not a ProgramDesc: ${detail}`, {
      file: path,
      ...where,
    });
  }
}

// Where the first byte that is not valid UTF-8 sits: its offset, and its
// line and column (in characters) in the text before it. A lenient decode
// agrees with the bytes up to there and puts U+FFFD in its place; a U+FFFD
// the file spells out in UTF-8 is passed over.
function firstInvalidUtf8(
  bytes: Uint8Array,
): { byte: number; line: number; column: number } {
  const loose = new TextDecoder().decode(bytes);
  const encoder = new TextEncoder();
  for (
    let i = loose.indexOf("\uFFFD");
    i >= 0;
    i = loose.indexOf("\uFFFD", i + 1)
  ) {
    const byte = encoder.encode(loose.slice(0, i)).length;
    const spelled = bytes[byte] === 0xef && bytes[byte + 1] === 0xbf &&
      bytes[byte + 2] === 0xbd;
    if (!spelled) return { byte, ...lineAndColumn(loose, i) };
  }
  // The strict decoder refused what the lenient one kept: say the start.
  return { byte: 0, line: 1, column: 1 };
}

/**
 * The largest text whose errors get a line and column: finding them costs
 * about twenty parses of the text before the error, some 0.5 s at this size.
 * Hand-edited programs are far smaller.
 */
const MAX_LOCATED_TEXT = 512 * 1024;

/**
 * Where in `text` protobuf-es's text parser failed with `detail`; its errors
 * do not say. The parser reads left to right and stops at the first
 * problem, so the shortest prefix of the text that fails the same way ends
 * with the token at fault: a binary search finds it in a few parses.
 */
function failureOffset(text: string, detail: string): number {
  if (detail.includes("end of input")) return text.length;
  const failsSo = (end: number) => {
    try {
      fromText(ProgramDescSchema, text.slice(0, end));
      return false;
    } catch (e) {
      return firstLine(e) === detail;
    }
  };
  // Invariant: the prefix of length `hi` fails with `detail`; `lo`'s does not.
  let lo = 0;
  let hi = text.length;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (failsSo(mid)) hi = mid;
    else lo = mid;
  }
  // Back from the token's last character to its first.
  let start = hi - 1;
  while (start > 0 && /[\w."'-]/.test(text[start - 1])) start--;
  return start;
}

function lineAndColumn(
  text: string,
  offset: number,
): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  return {
    line: before.split("\n").length,
    column: offset - lineStart + 1,
  };
}

function isText(path: string): boolean {
  return /\.(txtpb|textproto|pbtxt|prototxt)$/i.test(path);
}

/**
 * Whether a program file is PIR JSON: a `.json` path, or bytes whose first
 * non-blank byte is `{` (a `ProgramDesc` begins with a field tag, never
 * with 0x7b, which would be field 15's group).
 */
function isPir(bytes: Uint8Array, path: string): boolean {
  if (/\.json$/i.test(path)) return true;
  for (const b of bytes) {
    if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) return b === 0x7b;
  }
  return false;
}

/**
 * Decodes program bytes: text format for a `.txtpb` path, PIR JSON for a
 * `.json` path or bytes that begin with `{`, else binary.
 *
 * @param bytes The file's contents.
 * @param path The file's path (its extension picks the format).
 * @returns The program.
 *
 * @example Usage
 * ```ts
 * import { decodeProgram } from "./program_file.ts";
 * import { assertThrows } from "@std/assert";
 *
 * assertThrows(() => decodeProgram(new Uint8Array([0xff, 0xff]), "bad.pb"), Error, "bad.pb");
 * ```
 */
export function decodeProgram(bytes: Uint8Array, path: string): ProgramDesc {
  let program: ProgramDesc;
  if (!isText(path) && isPir(bytes, path)) {
    const text = new TextDecoder().decode(bytes);
    return pirToProgram(decodePirProgram(text, path), { file: path });
  }
  if (isText(path)) {
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      const at = firstInvalidUtf8(bytes);
      throw new ProgramError(
        `not a ProgramDesc: not UTF-8 text (byte 0x${
          bytes[at.byte].toString(16).padStart(2, "0")
        } at byte ${at.byte})`,
        { file: path, line: at.line, column: at.column },
      );
    }
    program = parseText(text, path);
  } else {
    try {
      program = compactFromBinary(ProgramDescSchema, bytes);
    } catch (e) {
      throw new ProgramError(`not a ProgramDesc: ${firstLine(e)}`, {
        file: path,
      });
    }
  }
  if (program.blocks.length === 0) {
    throw new ProgramError(
      bytes.length === 0
        ? "not a ProgramDesc: the file is empty"
        : "not a ProgramDesc: it has no blocks",
      { file: path },
    );
  }
  return program;
}

/**
 * Reads a program file.
 *
 * @param path A `.pb` or `.txtpb` file.
 * @returns The program.
 *
 * @example Usage
 * ```ts
 * import { readProgramFile } from "./program_file.ts";
 * import { assertRejects } from "@std/assert";
 *
 * await assertRejects(() => readProgramFile("no/such/file.pb"), Error, "no such file");
 * ```
 */
export async function readProgramFile(path: string): Promise<ProgramDesc> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (e) {
    const detail = fileErrorReason(e);
    throw new ProgramError(`cannot read program: ${detail}`, { file: path });
  }
  return decodeProgram(bytes, path);
}

/**
 * The bytes of a program file: text format for a `.txtpb` path, else
 * binary.
 *
 * @param program The program.
 * @param path Where it will be written.
 * @returns The file's contents.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { decodeProgram, encodeProgram } from "./program_file.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = create(ProgramDescSchema, { blocks: [{ idx: 0, parentIdx: -1 }] });
 * assertEquals(decodeProgram(encodeProgram(p, "p.txtpb"), "p.txtpb").blocks[0].parentIdx, -1);
 * ```
 */
export function encodeProgram(program: ProgramDesc, path: string): Uint8Array {
  return isText(path)
    ? new TextEncoder().encode(toText(ProgramDescSchema, program))
    : toBinary(ProgramDescSchema, program);
}

/**
 * Writes a program file.
 *
 * @param path A `.pb` or `.txtpb` path.
 * @param program The program.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { readProgramFile, writeProgramFile } from "./program_file.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const path = await Deno.makeTempFile({ suffix: ".pb" });
 * await writeProgramFile(path, create(ProgramDescSchema, { blocks: [{ idx: 0, parentIdx: -1 }] }));
 * assertEquals((await readProgramFile(path)).blocks.length, 1);
 * ```
 */
export async function writeProgramFile(
  path: string,
  program: ProgramDesc,
): Promise<void> {
  await Deno.writeFile(path, encodeProgram(program, path));
}
