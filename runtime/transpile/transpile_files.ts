/**
 * The transpiler on files, for the `transpile` command: reads a program or
 * a model directory, writes `master.pb` and `worker.pb` into a directory,
 * and, when the worker needs parameters read from the model, their
 * combined file `worker.pdiparams` beside `worker.pb` (which the `worker`
 * command reads).
 *
 * @module
 */
import { ProgramError } from "../core/errors.ts";
import { fileErrorReason } from "../core/file_error.ts";
import { loadModel, persistableVariables } from "../format/model_dir.ts";
import { writeProgramFile } from "../format/program_file.ts";
import { writePaddleTensors } from "../format/paddle_tensor.ts";
import {
  fingerprintPair,
  paramsDigest,
  stampFingerprint,
  stampParamsDigest,
} from "./fingerprint.ts";
import { transpile, type TranspileOptions } from "./transpile.ts";

/** The worker's parameter file, beside `worker.pb`. */
export const WORKER_PARAMS_FILE = "worker.pdiparams";

// `dir/name`; the run path imports no path library.
function join(dir: string, name: string): string {
  return dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`;
}

/** What {@linkcode transpileFiles} wrote. */
export interface TranspiledFiles {
  /** `DIR/master.pb`. */
  readonly master: string;
  /** `DIR/worker.pb`. */
  readonly worker: string;
  /** `DIR/worker.pdiparams`, when the worker has parameters from a model. */
  readonly workerParams?: string;
  /** The pair's fingerprint, stamped on both programs (fingerprint.ts). */
  readonly fingerprint: string;
}

/**
 * Splits the program at `path` (a program file or a model directory) and
 * writes the two programs into `outDir`, creating it if needed.
 *
 * @param path The program or model directory.
 * @param outDir Where to write.
 * @param options Where the master finds the workers.
 * @returns The paths written.
 * @throws {ProgramError} If the program cannot be read or split, or a file
 * cannot be written.
 *
 * @example Usage
 * ```ts
 * import { assignValue, mul, print, Program, read, transpileFiles } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const dir = await Deno.makeTempDir();
 * const p = new Program();
 * p.guard(() => {
 *   const [x] = read("x.npy");
 *   print(mul(x, assignValue([1, 2, 3, 4], { shape: [2, 2] })));
 * });
 * await p.save(`${dir}/mult.pb`);
 * const files = await transpileFiles(`${dir}/mult.pb`, `${dir}/out`);
 * assertEquals(files.worker, `${dir}/out/worker.pb`);
 * assertEquals(files.workerParams, undefined);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function transpileFiles(
  path: string,
  outDir: string,
  options: TranspileOptions = {},
): Promise<TranspiledFiles> {
  const model = await loadModel(path);
  const { master, worker } = transpile(model.desc, options);
  const files = {
    master: join(outDir, "master.pb"),
    worker: join(outDir, "worker.pb"),
  };
  const params = persistableVariables(worker).flatMap((v) => {
    const t = model.parameters.get(v.name);
    return t === undefined ? [] : [t];
  });
  const paramBytes = params.length === 0
    ? new Uint8Array()
    : writePaddleTensors(params);
  const fingerprint = await fingerprintPair(master, worker, paramBytes);
  stampFingerprint(master, "send", fingerprint);
  stampFingerprint(worker, "listen_and_do", fingerprint);
  if (params.length > 0) {
    stampParamsDigest(worker, await paramsDigest(paramBytes));
  }
  try {
    await Deno.mkdir(outDir, { recursive: true });
    await writeProgramFile(files.master, master);
    await writeProgramFile(files.worker, worker);
    if (params.length === 0) return { ...files, fingerprint };
    const workerParams = join(outDir, WORKER_PARAMS_FILE);
    await Deno.writeFile(workerParams, paramBytes);
    return { ...files, workerParams, fingerprint };
  } catch (e) {
    if (e instanceof ProgramError) throw e;
    throw new ProgramError(
      `transpile: cannot write into "${outDir}": ${fileErrorReason(e)}`,
    );
  }
}
