/**
 * Whether a worker's piece may be retried on another worker: the piece is
 * the ops a worker runs per call (the `listen_and_do` block), and running
 * it twice, or on another worker, gives the same reply only when every one
 * of them is a pure function of its inputs and attributes (each op's
 * `impure` fact, runtime/core/op_def.ts). The transpiler sets the master's
 * `send` attribute `retry` from this judgement.
 *
 * @module
 */
import type { OpDesc } from "../../gen/rill/v1/framework_pb.ts";
import { readAttrs } from "../core/attr_read.ts";
import type { AttrSchema, AttrValues } from "../core/op_def.ts";
import { OPS } from "../ops/mod.ts";

/**
 * Why the piece `ops` (a block's ops, in order) is not pure, naming the
 * first op that makes it so; `undefined` when every op is pure.
 *
 * An op Rill does not know counts as impure: nothing says what it does.
 *
 * @param ops The ops of the piece.
 * @param block The block they are in, for the message.
 * @returns The reason, or `undefined`.
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { OpDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { impurityOf } from "./pure_piece.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const relu = create(OpDescSchema, { type: "relu" });
 * const print = create(OpDescSchema, { type: "print" });
 * assertEquals(impurityOf([relu], 1), undefined);
 * assertEquals(impurityOf([relu, print], 1), "block 1 op 1 (print) prints");
 * ```
 */
export function impurityOf(
  ops: readonly OpDesc[],
  block: number,
): string | undefined {
  for (const [i, op] of ops.entries()) {
    const def = OPS.get(op.type);
    const why = def === undefined ? "is not a known op" : def.impure?.(
      readAttrs(def.attrs, op.attrs) as AttrValues<AttrSchema>,
    );
    if (why !== undefined) return `block ${block} op ${i} (${op.type}) ${why}`;
  }
  return undefined;
}
