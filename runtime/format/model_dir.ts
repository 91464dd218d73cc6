/**
 * Model directories, as PaddlePaddle saves them: the program and its
 * parameters, read and checked before anything runs.
 *
 * - The program is `__model__` (Fluid 1.x's `save_inference_model`), the
 *   directory's one `*.pdmodel` (Paddle 2.x), or else its PIR program
 *   (Paddle 3.x): the one `*.json` with a `.pdiparams` of the same stem,
 *   else `inference.json`. A PIR program's parameters are its `p` ops,
 *   which the conversion declares as persistable variables, so they are
 *   read and checked exactly as a `.pdmodel`'s.
 * - The parameters are the program's persistable block-0 variables, the
 *   FEED_MINIBATCH and FETCH_LIST lists left out, as Paddle's
 *   `is_persistable` leaves them out. They come from one combined file
 *   (`--params FILE`, else `__params__` beside `__model__`, else the
 *   `.pdiparams` beside the `.pdmodel`) holding them in order of name, as
 *   Paddle writes it; or else from one file per variable, named as the
 *   variable, Fluid's default.
 * - Each parameter must fit its `VarDesc`: a tensor of the declared dtype
 *   and dims (a -1 dim matches any size).
 *
 * Every failure is one `ProgramError` naming the file and the variable.
 *
 * @module
 */
import type { ProgramDesc, VarDesc } from "../../gen/rill/v1/framework_pb.ts";
import { VarType_Type } from "../../gen/rill/v1/framework_pb.ts";
import type { Tensor } from "../../kernels/tensor.ts";
import {
  describeDeclaration,
  describeTensor,
  fitsDeclaration,
} from "../core/declared_fit.ts";
import { ProgramError } from "../core/errors.ts";
import { fileErrorReason } from "../core/file_error.ts";
import { readProgramFile } from "./program_file.ts";
import { readPaddleTensor } from "./paddle_tensor.ts";
import { readTensorFile, sniffTensorFile } from "./tensor_file.ts";

/** Options of `loadModel`. */
export interface LoadModelOptions {
  /**
   * A combined parameter file to read the parameters from, whatever the
   * directory holds; relative to the working directory.
   *
   * @default {the directory's `__params__` or `.pdiparams`, else one file per parameter}
   */
  params?: string;
}

/** A program read from a file or a model directory, with its parameters. */
export interface LoadedModel {
  /** The program. */
  readonly desc: ProgramDesc;
  /** The program's file (`dir/__model__`, `dir/model.pdmodel`, …). */
  readonly file: string;
  /** The parameters by variable name; empty for a bare program file. */
  readonly parameters: ReadonlyMap<string, Tensor>;
}

/**
 * The variables a model's parameter files hold: block 0's persistable
 * variables other than the feed and fetch lists, in order of name (the
 * order of a combined file).
 *
 * @param desc The program.
 * @returns Their declarations.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { persistableVariables } from "./model_dir.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const desc = create(ProgramDescSchema, {
 *   blocks: [{ idx: 0, parentIdx: -1, vars: [
 *     { name: "w", type: { type: 7 }, persistable: true },
 *     { name: "feed", type: { type: 9 }, persistable: true },
 *     { name: "b", type: { type: 7 }, persistable: true },
 *     { name: "tmp", type: { type: 7 } },
 *   ] }],
 * });
 * assertEquals(persistableVariables(desc).map((v) => v.name), ["b", "w"]);
 * ```
 */
export function persistableVariables(desc: ProgramDesc): VarDesc[] {
  const lists = [VarType_Type.FEED_MINIBATCH, VarType_Type.FETCH_LIST];
  const vars = (desc.blocks[0]?.vars ?? []).filter((v) =>
    v.persistable && !lists.includes(v.type?.type ?? VarType_Type.LOD_TENSOR)
  );
  // Python's sorted() compares code points; UTF-16 order agrees for every
  // name without characters beyond U+FFFF.
  return vars.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/**
 * Reads a program: a `.pb` / `.txtpb` file as it is, or a model directory
 * with its parameters (see the module's documentation). `--params` given
 * with a program file loads that file's parameters too.
 *
 * @param path A program file or a model directory.
 * @param options A combined parameter file.
 * @returns The program, its file and its parameters.
 * @throws {ProgramError} If the program or a parameter cannot be read or
 * does not fit its declaration.
 *
 * @example Usage
 * ```ts
 * import { Program, Tensor, writePaddleTensor } from "../../mod.ts";
 * import { loadModel } from "./model_dir.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const dir = await Deno.makeTempDir();
 * const program = new Program();
 * program.globalBlock.createVar({ name: "w", dtype: "float32", shape: [2], persistable: true });
 * await program.save(`${dir}/__model__`);
 * await Deno.writeFile(`${dir}/w`, writePaddleTensor(Tensor.fromArray([1, 2], "float32")));
 * const model = await loadModel(dir);
 * assertEquals(model.parameters.get("w")?.toNested(), [1, 2]);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function loadModel(
  path: string,
  options: LoadModelOptions = {},
): Promise<LoadedModel> {
  const dir = await isDirectory(path) ? path : undefined;
  const found = dir === undefined
    ? { program: path, params: undefined }
    : await findModelFiles(dir);
  const desc = await readProgramFile(found.program);
  const params = options.params ?? found.params;
  const vars = persistableVariables(desc);
  let parameters: Map<string, Tensor>;
  if (params !== undefined) {
    parameters = await readCombined(params, vars);
  } else if (dir !== undefined) {
    parameters = await readEach(dir, vars);
  } else {
    parameters = new Map();
  }
  return { desc, file: found.program, parameters };
}

/**
 * Whether `path` names a directory (`false` when it names nothing).
 *
 * @param path Any path.
 * @returns Whether it is a directory.
 *
 * @example Usage
 * ```ts
 * import { isDirectory } from "./model_dir.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(await isDirectory("."), true);
 * assertEquals(await isDirectory("no/such/dir"), false);
 * ```
 */
export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

/**
 * The program file of a model directory and its combined parameter file,
 * if it has one.
 *
 * @param dir The directory.
 * @returns The paths.
 * @throws {ProgramError} If the directory holds no program, or several.
 *
 * @example Usage
 * ```ts
 * import { findModelFiles } from "./model_dir.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeFile(`${dir}/net.pdmodel`, new Uint8Array());
 * await Deno.writeFile(`${dir}/net.pdiparams`, new Uint8Array());
 * assertEquals(await findModelFiles(dir), {
 *   program: `${dir}/net.pdmodel`,
 *   params: `${dir}/net.pdiparams`,
 * });
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function findModelFiles(
  dir: string,
): Promise<{ program: string; params: string | undefined }> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isDirectory) names.push(entry.name);
    }
  } catch (e) {
    throw new ProgramError(
      `cannot read model directory: ${fileErrorReason(e)}`,
      {
        file: dir,
      },
    );
  }
  const programs = programFiles(names);
  if (programs.length !== 1) {
    throw new ProgramError(
      programs.length === 0
        ? "no __model__, *.pdmodel or inference.json file in the model directory"
        : `more than one program in the model directory: ${
          programs.join(", ")
        }`,
      { file: dir },
    );
  }
  const program = programs[0];
  const stem = program === "__model__"
    ? undefined
    : program.replace(/\.(pdmodel|json)$/, "");
  const pdiparams = names.filter((n) => n.endsWith(".pdiparams"));
  const params = program === "__model__"
    ? names.find((n) => n === "__params__")
    : pdiparams.find((n) => n === `${stem}.pdiparams`) ??
      (pdiparams.length === 1 ? pdiparams[0] : undefined);
  return {
    program: `${dir}/${program}`,
    params: params === undefined ? undefined : `${dir}/${params}`,
  };
}

// The programs among a directory's file names: `__model__` and `*.pdmodel`,
// else the PIR programs (a `.json` beside its `.pdiparams`, or
// `inference.json`), in name order.
function programFiles(names: readonly string[]): string[] {
  const programs = names.filter((n) =>
    n === "__model__" || /\.pdmodel$/.test(n)
  );
  if (programs.length > 0) return programs.sort();
  return names.filter((n) =>
    n === "inference.json" ||
    (/\.json$/.test(n) && names.includes(n.replace(/\.json$/, ".pdiparams")))
  ).sort();
}

async function readBytes(
  file: string,
  variable?: string,
): Promise<Uint8Array> {
  try {
    return await Deno.readFile(file);
  } catch (e) {
    const what = variable === undefined
      ? "parameters"
      : `parameter "${variable}"`;
    throw new ProgramError(`cannot read ${what}: ${fileErrorReason(e)}`, {
      file,
      variable,
    });
  }
}

// A decoder's message without its own "read …:" label.
function detailOf(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  return message.replace(/^read [a-z ]+: /, "");
}

function checked(file: string, v: VarDesc, t: Tensor): Tensor {
  if (!fitsDeclaration(v, t)) {
    throw new ProgramError(
      `parameter "${v.name}" is declared ${describeDeclaration(v)}, ` +
        `the file holds ${describeTensor(t)}`,
      { file, variable: v.name },
    );
  }
  return t;
}

async function readEach(
  dir: string,
  vars: readonly VarDesc[],
): Promise<Map<string, Tensor>> {
  // Read at once; the first failure in name order is the one reported.
  const settled = await Promise.allSettled(vars.map(async (v) => {
    const file = `${dir}/${v.name}`;
    const bytes = await readBytes(file, v.name);
    let t: Tensor;
    try {
      t = readTensorFile(bytes).tensor;
    } catch (e) {
      throw new ProgramError(`parameter "${v.name}": ${detailOf(e)}`, {
        file,
        variable: v.name,
      });
    }
    return checked(file, v, t);
  }));
  const parameters = new Map<string, Tensor>();
  settled.forEach((result, i) => {
    if (result.status === "rejected") throw result.reason;
    parameters.set(vars[i].name, result.value);
  });
  return parameters;
}

async function readCombined(
  file: string,
  vars: readonly VarDesc[],
): Promise<Map<string, Tensor>> {
  const bytes = await readBytes(file);
  if (sniffTensorFile(bytes) === "npy") {
    throw new ProgramError(
      "a .npy file, not a combined parameter file (Paddle's format)",
      { file },
    );
  }
  const parameters = new Map<string, Tensor>();
  let at = 0;
  vars.forEach((v, i) => {
    const which = `parameter "${v.name}" (${i + 1} of ${vars.length} by name)`;
    if (at === bytes.length) {
      throw new ProgramError(
        `${which} is missing: the file ends after ${i} tensors`,
        { file, variable: v.name },
      );
    }
    let read;
    try {
      read = readPaddleTensor(bytes, at);
    } catch (e) {
      throw new ProgramError(`${which}: ${detailOf(e)}`, {
        file,
        variable: v.name,
      });
    }
    parameters.set(v.name, checked(file, v, read.tensor));
    at = read.next;
  });
  if (at !== bytes.length) {
    throw new ProgramError(
      `more than the ${vars.length} parameters the program declares: ` +
        `${bytes.length - at} bytes left at byte ${at}`,
      { file },
    );
  }
  return parameters;
}
