/**
 * A program's graph (`program_graph.ts`) as a Mermaid flowchart
 * (`graph --format mermaid`; GitHub and GitLab draw it in Markdown): each
 * block a subgraph, nested as the blocks are, its ops kept in order by
 * invisible links (`~~~`); a dotted link from each op to each block it
 * runs; thread blocks drawn green and thick; channels as stadiums.
 *
 * @module
 */
import type { GraphEdgeKind, ProgramGraph } from "./program_graph.ts";

const ARROW: Readonly<Record<GraphEdgeKind, string>> = {
  make: "-.->",
  send: "-->",
  close: "-.->",
  recv: "-->",
  bind: "-.->",
};

const LINK_COLOR: Readonly<Record<GraphEdgeKind, string>> = {
  make: "#8c959f",
  send: "#1f6feb",
  close: "#cf222e",
  recv: "#2da44e",
  bind: "#8250df",
};

/**
 * Writes a program's graph as a Mermaid flowchart.
 *
 * @param graph The graph.
 * @returns The Mermaid text, ending in a newline.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, go, makeChannel, print, Program, recv, send } from "../../mod.ts";
 * import { programGraph } from "./program_graph.ts";
 * import { graphToMermaid } from "./graph_mermaid.ts";
 * import { assertStringIncludes } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const ch = makeChannel({ name: "ch" });
 *   go(() => send(ch, fillConstant({ shape: [1], value: 1 })));
 *   print(recv(ch));
 * });
 * const text = graphToMermaid(programGraph(p.desc));
 * assertStringIncludes(text, 'subgraph blk1["block 1 · go: a new green thread');
 * assertStringIncludes(text, "b1_o1 -->|send| ch0");
 * ```
 */
export function graphToMermaid(graph: ProgramGraph): string {
  const lines = ["flowchart TB"];
  for (const root of graph.roots) subgraph(graph, root, "  ", lines);
  for (const c of graph.channels) {
    lines.push(`  ${c.id}(["${escape(c.label)}"])`);
  }
  const colors: string[] = [];
  let link = 0;
  const addLink = (text: string, color?: string) => {
    lines.push(`  ${text}`);
    if (color !== undefined) {
      colors.push(`  linkStyle ${link} stroke:${color}`);
    }
    link++;
  };
  for (const b of graph.blocks) {
    for (let i = 1; i < b.ops.length; i++) {
      addLink(`${b.ops[i - 1].id} ~~~ ${b.ops[i].id}`);
    }
    for (const op of b.ops) {
      for (const s of op.runs) {
        const sub = graph.blocks[s];
        const label = sub.thread ? "new green thread" : "runs";
        addLink(
          `${op.id} -.->|${label}| ${sub.id}`,
          sub.thread ? "#2da44e" : undefined,
        );
      }
    }
  }
  for (const e of graph.edges) {
    addLink(
      `${e.from} ${ARROW[e.kind]}|${escape(e.label)}| ${e.to}`,
      LINK_COLOR[e.kind],
    );
  }
  for (const b of graph.blocks) {
    const stroke = b.thread ? "#2da44e,stroke-width:3px" : "#8c959f";
    lines.push(`  style ${b.id} stroke:${stroke}`);
  }
  return [...lines, ...colors].join("\n") + "\n";
}

// Block b's subgraph, its ops and its sub-blocks' subgraphs inside.
// Recursion goes as deep as the blocks nest.
function subgraph(
  graph: ProgramGraph,
  b: number,
  indent: string,
  lines: string[],
): void {
  const block = graph.blocks[b];
  lines.push(`${indent}subgraph ${block.id}["${escape(block.title)}"]`);
  lines.push(`${indent}  direction TB`);
  if (block.ops.length === 0) {
    lines.push(`${indent}  ${block.id}_empty["(no ops)"]`);
  }
  for (const op of block.ops) {
    lines.push(`${indent}  ${op.id}["${escape(op.label)}"]`);
  }
  for (const op of block.ops) {
    for (const s of op.runs) subgraph(graph, s, indent + "  ", lines);
  }
  lines.push(`${indent}end`);
}

// Text inside a quoted Mermaid label: the characters Mermaid would read as
// markup become its entity codes.
function escape(text: string): string {
  return text.replace(/[#"<>`|]/g, (c) => `#${c.charCodeAt(0)};`);
}
