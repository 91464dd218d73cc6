/**
 * Which ops make, send on, receive from and close each channel variable of
 * a program, and how channels pass from one variable to another. A channel
 * is a reference (docs/architecture.md §2): `assign` binds its Out to the
 * channel its X holds, and a go's `Args` bind the block's own variable to
 * the spawner's. Variables joined by such bindings form one group, which
 * holds every channel any of them may hold: analysis of "this channel is
 * only sent on" looks at a group, not at one variable.
 *
 * A use this module cannot place is kept as `other` (a channel read by an
 * op that is not a channel op, an assign or a go, or bound by an op that
 * does not make channels), so that analysis can stay silent about it.
 *
 * @module
 */
import type { ProgramDesc } from "../../gen/rill/v1/framework_pb.ts";
import { varKindOf } from "../core/var_info.ts";
import {
  type DeclaredVariable,
  type ProgramUses,
  programUses,
  type UseSite,
} from "./variable_uses.ts";

/** The ops that make a new channel, and what a timer's channel is. */
const MAKERS: ReadonlySet<string> = new Set([
  "channel_create",
  "channel_after",
]);

/** One channel variable and the channel operations on it. */
export interface ChannelVariable {
  /** The declaration and all its uses. */
  readonly variable: DeclaredVariable;
  /** Ops that bind it to a new channel (`channel_create`, `channel_after`). */
  readonly made: UseSite[];
  /** Sends, as `channel_send` or a `select` case. */
  readonly sends: UseSite[];
  /** Receives, as `channel_recv` or a `select` case. */
  readonly recvs: UseSite[];
  /** `channel_close` ops. */
  readonly closes: UseSite[];
  /** Uses of another kind, whose direction is unknown. */
  readonly other: UseSite[];
}

/** A binding of one channel variable to the channel another holds. */
export interface ChannelBinding {
  /** The index of the variable holding the channel, in `channels`. */
  readonly from: number;
  /** The index of the variable bound to it. */
  readonly to: number;
  /** The `assign` or `go` op that binds it. */
  readonly site: UseSite;
}

/** The channels of a program and how they flow. */
export interface ChannelFlow {
  /** Every channel variable, in declaration order (by block). */
  readonly channels: readonly ChannelVariable[];
  /** The bindings between them. */
  readonly bindings: readonly ChannelBinding[];
  /**
   * Per channel, its group: the smallest index of the variables joined to
   * it through bindings.
   */
  readonly group: readonly number[];
  /** The resolved uses of every variable, channels or not. */
  readonly uses: ProgramUses;
}

/**
 * The channel variables of a program, their operations and bindings.
 *
 * @param program The program; it should validate.
 * @returns The channels.
 * @throws {RangeError} When a `select`'s cases cannot be read.
 *
 * @example Usage
 * ```ts
 * import { assign, closeChannel, makeChannel, Program } from "../../mod.ts";
 * import { channelFlow } from "./channel_flow.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const done = makeChannel({ name: "done" });
 *   closeChannel(assign(done, { out: makeChannel({ name: "alias" }) }));
 * });
 * const flow = channelFlow(p.desc);
 * const names = flow.channels.map((c) => c.variable.desc.name);
 * assertEquals(names, ["done", "alias"]);
 * assertEquals(flow.group, [0, 0]);
 * assertEquals(flow.channels[1].closes.map((s) => s.op), [3]);
 * ```
 */
export function channelFlow(program: ProgramDesc): ChannelFlow {
  const uses = programUses(program);
  const index = new Map<DeclaredVariable, number>();
  const channels: ChannelVariable[] = [];
  for (const v of uses.variables) {
    if (varKindOf(v.desc) !== "channel") continue;
    index.set(v, channels.length);
    channels.push({
      variable: v,
      made: [],
      sends: [],
      recvs: [],
      closes: [],
      other: [],
    });
  }
  const bindings = findBindings(program, uses, index);
  const bound = new Set(bindings.map((b) => siteKey(b.site, b.to)));
  for (const c of channels) {
    const self = index.get(c.variable)!;
    for (const site of c.variable.uses) sortUse(c, site, bound, self);
  }
  return { channels, bindings, group: groups(channels.length, bindings), uses };
}

// Files one use of channel variable `self` under its kind.
function sortUse(
  c: ChannelVariable,
  site: UseSite,
  bound: ReadonlySet<string>,
  self: number,
): void {
  switch (site.kind) {
    case "send":
      return void c.sends.push(site);
    case "recv":
      return void c.recvs.push(site);
    case "close":
      return void c.closes.push(site);
    case "listed":
      return;
    case "write":
    case "secondary":
      if (MAKERS.has(site.type)) return void c.made.push(site);
      if (bound.has(siteKey(site, self))) return;
      return void c.other.push(site);
    case "read":
      // An assign's X or a go's Args passes the channel on: a binding.
      if (site.type === "assign" && site.slot === "X") return;
      if (site.type === "go" && site.slot === "Args") return;
      return void c.other.push(site);
  }
}

function siteKey(site: UseSite, channel: number): string {
  return `${site.block}/${site.op}/${channel}`;
}

// The assign ops between channel variables, and each go's Args that its
// block declares itself (otherwise the block's uses resolve to the
// spawner's variable already).
function findBindings(
  program: ProgramDesc,
  uses: ProgramUses,
  index: ReadonlyMap<DeclaredVariable, number>,
): ChannelBinding[] {
  const bindings: ChannelBinding[] = [];
  const channelOf = (block: number, name: string | undefined) => {
    const v = name === undefined ? undefined : uses.resolve(block, name);
    return v === undefined ? undefined : index.get(v);
  };
  program.blocks.forEach((block, b) => {
    block.ops.forEach((op, i) => {
      const slot = (side: typeof op.inputs, name: string) =>
        side.find((s) => s.parameter === name)?.arguments ?? [];
      const site = (): UseSite => ({
        block: b,
        op: i,
        type: op.type,
        kind: "write",
        slot: op.type === "go" ? "Args" : "Out",
      });
      if (op.type === "assign") {
        const from = channelOf(b, slot(op.inputs, "X")[0]);
        const to = channelOf(b, slot(op.outputs, "Out")[0]);
        if (from !== undefined && to !== undefined) {
          bindings.push({ from, to, site: site() });
        }
      }
      if (op.type !== "go") return;
      const sub = op.attrs.find((a) => a.name === "sub_block")?.blockIdx;
      if (sub === undefined) return;
      for (const name of slot(op.inputs, "Args")) {
        const from = channelOf(b, name);
        const to = channelOf(sub, name);
        if (from !== undefined && to !== undefined && from !== to) {
          bindings.push({ from, to, site: site() });
        }
      }
    });
  });
  return bindings;
}

// Union-find over the bindings; each group is named by its smallest index.
function groups(n: number, bindings: readonly ChannelBinding[]): number[] {
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (const { from, to } of bindings) {
    const [a, b] = [find(from), find(to)];
    if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
  }
  return parent.map((_, i) => find(i));
}
