/**
 * The operator registry: every op definition, listed explicitly, in one
 * `Map` from op type to `OpDef`. The validator, the builder, the printer and
 * the executor read it; a duplicate type is refused when the map is built.
 *
 * @module
 */
import type { OpDef } from "../core/op_def.ts";
import { ARRAY_OPS } from "./array.ts";
import { CHANNEL_OPS } from "./channel.ts";
import { CONTROL_FLOW_OPS } from "./control_flow.ts";
import { CLUSTER_OPS } from "./cluster.ts";
import { DATA_OPS } from "./data.ts";
import { ELEMENTWISE_OPS } from "./elementwise.ts";
import { FEED_FETCH_OPS } from "./feed_fetch.ts";
import { GO_OPS } from "./go.ts";
import { PRINT_OPS } from "./print.ts";
import { REDUCE_OPS } from "./reduce.ts";
import { RPC_OPS } from "./rpc.ts";
import { SELECT_OPS } from "./select.ts";
import { SHAPE_OPS } from "./shape.ts";
import { TIMER_OPS } from "./timer.ts";
import { VALUE_OPS } from "./values.ts";

/**
 * Builds a registry from definitions, refusing a type defined twice.
 *
 * @param defs The definitions.
 * @returns The registry.
 *
 * @example Usage
 * ```ts
 * import { makeRegistry } from "./mod.ts";
 * import { VALUE_OPS } from "./values.ts";
 * import { assertThrows } from "@std/assert";
 *
 * assertThrows(() => makeRegistry([...VALUE_OPS, ...VALUE_OPS]));
 * ```
 */
export function makeRegistry(
  defs: readonly OpDef[],
): ReadonlyMap<string, OpDef> {
  const registry = new Map<string, OpDef>();
  for (const def of defs) {
    if (registry.has(def.type)) {
      throw new TypeError(`register op: "${def.type}" is defined twice`);
    }
    registry.set(def.type, def);
  }
  return registry;
}

/**
 * Every op Rill runs, by type.
 *
 * @example Usage
 * ```ts
 * import { OPS } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(Object.keys(OPS.get("elementwise_add")!.inputs), ["X", "Y"]);
 * ```
 */
export const OPS: ReadonlyMap<string, OpDef> = makeRegistry([
  ...VALUE_OPS,
  ...ELEMENTWISE_OPS,
  ...REDUCE_OPS,
  ...SHAPE_OPS,
  ...ARRAY_OPS,
  ...CONTROL_FLOW_OPS,
  ...PRINT_OPS,
  ...CHANNEL_OPS,
  ...GO_OPS,
  ...SELECT_OPS,
  ...TIMER_OPS,
  ...DATA_OPS,
  ...CLUSTER_OPS,
  ...FEED_FETCH_OPS,
  ...RPC_OPS,
]);
