/**
 * The operator registry: every op definition, listed explicitly, in one
 * `Map` from op type to `OpDef`. The validator, the builder, the printer and
 * the executor read it; a duplicate type is refused when the map is built.
 *
 * @module
 */
import type { OpDef } from "../core/op_def.ts";
import { ACTIVATION_OPS } from "./activation.ts";
import { ARRAY_OPS } from "./array.ts";
import { CHANNEL_OPS } from "./channel.ts";
import { CONTROL_FLOW_OPS } from "./control_flow.ts";
import { CLUSTER_OPS } from "./cluster.ts";
import { DATA_OPS } from "./data.ts";
import { ELEMENTWISE_OPS } from "./elementwise.ts";
import { FEED_FETCH_OPS } from "./feed_fetch.ts";
import { GO_OPS } from "./go.ts";
import { INDEX_OPS } from "./indices.ts";
import { PADDLE_SHAPE_OPS } from "./paddle_shape.ts";
import { PRINT_OPS } from "./print.ts";
import { REDUCE_OPS } from "./reduce.ts";
import { RPC_OPS } from "./rpc.ts";
import { SELECT_OPS } from "./select.ts";
import { SHAPE_OPS } from "./shape.ts";
import { TIMER_OPS } from "./timer.ts";
import { VALUE_OPS } from "./values.ts";
import { CONV_OPS } from "./conv.ts";
import { POOL_OPS } from "./pool.ts";
import { NORM_OPS } from "./norm.ts";
import { RNN_OPS } from "./rnn.ts";
import { PADDLE_NN_OPS } from "./paddle_nn.ts";

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
import { CONV_OPS } from "./conv.ts";
import { POOL_OPS } from "./pool.ts";
import { NORM_OPS } from "./norm.ts";
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

/** A group of ops defined in one file of `runtime/ops/`. */
export interface OpGroup {
  /** What the ops are for, as a heading. */
  readonly title: string;
  /** Their definitions, in the file's order. */
  readonly ops: readonly OpDef[];
}

/**
 * Every op Rill runs, in groups: the source of `OPS` and of the operator
 * catalog (`docs/operators.md`, written by `deno task docs`).
 *
 * @example Usage
 * ```ts
 * import { OP_GROUPS, OPS } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(OP_GROUPS.flatMap((g) => g.ops).length, OPS.size);
 * ```
 */
export const OP_GROUPS: readonly OpGroup[] = [
  { title: "Values", ops: VALUE_OPS },
  {
    title: "Elementwise arithmetic, comparisons and logic",
    ops: ELEMENTWISE_OPS,
  },
  { title: "Reductions", ops: REDUCE_OPS },
  { title: "Shapes", ops: SHAPE_OPS },
  { title: "Tensor arrays", ops: ARRAY_OPS },
  { title: "Control flow", ops: CONTROL_FLOW_OPS },
  { title: "Output", ops: PRINT_OPS },
  { title: "Channels", ops: CHANNEL_OPS },
  { title: "Goroutines", ops: GO_OPS },
  { title: "Select", ops: SELECT_OPS },
  { title: "Timers", ops: TIMER_OPS },
  { title: "Data", ops: DATA_OPS },
  { title: "The cluster", ops: CLUSTER_OPS },
  { title: "Feeds and fetches", ops: FEED_FETCH_OPS },
  { title: "RPC", ops: RPC_OPS },
  { title: "Convolution", ops: CONV_OPS },
  { title: "Pooling", ops: POOL_OPS },
  { title: "Normalization", ops: NORM_OPS },
  {
    title: "Paddle's activations, clip, pow, log_softmax and dropout",
    ops: ACTIVATION_OPS,
  },
  {
    title: "Paddle's shapes: XShape, stacks, expansion",
    ops: PADDLE_SHAPE_OPS,
  },
  { title: "Positions: arg_max, top_k_v2, one_hot_v2", ops: INDEX_OPS },
  { title: "Recurrent networks", ops: RNN_OPS },
  {
    title: "Paddle's inference layers: fc, lookup_table_v2",
    ops: PADDLE_NN_OPS,
  },
];

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
export const OPS: ReadonlyMap<string, OpDef> = makeRegistry(
  OP_GROUPS.flatMap((group) => group.ops),
);
