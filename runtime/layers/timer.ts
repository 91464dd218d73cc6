/**
 * Builders for the timer ops: `sleep`, `after`.
 *
 * @module
 */
import type { Variable } from "../build/program.ts";
import { appendLayer } from "./append_layer.ts";

/**
 * `sleep`: parks the green thread for `ms` milliseconds.
 *
 * @param ms The duration.
 *
 * @example Usage
 * ```ts
 * import { Program, sleep } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => sleep(5));
 * assertEquals(p.desc.blocks[0].ops[0].type, "sleep");
 * ```
 */
export function sleep(ms: number): void {
  appendLayer("sleep", {}, { ms });
}

/**
 * `channel_after`: a channel that delivers `true` once, after `ms`.
 *
 * @param ms The delay.
 * @returns The channel variable.
 *
 * @example Usage
 * ```ts
 * import { after, Program } from "../../mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * assertEquals(p.guard(() => after(10)).kind, "channel");
 * ```
 */
export function after(ms: number): Variable {
  return appendLayer("channel_after", {}, { ms }).Out[0];
}
