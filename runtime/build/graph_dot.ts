/**
 * A program's graph (`program_graph.ts`) in Graphviz's DOT language
 * (`graph --format dot`; `dot -Tsvg` draws it): each block a cluster,
 * nested as the blocks are, its ops kept in order by invisible edges; a
 * dashed edge from each op to the first op of a block it runs (`lhead`
 * points it at the cluster); thread blocks drawn green and bold; channels
 * as ellipses.
 *
 * @module
 */
import type {
  GraphBlock,
  GraphEdgeKind,
  ProgramGraph,
} from "./program_graph.ts";

const EDGE_STYLE: Readonly<Record<GraphEdgeKind, string>> = {
  make: 'style=dotted, color="#8c959f"',
  send: 'color="#1f6feb"',
  close: 'style=dashed, color="#cf222e"',
  recv: 'color="#2da44e"',
  bind: 'style=dashed, color="#8250df"',
};

/**
 * Writes a program's graph as DOT.
 *
 * @param graph The graph.
 * @returns The DOT text, ending in a newline.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, go, makeChannel, print, Program, recv, send } from "../../mod.ts";
 * import { programGraph } from "./program_graph.ts";
 * import { graphToDot } from "./graph_dot.ts";
 * import { assertStringIncludes } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const ch = makeChannel({ name: "ch" });
 *   go(() => send(ch, fillConstant({ shape: [1], value: 1 })));
 *   print(recv(ch));
 * });
 * const dot = graphToDot(programGraph(p.desc));
 * assertStringIncludes(dot, "subgraph cluster_blk1 {");
 * assertStringIncludes(dot, 'b1_o1 -> ch0 [label="send"');
 * ```
 */
export function graphToDot(graph: ProgramGraph): string {
  const lines = [
    "digraph program {",
    "  compound=true;",
    '  node [shape=box, fontname="monospace", fontsize=10];',
    '  edge [fontname="monospace", fontsize=9];',
  ];
  for (const root of graph.roots) cluster(graph, root, "  ", lines);
  for (const c of graph.channels) {
    lines.push(`  ${c.id} [shape=ellipse, label=${quote(c.label)}];`);
  }
  for (const e of graph.edges) {
    lines.push(
      `  ${e.from} -> ${e.to} [label=${quote(e.label)}, ${
        EDGE_STYLE[e.kind]
      }];`,
    );
  }
  for (const b of graph.blocks) runEdges(graph, b, lines);
  lines.push("}");
  return lines.join("\n") + "\n";
}

// Block b's cluster, its ops in order and its sub-blocks' clusters inside.
// Recursion goes as deep as the blocks nest.
function cluster(
  graph: ProgramGraph,
  b: number,
  indent: string,
  lines: string[],
): void {
  const block = graph.blocks[b];
  const style = block.thread
    ? 'color="#2da44e"; penwidth=2.5; style=rounded'
    : 'color="#8c959f"; style=rounded';
  lines.push(`${indent}subgraph cluster_${block.id} {`);
  lines.push(`${indent}  label=${quote(block.title)}; ${style};`);
  if (block.ops.length === 0) {
    lines.push(
      `${indent}  ${firstNode(block)} [label="(no ops)", shape=plain];`,
    );
  }
  for (const op of block.ops) {
    lines.push(`${indent}  ${op.id} [label=${quote(op.label)}];`);
  }
  for (let i = 1; i < block.ops.length; i++) {
    const [a, z] = [block.ops[i - 1].id, block.ops[i].id];
    lines.push(`${indent}  ${a} -> ${z} [style=invis];`);
  }
  block.ops.forEach((op, i) => {
    for (const s of op.runs) cluster(graph, s, indent + "  ", lines);
    // The next op below the blocks this one runs, not beside them.
    const next = block.ops[i + 1];
    const last = op.runs.at(-1);
    if (next === undefined || last === undefined) return;
    const end = lastNode(graph, graph.blocks[last]);
    lines.push(`${indent}  ${end} -> ${next.id} [style=invis];`);
  });
  lines.push(`${indent}}`);
}

// A dashed edge from each op to each block it runs, ending at the cluster.
function runEdges(
  graph: ProgramGraph,
  block: GraphBlock,
  lines: string[],
): void {
  for (const op of block.ops) {
    for (const s of op.runs) {
      const sub = graph.blocks[s];
      const color = sub.thread ? '"#2da44e"' : '"#8c959f"';
      lines.push(
        `  ${op.id} -> ${firstNode(sub)} [lhead=cluster_${sub.id}, ` +
          `style=dashed, color=${color}, label=${
            quote(sub.thread ? "new green thread" : "runs")
          }];`,
      );
    }
  }
}

// The lowest node drawn in a block's cluster: its last op, or the last
// node of the last block that op runs.
function lastNode(graph: ProgramGraph, block: GraphBlock): string {
  for (let b = block;;) {
    const op = b.ops.at(-1);
    const run = op?.runs.at(-1);
    if (op === undefined) return firstNode(b);
    if (run === undefined) return op.id;
    b = graph.blocks[run];
  }
}

function firstNode(block: GraphBlock): string {
  return block.ops[0]?.id ?? `${block.id}_empty`;
}

// A DOT string: backslashes and quotes escaped, so that `\n` in a label
// (printable's escape of a line break) shows as written.
function quote(text: string): string {
  return `"${text.replace(/["\\]/g, "\\$&")}"`;
}
