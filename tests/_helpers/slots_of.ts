/**
 * An op's slots in a form `assertEquals` can compare.
 *
 * @module
 */
import type { OpDesc } from "../../mod.ts";

/**
 * The `Var` slots of an op as `{ slot: [names] }`.
 *
 * @param vars An op's inputs or outputs.
 * @returns The argument names by slot.
 */
export function slotsOf(vars: OpDesc["inputs"]): Record<string, string[]> {
  return Object.fromEntries(vars.map((v) => [v.parameter, v.arguments]));
}
