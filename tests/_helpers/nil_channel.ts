/**
 * Go's nil channel in a built program.
 *
 * @module
 */
import { defaultProgram, type Variable } from "../../mod.ts";

/**
 * Declares a channel variable in the current block and never makes it:
 * the nil channel.
 *
 * @param name The variable's name.
 * @returns The channel variable.
 */
export function nilChannel(name: string): Variable {
  return defaultProgram().currentBlock.createVar({ kind: "channel", name });
}
