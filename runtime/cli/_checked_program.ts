/**
 * A program read by a command that looks at it without running it (`graph`,
 * `vet`), along the path a run takes before anything runs: the file or
 * model directory read as `runProgram` reads it (`loadModel`, parameters
 * included), then validated as `Executor.run` validates it. So a malformed
 * program gives these commands the `error:` line it gives a run.
 *
 * @module
 */
import type { ProgramDesc } from "../../gen/rill/v1/framework_pb.ts";
import { validateProgram } from "../check/validate.ts";
import { loadModel } from "../format/model_dir.ts";

/**
 * Reads and validates a program or model directory.
 *
 * @param path A `.pb`, a `.txtpb` or a model directory.
 * @returns The program.
 * @throws {ProgramError} As a run would, before running.
 *
 * @example Usage
 * ```ts
 * import { loadCheckedProgram } from "./_checked_program.ts";
 * import { assertEquals, assertRejects } from "@std/assert";
 *
 * assertEquals((await loadCheckedProgram("examples/mult.pb")).blocks.length, 1);
 * await assertRejects(() => loadCheckedProgram("missing.pb"), Error, "no such file");
 * ```
 */
export async function loadCheckedProgram(path: string): Promise<ProgramDesc> {
  const model = await loadModel(path);
  validateProgram(model.desc, { file: model.file });
  return model.desc;
}
