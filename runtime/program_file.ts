/**
 * Reading and writing program files: `.pb` (protobuf binary) and `.txtpb`
 * (protobuf text format). Every failure is a `ProgramError` whose one-line
 * message names the file and what is wrong with it.
 *
 * @module
 */
import { toBinary } from "@bufbuild/protobuf";
import {
  type ProgramDesc,
  ProgramDescSchema,
} from "../gen/rill/v1/framework_pb.ts";
import { compactFromBinary } from "./compact_from_binary.ts";
import { ProgramError } from "./errors.ts";
import { fileErrorReason } from "./file_error.ts";
import { fromText, toText } from "@bufbuild/protobuf/txtpb";

function isText(path: string): boolean {
  return /\.(txtpb|textproto|pbtxt|prototxt)$/i.test(path);
}

/**
 * Decodes program bytes: text format for a `.txtpb` path, else binary.
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
  try {
    program = isText(path)
      ? fromText(
        ProgramDescSchema,
        new TextDecoder("utf-8", { fatal: true }).decode(bytes),
      )
      : compactFromBinary(ProgramDescSchema, bytes);
  } catch (e) {
    const detail = (e as Error).message.split("\n")[0];
    throw new ProgramError(`not a ProgramDesc: ${detail}`, { file: path });
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
 * import { ProgramDescSchema } from "../gen/rill/v1/framework_pb.ts";
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
 * import { ProgramDescSchema } from "../gen/rill/v1/framework_pb.ts";
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
