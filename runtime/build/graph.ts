/**
 * A picture of a program in one of three formats (`deno run -A mod.ts
 * graph PROGRAM --format svg|dot|mermaid`): SVG drawn by Rill itself
 * (`graph_svg.ts`), or the text that Graphviz (`graph_dot.ts`) or Mermaid
 * (`graph_mermaid.ts`) draws. All three draw one model
 * (`program_graph.ts`).
 *
 * @module
 */
import type { ProgramDesc } from "../../gen/rill/v1/framework_pb.ts";
import { graphToDot } from "./graph_dot.ts";
import { graphToMermaid } from "./graph_mermaid.ts";
import { graphToSvg } from "./graph_svg.ts";
import { programGraph } from "./program_graph.ts";

/** The formats `graphProgram` writes. */
export type GraphFormat = "svg" | "dot" | "mermaid";

/**
 * Every format, the default first.
 *
 * @example Usage
 * ```ts
 * import { GRAPH_FORMATS } from "./graph.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(GRAPH_FORMATS[0], "svg");
 * ```
 */
export const GRAPH_FORMATS: readonly GraphFormat[] = ["svg", "dot", "mermaid"];

/** Options of `graphProgram`. */
export interface GraphOptions {
  /** The format. @default {"svg"} */
  format?: GraphFormat;
}

/**
 * Draws a program: its blocks as nested boxes with their ops in order, the
 * blocks that start green threads and where those may run, and its
 * channels with edges from the ops that send on them to those that receive.
 *
 * @param program The program; it should validate.
 * @param options The format.
 * @returns The picture: an SVG document, DOT or Mermaid text.
 * @throws {RangeError} When a `select`'s cases cannot be read.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, go, graphProgram, makeChannel, print, Program, recv, send } from "../../mod.ts";
 * import { assert } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const ch = makeChannel({ name: "ch" });
 *   go(() => send(ch, fillConstant({ shape: [1], value: 1 })));
 *   print(recv(ch));
 * });
 * assert(graphProgram(p.desc).startsWith("<?xml"));
 * assert(graphProgram(p.desc, { format: "dot" }).startsWith("digraph program {"));
 * assert(graphProgram(p.desc, { format: "mermaid" }).startsWith("flowchart TB"));
 * ```
 */
export function graphProgram(
  program: ProgramDesc,
  options: GraphOptions = {},
): string {
  const graph = programGraph(program);
  switch (options.format ?? "svg") {
    case "svg":
      return graphToSvg(graph);
    case "dot":
      return graphToDot(graph);
    case "mermaid":
      return graphToMermaid(graph);
  }
}
