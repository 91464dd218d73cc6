/**
 * `vet` (`deno run -A mod.ts vet PROGRAM`): mistakes a program may make
 * that validation lets through, because the program still means something.
 * Each finding is one line, located the way errors are
 * (`block 1 op 2 (increment): variable "x": …`). The rules:
 *
 * - `race`: two green threads may rebind the same outer variable at once,
 *   other than through a channel or a tensor array (a data race, as Go
 *   defines it): a go block and the thread that spawned it, after the
 *   spawn; two go blocks, or two runs of one go in a loop; the iterations
 *   of a `parallel_for`.
 * - `late_capture`: a go block reads, by reference, an outer variable that
 *   its spawner rebinds after the spawn (a later op, or another pass of a
 *   loop around the go): the goroutine may see either value. A go's `Args`
 *   are copied at the spawn, so they never count.
 * - `one_way_channel`: a channel made by `channel_create` that is only
 *   sent on (or closed) and never received from, or only received from and
 *   never sent on or closed, anywhere in the program.
 * - `nil_select`: a `select` without a default whose every case's channel
 *   is nil (declared, never made by `channel_create`): it blocks for ever.
 * - `unused`: a variable that is written and never read, other than a
 *   persistable one (a parameter), the feed and fetch lists, a block-0
 *   variable fetched after the run, and the results an op fills whether or
 *   not anyone wants them (`op_uses.ts`'s secondary results: a receive's
 *   value and Status, a select case's ok, an op's outputs after its first).
 * - `unreferenced_block`: a block that no op's block attribute names.
 * - `stuck_loop`: a `while` whose Condition is computed (some op other
 *   than a constant fill writes it) but never written by its body (its
 *   block and the blocks nested in it): once it starts it never ends (a
 *   loop over `channel_recv` that drops the receive's Status does this). A
 *   condition only ever set to a constant is Go's `for {}`, meant to run
 *   until the program ends, and is left alone.
 *
 * Whether two writes may overlap is placement's question
 * (`_spawn_path.ts`), asked of a program index whose ops' uses leave out
 * the lists that control-flow ops carry of their sub-blocks' variables, so
 * that a finding names the op that really writes. Channels are followed
 * through `assign` and a go's `Args` (`channel_flow.ts`).
 *
 * @module
 */
import {
  AttrType,
  type OpDesc,
  type ProgramDesc,
  VarType_Type,
} from "../../gen/rill/v1/framework_pb.ts";
import { printable } from "../core/errors.ts";
import type { NamedVariables } from "../core/op_def.ts";
import { parseSelectCase } from "../ops/select.ts";
import { ProgramIndex } from "./_program_index.ts";
import { type ChannelFlow, channelFlow } from "./channel_flow.ts";
import { opUses } from "./op_uses.ts";
import { vetThreads } from "./_vet_threads.ts";
import { type VetDraft, where } from "./_vet_draft.ts";
import type { UseSite } from "./variable_uses.ts";

/** The rules `vetProgram` checks, in the order the module's text gives. */
export type VetRule =
  | "race"
  | "late_capture"
  | "one_way_channel"
  | "nil_select"
  | "unused"
  | "unreferenced_block"
  | "stuck_loop";

/** One finding of `vetProgram`. */
export interface VetFinding {
  /** The rule it breaks. */
  readonly rule: VetRule;
  /** The block. */
  readonly block: number;
  /** The op's index in the block, when an op is named. */
  readonly op?: number;
  /** The op's type, when an op is named. */
  readonly opType?: string;
  /** The variable, when one is named. */
  readonly variable?: string;
  /** What is wrong, after the location. */
  readonly detail: string;
  /** The finding as one line: `block B op I (type): variable "x": detail`. */
  readonly message: string;
}

/** Options of `vetProgram`. */
export interface VetOptions {
  /**
   * Block-0 variables the run fetches (`--fetch`): they count as read.
   * @default {[]}
   */
  fetch?: readonly string[];
}

/**
 * Checks a program for the mistakes listed in the module's text.
 *
 * @param program The program; it should validate (`validateProgram`).
 * @param options Variables fetched after the run.
 * @returns The findings, by block and op; empty when the program is clean.
 * @throws {RangeError} When an op's attributes cannot be read (a program
 * that does not validate).
 *
 * @example Usage
 * ```ts
 * import { fillConstant, go, increment, makeChannel, print, Program, recv, send } from "../../mod.ts";
 * import { vetProgram } from "./vet.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const ch = makeChannel({ name: "ch" });
 *   const x = fillConstant({ shape: [1], value: 1, out: p.globalBlock.createVar({ name: "x" }) });
 *   go(() => send(ch, x));
 *   increment(x);
 *   print(recv(ch));
 * });
 * assertEquals(vetProgram(p.desc).map((f) => f.message), [
 *   'block 0 op 2 (go): variable "x": the goroutine of block 1 reads it by ' +
 *   "reference, and block 0 op 3 (increment) rebinds it after the spawn: " +
 *   "pass it in the go's Args to copy it",
 * ]);
 * ```
 */
export function vetProgram(
  program: ProgramDesc,
  options: VetOptions = {},
): VetFinding[] {
  const flow = channelFlow(program);
  const index = new ProgramIndex(program, realUses);
  const findings: VetFinding[] = [
    ...vetThreads(index, program),
    ...oneWayChannels(flow),
    ...nilSelects(program, flow),
    ...unused(flow, new Set(options.fetch ?? [])),
    ...unreferencedBlocks(program),
    ...stuckLoops(program, flow),
  ].map(finding);
  return findings.sort((a, b) =>
    a.block - b.block || (a.op ?? -1) - (b.op ?? -1)
  );
}

function finding(d: VetDraft): VetFinding {
  let at = `block ${d.block}`;
  if (d.op !== undefined) at += ` op ${d.op} (${d.opType})`;
  const variable = d.variable === undefined ? "" : `variable "${d.variable}": `;
  return { ...d, message: printable(`${at}: ${variable}${d.detail}`) };
}

// What an op reads and rebinds for vet: its own uses, without the lists of
// its sub-blocks' variables.
function realUses(op: OpDesc): NamedVariables {
  const reads: string[] = [];
  const writes: string[] = [];
  for (const u of opUses(op)) {
    if (u.kind === "listed") continue;
    (u.kind === "write" || u.kind === "secondary" ? writes : reads).push(
      u.name,
    );
  }
  return { reads, writes };
}

// ---- Channels ---------------------------------------------------------------

/** A channel use and the variable it names. */
interface NamedUse {
  readonly site: UseSite;
  readonly name: string;
}

/** What is done to a group of joined channel variables, summed. */
interface GroupUse {
  made: NamedUse[];
  sends: NamedUse[];
  recvs: NamedUse[];
  unknown: boolean;
  timer: boolean;
}

function groupUses(flow: ChannelFlow): Map<number, GroupUse> {
  const groups = new Map<number, GroupUse>();
  flow.channels.forEach((c, i) => {
    const g = flow.group[i];
    let use = groups.get(g);
    if (use === undefined) {
      use = { made: [], sends: [], recvs: [], unknown: false, timer: false };
      groups.set(g, use);
    }
    const name = c.variable.desc.name;
    const named = (site: UseSite): NamedUse => ({ site, name });
    use.made.push(...c.made.map(named));
    use.sends.push(...c.sends.map(named), ...c.closes.map(named));
    use.recvs.push(...c.recvs.map(named));
    use.unknown ||= c.other.length > 0;
    use.timer ||= c.made.some((s) => s.type === "channel_after");
  });
  return groups;
}

function* oneWayChannels(flow: ChannelFlow): Generator<VetDraft> {
  for (const g of groupUses(flow).values()) {
    // A nil channel (never made) is nil_select's matter.
    if (g.unknown || g.timer || g.made.length === 0) continue;
    const sentOnly = g.recvs.length === 0;
    const only = sentOnly
      ? g.sends[0]
      : g.sends.length === 0
      ? g.recvs[0]
      : undefined;
    if (only === undefined) continue;
    const at = g.made[0];
    const detail = sentOnly
      ? `the channel is sent on (${where(only.site)}) but never received from`
      : `the channel is received from (${
        where(only.site)
      }) but never sent on or closed`;
    yield {
      rule: "one_way_channel",
      ...site(at.site),
      variable: at.name,
      detail,
    };
  }
}

function site(s: UseSite): Pick<VetDraft, "block" | "op" | "opType"> {
  return { block: s.block, op: s.op, opType: s.type };
}

function* nilSelects(
  program: ProgramDesc,
  flow: ChannelFlow,
): Generator<VetDraft> {
  const groups = groupUses(flow);
  const index = new Map(flow.channels.map((c, i) => [c.variable, i]));
  const isNil = (block: number, name: string) => {
    const v = flow.uses.resolve(block, name);
    const i = v === undefined ? undefined : index.get(v);
    if (i === undefined) return false;
    const g = groups.get(flow.group[i])!;
    return g.made.length === 0 && !g.unknown;
  };
  for (const [b, block] of program.blocks.entries()) {
    for (const [i, op] of block.ops.entries()) {
      if (op.type !== "select") continue;
      const texts = op.attrs.find((a) => a.name === "cases")?.strings ?? [];
      const cases = texts.map(parseSelectCase);
      if (cases.length === 0 || cases.some((c) => c.kind === "default")) {
        continue;
      }
      if (!cases.every((c) => isNil(b, c.channel))) continue;
      yield {
        rule: "nil_select",
        block: b,
        op: i,
        opType: op.type,
        variable: cases[0].channel,
        detail: `every case's channel is nil (never made by channel_create) ` +
          "and there is no default: the select blocks for ever",
      };
    }
  }
}

// ---- Variables and blocks ---------------------------------------------------

const LISTS: ReadonlySet<number> = new Set([
  VarType_Type.FEED_MINIBATCH,
  VarType_Type.FETCH_LIST,
]);

function* unused(
  flow: ChannelFlow,
  fetched: ReadonlySet<string>,
): Generator<VetDraft> {
  for (const v of flow.uses.variables) {
    const { desc } = v;
    if (desc.persistable || LISTS.has(desc.type?.type ?? -1)) continue;
    if (v.block === 0 && fetched.has(desc.name)) continue;
    const write = v.uses.find((u) => u.kind === "write");
    if (write === undefined) continue;
    const read = v.uses.some((u) =>
      u.kind !== "write" && u.kind !== "secondary" && u.kind !== "listed"
    );
    if (read) continue;
    yield {
      rule: "unused",
      ...site(write),
      variable: desc.name,
      detail: "written, never read",
    };
  }
}

function* unreferencedBlocks(program: ProgramDesc): Generator<VetDraft> {
  const named = new Set<number>();
  for (const block of program.blocks) {
    for (const op of block.ops) {
      for (const a of op.attrs) {
        if (a.type === AttrType.BLOCK) named.add(a.blockIdx);
        if (a.type === AttrType.BLOCKS) {
          a.blocksIdx.forEach((b) => named.add(b));
        }
      }
    }
  }
  for (let b = 1; b < program.blocks.length; b++) {
    if (named.has(b)) continue;
    yield {
      rule: "unreferenced_block",
      block: b,
      detail: "no op runs this block (no op's block attribute names it)",
    };
  }
}

function* stuckLoops(
  program: ProgramDesc,
  flow: ChannelFlow,
): Generator<VetDraft> {
  for (const block of program.blocks) {
    for (const [i, op] of block.ops.entries()) {
      if (op.type !== "while") continue;
      const name = op.inputs.find((s) => s.parameter === "Condition")
        ?.arguments[0];
      const body = op.attrs.find((a) => a.name === "sub_block")?.blockIdx;
      if (name === undefined || body === undefined) continue;
      const writes = flow.uses.resolve(block.idx, name)?.uses.filter((u) =>
        u.kind === "write" || u.kind === "secondary"
      ) ?? [];
      // A condition only ever set to a constant is Go's `for {}`: a loop
      // meant to run until the program ends (a generator goroutine).
      const computed = writes.some((u) =>
        !CONSTANT_OPS.has(u.type)
      );
      const inBody = writes.some((u) => isWithin(program, u.block, body));
      if (!computed || inBody) continue;
      yield {
        rule: "stuck_loop",
        block: block.idx,
        op: i,
        opType: op.type,
        variable: name,
        detail: `the Condition: no op of block ${body} (the loop's body) ` +
          "writes it, so the loop never ends once it starts",
      };
    }
  }
}

// Ops that write a constant: a loop condition they alone set is meant to
// stay what they set.
const CONSTANT_OPS: ReadonlySet<string> = new Set([
  "fill_constant",
  "assign_value",
]);

// Whether `block` is `outer` or nested in it.
function isWithin(program: ProgramDesc, block: number, outer: number): boolean {
  for (let b = block; b >= 0; b = program.blocks[b]?.parentIdx ?? -1) {
    if (b === outer) return true;
  }
  return false;
}
