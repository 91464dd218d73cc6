/**
 * Converting and running the hand-written PIR programs of the PIR
 * reader's tests (`pir_json.ts`).
 *
 * @module
 */
import {
  decodePirProgram,
  Executor,
  pirToProgram,
  Program,
  type ProgramDesc,
  Tensor,
  validateProgram,
} from "../../mod.ts";
import { dense, type Json, pirText } from "./pir_json.ts";
import { tensorOf } from "./run_program.ts";

/** The program whose top block holds `ops`, converted and validated. */
export function convertPir(ops: Json[], version = 1): ProgramDesc {
  const desc = pirToProgram(decodePirProgram(pirText(ops, { version })));
  validateProgram(desc);
  return desc;
}

/** Runs `desc` on the CPU with `feeds` and returns the fetched `fetch`. */
export async function runPir(
  desc: ProgramDesc,
  feeds: Record<string, Tensor>,
  fetch = "fetch_name_0",
): Promise<Tensor> {
  const { fetched } = await new Executor().run(new Program(desc), {
    feeds,
    fetch: [fetch],
  });
  return tensorOf(fetched[fetch]);
}

/** The op types of a block, in order. */
export function opTypes(desc: ProgramDesc, block = 0): string[] {
  return desc.blocks[block].ops.map((o) => o.type);
}

/** The type of a float32 [2, 4] value. */
export const F4: Json = dense("f32", [2, 4]);

/** A float32 [2, 4] feed. */
export const X: Tensor = Tensor.fromArray(
  [[1, -2, 3, -4], [5, -6, 7, -8]],
  "float32",
);
