/**
 * What one op does with each variable it names, finer than
 * `op_variables.ts` (which only splits reads from writes):
 *
 * - `read`: an input, or an output the op stores into in place
 *   (`write_to_array`'s Out);
 * - `write`: the op's result, its first output slot when required;
 * - `secondary`: a result the op fills whether or not anyone wants it, as
 *   Go's `v, _ := <-ch` names a blank: an optional output (a receive's
 *   Status, `read`'s Rows, `while`'s StepScopes), any output slot after the
 *   first (Paddle lists an op's by-products there: reshape2's XShape,
 *   batch_norm's saved statistics), and the value and ok of a receive,
 *   which is a synchronization as much as a read (Go's `<-done`), whether
 *   `channel_recv`'s or a `select` case's;
 * - `listed`: a name in the lists that `while`, `conditional_block`, `go`,
 *   `parallel_for` and `select` carry of their sub-blocks' free variables
 *   (`X`, `Input`, `Out`): the sub-block's own ops do that reading and
 *   writing, so the op itself does neither;
 * - `send`, `recv`, `close`: a channel operation on the variable's channel
 *   (`channel_send`, `channel_recv`, `channel_close`, a `select` case).
 *
 * The listing slots and the channel directions are facts of the
 * control-flow and channel ops, held in the two tables below. An op they do
 * not name uses its slots plainly (inputs read, required outputs written),
 * so a new op is never taken for a send, a receive or a mere listing:
 * analysis that reads a channel use it cannot place treats it as unknown.
 *
 * @module
 */
import type { OpDesc } from "../../gen/rill/v1/framework_pb.ts";
import { readAttrs } from "../core/attr_read.ts";
import type { AttrSchema, AttrValues } from "../core/op_def.ts";
import { OPS } from "../ops/mod.ts";
import { parseSelectCase } from "../ops/select.ts";

/** What an op does with one variable it names (see the module's text). */
export type UseKind =
  | "read"
  | "write"
  | "secondary"
  | "listed"
  | "send"
  | "recv"
  | "close";

/** One variable an op names, and what the op does with it. */
export interface OpUse {
  /** The variable's name. */
  readonly name: string;
  /** What the op does with it. */
  readonly kind: UseKind;
  /** The slot naming it, or `case N` for a name in a `select` case. */
  readonly slot: string;
}

// The slots that list a sub-block's free variables, by op type.
const LISTING_SLOTS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["while", new Set(["X", "Out"])],
  ["conditional_block", new Set(["Input", "Out"])],
  ["go", new Set(["X"])],
  ["parallel_for", new Set(["X", "Out"])],
  ["select", new Set(["X"])],
]);

// The channel ops' `Channel` input, by op type: what the op does to it.
const CHANNEL_OPS: ReadonlyMap<string, UseKind> = new Map([
  ["channel_send", "send"],
  ["channel_recv", "recv"],
  ["channel_close", "close"],
]);

// Required outputs that are secondary all the same: a receive's value.
const SECONDARY_OUTPUTS: ReadonlyMap<string, string> = new Map([
  ["channel_recv", "Out"],
]);

/**
 * Every variable `op` names, in slot order (inputs, outputs, then the names
 * in its attributes), each with what the op does with it; a name may come
 * more than once.
 *
 * @param op The op.
 * @returns Its uses.
 * @throws {RangeError} When attributes that name variables cannot be read
 * (a program that does not validate).
 *
 * @example Usage
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { AttrType, OpDescSchema } from "../../gen/rill/v1/framework_pb.ts";
 * import { opUses } from "./op_uses.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const op = create(OpDescSchema, {
 *   type: "select",
 *   inputs: [{ parameter: "X", arguments: ["ch", "x"] }],
 *   attrs: [
 *     { name: "cases", type: AttrType.STRINGS, strings: ["recv,ch,v,ok", "send,ch,x,"] },
 *     { name: "sub_blocks", type: AttrType.BLOCKS, blocksIdx: [1, 2] },
 *   ],
 * });
 * assertEquals(opUses(op).map((u) => `${u.kind} ${u.name}`), [
 *   "listed ch", "listed x", "recv ch", "secondary v", "secondary ok", "send ch", "read x",
 * ]);
 * ```
 */
export function opUses(op: OpDesc): OpUse[] {
  const def = OPS.get(op.type);
  const listing = LISTING_SLOTS.get(op.type);
  const channelUse = CHANNEL_OPS.get(op.type);
  const uses: OpUse[] = [];
  for (const { parameter: slot, arguments: names } of op.inputs) {
    const kind: UseKind = listing?.has(slot)
      ? "listed"
      : channelUse !== undefined && slot === "Channel"
      ? channelUse
      : "read";
    for (const name of names) uses.push({ name, kind, slot });
  }
  const result = def === undefined
    ? op.outputs[0]?.parameter
    : Object.keys(def.outputs)[0];
  for (const { parameter: slot, arguments: names } of op.outputs) {
    const spec = def?.outputs[slot];
    const kind: UseKind = listing?.has(slot)
      ? "listed"
      : spec?.inPlace
      ? "read"
      : spec?.optional || slot !== result ||
          SECONDARY_OUTPUTS.get(op.type) === slot
      ? "secondary"
      : "write";
    for (const name of names) uses.push({ name, kind, slot });
  }
  if (op.type === "select") uses.push(...selectCaseUses(op));
  else if (def?.namedVariables !== undefined) {
    const named = def.namedVariables(
      readAttrs(def.attrs, op.attrs) as AttrValues<AttrSchema>,
    );
    for (const name of named.reads) uses.push({ name, kind: "read", slot: "" });
    for (const name of named.writes) {
      uses.push({ name, kind: "write", slot: "" });
    }
  }
  return uses;
}

// A select's cases: each names its channel, and a send's value or a
// receive's value and ok variables.
function selectCaseUses(op: OpDesc): OpUse[] {
  const cases = op.attrs.find((a) => a.name === "cases")?.strings ?? [];
  const uses: OpUse[] = [];
  cases.forEach((text, i) => {
    const c = parseSelectCase(text);
    const slot = `case ${i}`;
    if (c.kind === "default") return;
    uses.push({ name: c.channel, kind: c.kind, slot });
    if (c.kind === "send") uses.push({ name: c.value, kind: "read", slot });
    else {
      if (c.value !== "") uses.push({ name: c.value, kind: "secondary", slot });
      if (c.ok !== "") uses.push({ name: c.ok, kind: "secondary", slot });
    }
  });
  return uses;
}
