/**
 * An op's attribute by name, for tests that check what a builder appended.
 *
 * @module
 */
import type { OpDesc } from "../../mod.ts";

/**
 * The attribute `name` of `op`.
 *
 * @param op The op.
 * @param name The attribute's name.
 * @returns The attribute.
 * @throws {Error} If `op` has no attribute `name`.
 */
export function attrOf(op: OpDesc, name: string) {
  const a = op.attrs.find((a) => a.name === name);
  if (a === undefined) throw new Error(`${op.type} has no attribute ${name}`);
  return a;
}
