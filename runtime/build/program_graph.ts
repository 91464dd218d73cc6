/**
 * A program as a picture to draw (`deno run -A mod.ts graph`): the tree
 * of blocks, each under the op that runs it, its ops in order; which
 * blocks start green threads (`go`, `parallel_for`) and where those may
 * run (`runtime/check/placement.ts`); and the channels, with an edge from
 * each op that makes, sends on or closes one, to each op that receives
 * from it, and between variables that pass a channel on (`assign`, a go's
 * `Args`; `runtime/check/channel_flow.ts`). The renderers (`graph_dot.ts`,
 * `graph_mermaid.ts`, `graph_svg.ts`) draw this one model.
 *
 * A block sits under the first op that names it in a block attribute, if
 * that op is in the block's parent (the validator's rule); any other block
 * is a root of its own, drawn after block 0 as never run.
 *
 * @module
 */
import {
  AttrType,
  type OpDesc,
  type ProgramDesc,
} from "../../gen/rill/v1/framework_pb.ts";
import { InternalError, printable } from "../core/errors.ts";
import { OPS } from "../ops/mod.ts";
import { parseSelectCase } from "../ops/select.ts";
import { channelFlow } from "../check/channel_flow.ts";
import { opUses } from "../check/op_uses.ts";
import {
  type BlockPlacement,
  placeProgram,
  type ProgramPlacement,
} from "../check/placement.ts";
import type { UseSite } from "../check/variable_uses.ts";

/**
 * The most characters an op's label takes; a longer one is cut with `…`.
 * Enough for an op with a few inputs and outputs of builder-made names.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, Program } from "../../mod.ts";
 * import { MAX_LABEL_CHARS, programGraph } from "./program_graph.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => fillConstant({ shape: [1], value: 1, out: p.globalBlock.createVar({ name: "x".repeat(200) }) }));
 * const label = programGraph(p.desc).blocks[0].ops[0].label;
 * assertEquals([label.length, label.at(-1)], [MAX_LABEL_CHARS, "…"]);
 * ```
 */
export const MAX_LABEL_CHARS = 88;

/** One op, as a row of its block. */
export interface GraphOp {
  /** A node id, unique in the graph: `b<block>_o<index>`. */
  readonly id: string;
  /** The op's index in its block. */
  readonly index: number;
  /** `op I: type(inputs) → outputs`, at most `MAX_LABEL_CHARS` long. */
  readonly label: string;
  /** The blocks this op runs that sit under it, in attribute order. */
  readonly runs: readonly number[];
}

/** One block, as a box. */
export interface GraphBlock {
  /** The block's index. */
  readonly idx: number;
  /** A cluster id: `blk<idx>`. */
  readonly id: string;
  /** The op that runs it, or undefined for block 0 and blocks never run. */
  readonly owner?: { readonly block: number; readonly op: number };
  /** `block 1 · go: a new green thread · movable: …`. */
  readonly title: string;
  /** Whether its ops run on new green threads (`go`, `parallel_for`). */
  readonly thread: boolean;
  /** For a thread block: whether it may run on another worker. */
  readonly movable?: boolean;
  /** Its ops, in order. */
  readonly ops: readonly GraphOp[];
}

/** One channel variable, as a node. */
export interface GraphChannel {
  /** A node id: `ch<n>`. */
  readonly id: string;
  /** `chan name · block B`. */
  readonly label: string;
}

/** What an edge stands for. */
export type GraphEdgeKind = "make" | "send" | "close" | "recv" | "bind";

/** An edge between an op and a channel, or two channels. */
export interface GraphEdge {
  /** The id it starts at (an op for make, send, close; a channel else). */
  readonly from: string;
  /** The id it ends at. */
  readonly to: string;
  /** What it stands for. */
  readonly kind: GraphEdgeKind;
  /** A short label: `send`, `case 1 recv`, `assign`, `Args`. */
  readonly label: string;
}

/** The drawable model of a program. */
export interface ProgramGraph {
  /** Every block, by index. */
  readonly blocks: readonly GraphBlock[];
  /** The blocks drawn at the top level: block 0, then any never run. */
  readonly roots: readonly number[];
  /** The channel variables. */
  readonly channels: readonly GraphChannel[];
  /** The edges, grouped by channel. */
  readonly edges: readonly GraphEdge[];
}

/**
 * Builds the drawable model of a program.
 *
 * @param program The program; it should validate.
 * @returns The model.
 * @throws {RangeError} When a `select`'s cases cannot be read.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, go, makeChannel, print, Program, recv, send } from "../../mod.ts";
 * import { programGraph } from "./program_graph.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const ch = makeChannel({ name: "ch" });
 *   go(() => send(ch, fillConstant({ shape: [1], value: 1 })));
 *   print(recv(ch));
 * });
 * const graph = programGraph(p.desc);
 * assertEquals(graph.blocks[1].title, "block 1 · go: a new green thread · movable: may run on any worker");
 * assertEquals(graph.blocks[1].ops[1].label, "op 1: channel_send(ch, fill_constant.out_0)");
 * assertEquals(graph.edges.map((e) => `${e.from} ${e.kind} ${e.to}`), [
 *   "b0_o0 make ch0", "b1_o1 send ch0", "ch0 recv b0_o2",
 * ]);
 * ```
 */
export function programGraph(program: ProgramDesc): ProgramGraph {
  const placement = placementOf(program);
  const owners = claimBlocks(program);
  const runs = new Map<string, number[]>();
  owners.forEach((o, s) => {
    if (o === undefined) return;
    const id = opId(o.block, o.op);
    runs.set(id, [...runs.get(id) ?? [], s]);
  });
  const blocks = program.blocks.map((block, b): GraphBlock => {
    const owner = owners[b];
    const ownerOp = owner === undefined
      ? undefined
      : program.blocks[owner.block].ops[owner.op];
    const spawned = ownerOp?.type === "go" || ownerOp?.type === "parallel_for";
    const place = spawned ? placement?.blocks.get(b) : undefined;
    return {
      idx: b,
      id: `blk${b}`,
      owner: owner === undefined ? undefined : { ...owner },
      title: blockTitle(b, ownerOp, owner?.role ?? "", place),
      thread: spawned,
      movable: place?.movable,
      ops: block.ops.map((op, i) => ({
        id: opId(b, i),
        index: i,
        label: opLabel(op, i),
        runs: runs.get(opId(b, i)) ?? [],
      })),
    };
  });
  const roots = blocks.flatMap((g) =>
    g.idx === 0 || (g.owner === undefined && g.idx > 0) ? [g.idx] : []
  );
  return { blocks, roots, ...channelsOf(program) };
}

function opId(block: number, op: number): string {
  return `b${block}_o${op}`;
}

// The dump prints programs that do not validate too; so does the graph,
// without placement when it cannot be decided. A Rill bug still surfaces.
function placementOf(program: ProgramDesc): ProgramPlacement | undefined {
  try {
    return placeProgram(program);
  } catch (e) {
    if (e instanceof InternalError) throw e;
    return undefined;
  }
}

/** The op a block sits under, and its role there (`case 1: recv ch`). */
interface Owner {
  readonly block: number;
  readonly op: number;
  readonly role: string;
}

function claimBlocks(program: ProgramDesc): (Owner | undefined)[] {
  const owners: (Owner | undefined)[] = program.blocks.map(() => undefined);
  program.blocks.forEach((block, b) => {
    block.ops.forEach((op, i) => {
      const claim = (s: number, role: string) => {
        if (s <= 0 || owners[s] !== undefined) return;
        if (program.blocks[s]?.parentIdx !== b) return;
        owners[s] = { block: b, op: i, role };
      };
      const cases = op.type === "select" ? caseNames(op) : [];
      for (const a of op.attrs) {
        if (a.type === AttrType.BLOCK) claim(a.blockIdx, "");
        if (a.type !== AttrType.BLOCKS) continue;
        a.blocksIdx.forEach((s, k) => claim(s, cases[k] ?? ""));
      }
    });
  });
  return owners;
}

// A select's cases as its blocks' roles: `case 0: recv ch`.
function caseNames(op: OpDesc): string[] {
  const texts = op.attrs.find((a) => a.name === "cases")?.strings ?? [];
  return texts.map((text, k) => {
    const c = parseSelectCase(text);
    const what = c.kind === "default"
      ? "default"
      : c.kind === "send"
      ? `send ${c.channel} ← ${c.value}`
      : `recv ${c.channel}`;
    return `case ${k}: ${what}`;
  });
}

const ROLE_OF: Readonly<Record<string, string>> = {
  while: "while body",
  conditional_block: "if",
  listen_and_do: "served",
};

function blockTitle(
  b: number,
  owner: OpDesc | undefined,
  role: string,
  place: BlockPlacement | undefined,
): string {
  const head = `block ${b}`;
  if (b === 0) return `${head} · main thread`;
  if (owner === undefined) return `${head} · never run (no op runs it)`;
  if (owner.type === "go" || owner.type === "parallel_for") {
    const threads = owner.type === "go"
      ? "go: a new green thread"
      : "parallel_for: a new green thread per iteration";
    return `${head} · ${threads} · ${placementText(place)}`;
  }
  if (owner.type === "select") return `${head} · select ${role}`;
  return printable(`${head} · ${ROLE_OF[owner.type] ?? owner.type}`);
}

function placementText(place: BlockPlacement | undefined): string {
  if (place === undefined) return "placement unknown";
  if (place.pinnedBy === undefined) return "movable: may run on any worker";
  const { variable, reason } = place.pinnedBy;
  return printable(
    `pinned to its spawner's worker: "${variable}" ${reason}`,
  );
}

/**
 * An op's label: `op I: type(inputs) → outputs`, with the names it reads
 * and writes (not the lists of its sub-blocks' variables); a select shows
 * its cases. Cut to `MAX_LABEL_CHARS`.
 */
function opLabel(op: OpDesc, i: number): string {
  const inputs: string[] = [];
  const outputs: string[] = [];
  if (op.type === "select") {
    inputs.push(...caseNames(op).map((c) => c.replace(/^case \d+: /, "")));
  } else {
    const def = OPS.get(op.type);
    for (const u of opUses(op)) {
      // Lists of sub-blocks' variables and Paddle's step scopes say
      // nothing of what the op does.
      if (u.kind === "listed") continue;
      if (def?.outputs[u.slot]?.kind === "step_scopes") continue;
      const out = u.kind === "write" || u.kind === "secondary";
      (out ? outputs : inputs).push(u.name);
    }
  }
  let text = `op ${i}: ${op.type}(${inputs.join(", ")})`;
  if (outputs.length > 0) text += ` → ${outputs.join(", ")}`;
  text = printable(text);
  return text.length <= MAX_LABEL_CHARS
    ? text
    : `${text.slice(0, MAX_LABEL_CHARS - 1)}…`;
}

function channelsOf(
  program: ProgramDesc,
): Pick<ProgramGraph, "channels" | "edges"> {
  const flow = channelFlow(program);
  const channels = flow.channels.map((c, n): GraphChannel => ({
    id: `ch${n}`,
    label: printable(
      `chan ${c.variable.desc.name} · block ${c.variable.block}`,
    ),
  }));
  const edges: GraphEdge[] = [];
  const opEdge = (kind: GraphEdgeKind, n: number) => (s: UseSite) => {
    const label = s.slot.startsWith("case ") ? `${s.slot} ${kind}` : kind;
    const [from, to] = kind === "recv"
      ? [`ch${n}`, opId(s.block, s.op)]
      : [opId(s.block, s.op), `ch${n}`];
    edges.push({ from, to, kind, label });
  };
  flow.channels.forEach((c, n) => {
    c.made.forEach(opEdge("make", n));
    c.sends.forEach(opEdge("send", n));
    c.closes.forEach(opEdge("close", n));
    c.recvs.forEach(opEdge("recv", n));
  });
  for (const { from, to, site } of flow.bindings) {
    const label = site.type === "go" ? "Args" : site.type;
    edges.push({ from: `ch${from}`, to: `ch${to}`, kind: "bind", label });
  }
  return { channels, edges };
}
