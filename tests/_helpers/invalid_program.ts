/**
 * Validation failures of one-block programs written as descriptors (so
 * that no builder's shape rule refuses them first): the `ProgramError`
 * that `validateProgram` throws, for tests that assert on its fields.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import { assertInstanceOf, assertThrows } from "@std/assert";
import { ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
import { ProgramError } from "../../runtime/core/errors.ts";
import { validateProgram } from "../../runtime/check/validate.ts";
import type { OpInit, VarInit } from "./desc_init.ts";

/**
 * Validates block 0 made of `vars` and `ops`, read from "p.pb", expecting
 * a refusal.
 *
 * @param vars The block's variables.
 * @param ops The block's ops.
 * @returns The error validation threw.
 */
export function validationError(
  vars: readonly VarInit[],
  ops: readonly OpInit[],
): ProgramError {
  const program = create(ProgramDescSchema, {
    blocks: [{ idx: 0, parentIdx: -1, vars: [...vars], ops: [...ops] }],
  });
  const e = assertThrows(() => validateProgram(program, { file: "p.pb" }));
  assertInstanceOf(e, ProgramError);
  return e;
}

/**
 * Validates block 0 made of `vars` and `ops`, expecting it to pass.
 *
 * @param vars The block's variables.
 * @param ops The block's ops.
 */
export function assertValid(
  vars: readonly VarInit[],
  ops: readonly OpInit[],
): void {
  validateProgram(create(ProgramDescSchema, {
    blocks: [{ idx: 0, parentIdx: -1, vars: [...vars], ops: [...ops] }],
  }));
}
