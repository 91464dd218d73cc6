/**
 * A program's graph (`program_graph.ts`) drawn as SVG with no renderer
 * (`graph`, the default format). The layout is fixed, not searched:
 *
 * - Blocks are boxes nested as the blocks are. A box lists its ops, one
 *   row each, in order, and each block an op runs sits right under that
 *   op's row, indented. So the picture reads top to bottom as the program
 *   runs, and its height is linear in the number of ops and blocks.
 * - Every box at depth d spans from `MARGIN + d·INDENT` to `right − d·PAD`,
 *   where `right` is the least edge that fits every label: rows end near
 *   one vertical line, and the edges leave them there.
 * - Channels stand in one column to the right, each as near as the column
 *   allows to the mean height of the rows it is connected to, in that
 *   order, so that its edges stay short and rarely cross.
 * - Edges are curves from a row's right end to a channel's left side
 *   (sends, closes and makes point at the channel, receives at the row),
 *   and from a channel's right side to another's for a binding.
 *
 * Text is monospace, so a label's width is its length times a fixed
 * advance. Each element carries a class (`block`, `thread`, `op`,
 * `channel`, `edge send`, …) and blocks, ops and channels their graph ids,
 * so a page or a test can find them.
 *
 * @module
 */
import type {
  GraphBlock,
  GraphEdgeKind,
  ProgramGraph,
} from "./program_graph.ts";

const FONT_SIZE = 12;
/** A monospace glyph's advance at FONT_SIZE (0.6 em), rounded up. */
const CHAR_WIDTH = 7.3;
const ROW = 20;
const HEADER = 24;
const PAD = 8;
const INDENT = 14;
const GAP = 6;
const MARGIN = 16;
/** Room between the boxes and the channel column for the curves. */
const CHANNEL_GAP = 120;
const CHANNEL_HEIGHT = 24;

const COLOR: Readonly<Record<GraphEdgeKind, string>> = {
  make: "#8c959f",
  send: "#1f6feb",
  close: "#cf222e",
  recv: "#2da44e",
  bind: "#8250df",
};

const DASH: Readonly<Record<GraphEdgeKind, string>> = {
  make: ' stroke-dasharray="2 3"',
  send: "",
  close: ' stroke-dasharray="6 3"',
  recv: "",
  bind: ' stroke-dasharray="6 3"',
};

/** Where a row or a channel sits: its vertical middle and its ends. */
interface Anchor {
  readonly y: number;
  readonly left: number;
  readonly right: number;
}

/**
 * Draws a program's graph as an SVG document.
 *
 * @param graph The graph.
 * @returns The SVG text, ending in a newline.
 *
 * @example Usage
 * ```ts
 * import { fillConstant, go, makeChannel, print, Program, recv, send } from "../../mod.ts";
 * import { programGraph } from "./program_graph.ts";
 * import { graphToSvg } from "./graph_svg.ts";
 * import { assertStringIncludes } from "@std/assert";
 *
 * const p = new Program();
 * p.guard(() => {
 *   const ch = makeChannel({ name: "ch" });
 *   go(() => send(ch, fillConstant({ shape: [1], value: 1 })));
 *   print(recv(ch));
 * });
 * const svg = graphToSvg(programGraph(p.desc));
 * assertStringIncludes(svg, '<g class="block thread" id="blk1">');
 * assertStringIncludes(svg, ">op 1: channel_send(ch, fill_constant.out_0)</text>");
 * ```
 */
export function graphToSvg(graph: ProgramGraph): string {
  return new SvgLayout(graph).draw();
}

/** One drawing: sizes measured once, then every element placed. */
class SvgLayout {
  readonly #graph: ProgramGraph;
  readonly #heights: number[];
  /** The boxes' right edge at depth 0. */
  readonly #right: number;
  readonly #rows = new Map<string, Anchor>();
  readonly #out: string[] = [];

  constructor(graph: ProgramGraph) {
    this.#graph = graph;
    this.#heights = new Array(graph.blocks.length).fill(-1);
    this.#right = this.#widthNeeded();
  }

  draw(): string {
    const out = this.#out;
    let y = MARGIN;
    for (const root of this.#graph.roots) {
      y = this.#block(root, 0, y) + 2 * GAP;
    }
    const channels = this.#channels();
    let bottom = y;
    for (const c of channels.values()) {
      bottom = Math.max(bottom, c.y + CHANNEL_HEIGHT / 2 + GAP);
    }
    this.#edges(channels);
    bottom = this.#legend(bottom + GAP);
    let width = this.#right + MARGIN;
    for (const c of channels.values()) {
      width = Math.max(width, c.right + 3 * MARGIN);
    }
    const [w, h] = [Math.ceil(width), Math.ceil(bottom + MARGIN)];
    return '<?xml version="1.0" encoding="UTF-8"?>\n' +
      `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" ` +
      `viewBox="0 0 ${w} ${h}" font-family="monospace" ` +
      `font-size="${FONT_SIZE}">\n${defs()}` +
      `<rect width="${w}" height="${h}" fill="#ffffff"/>\n` +
      out.join("") + "</svg>\n";
  }

  // The right edge at depth 0 that fits every title and label.
  #widthNeeded(): number {
    let right = MARGIN + 2 * PAD + textWidth("(no ops)");
    const visit = (b: number, d: number) => {
      const block = this.#graph.blocks[b];
      const need = (text: string) =>
        MARGIN + d * (INDENT + PAD) + 2 * PAD + textWidth(text);
      right = Math.max(right, need(block.title));
      for (const op of block.ops) {
        right = Math.max(right, need(op.label));
        for (const s of op.runs) visit(s, d + 1);
      }
    };
    for (const root of this.#graph.roots) visit(root, 0);
    return right;
  }

  #height(b: number): number {
    const known = this.#heights[b];
    if (known >= 0) return known;
    const block = this.#graph.blocks[b];
    let h = HEADER + (block.ops.length === 0 ? ROW : 0) + PAD / 2;
    for (const op of block.ops) {
      h += ROW;
      for (const s of op.runs) h += this.#height(s) + GAP;
    }
    return this.#heights[b] = h;
  }

  // Draws block b's box at depth d from y, with its ops and the blocks they
  // run inside; returns its bottom.
  #block(b: number, d: number, top: number): number {
    const block = this.#graph.blocks[b];
    const x = MARGIN + d * INDENT;
    const right = this.#right - d * PAD;
    const h = this.#height(b);
    const out = this.#out;
    const css = block.thread ? "block thread" : "block";
    out.push(`<g class="${css}" id="${block.id}">\n`);
    out.push(boxRect(block, x, top, right - x, h));
    out.push(
      `<text x="${x + PAD}" y="${top + 16}" font-weight="bold"` +
        `${block.thread ? ' fill="#1a7f37"' : ""}>${xml(block.title)}</text>\n`,
    );
    let y = top + HEADER;
    if (block.ops.length === 0) {
      out.push(
        `<text x="${x + PAD}" y="${y + 14}" fill="#57606a">(no ops)</text>\n`,
      );
      y += ROW;
    }
    for (const op of block.ops) {
      this.#rows.set(op.id, { y: y + ROW / 2, left: x, right });
      out.push(
        `<text class="op" id="${op.id}" x="${x + PAD}" y="${y + 14}">` +
          `${xml(op.label)}</text>\n`,
      );
      y += ROW;
      for (const s of op.runs) y = this.#block(s, d + 1, y) + GAP;
    }
    out.push("</g>\n");
    return top + h;
  }

  // Places the channel column and draws the channels.
  #channels(): Map<string, Anchor> {
    const { channels, edges } = this.#graph;
    const sum = new Map<string, [number, number]>();
    for (const e of edges) {
      const row = this.#rows.get(e.from) ?? this.#rows.get(e.to);
      const channel = this.#rows.has(e.from) ? e.to : e.from;
      if (row === undefined) continue;
      const [total, n] = sum.get(channel) ?? [0, 0];
      sum.set(channel, [total + row.y, n + 1]);
    }
    const wanted = channels.map((c, i) => {
      const s = sum.get(c.id);
      return { c, i, y: s === undefined ? Infinity : s[0] / s[1] };
    }).sort((a, b) => a.y - b.y || a.i - b.i);
    const left = this.#right + CHANNEL_GAP;
    const placed = new Map<string, Anchor>();
    let next = MARGIN + CHANNEL_HEIGHT / 2;
    for (const { c, y } of wanted) {
      const cy = Math.max(next, Number.isFinite(y) ? y : next);
      const w = textWidth(c.label) + 2 * PAD;
      placed.set(c.id, { y: cy, left, right: left + w });
      next = cy + CHANNEL_HEIGHT + GAP;
      const top = cy - CHANNEL_HEIGHT / 2;
      this.#out.push(
        `<g class="channel" id="${c.id}">` +
          `<rect x="${left}" y="${top}" width="${w}" ` +
          `height="${CHANNEL_HEIGHT}" rx="12" fill="#fff8c5" ` +
          `stroke="#9a6700"/>` +
          `<text x="${left + PAD}" y="${cy + 4}">${xml(c.label)}</text>` +
          "</g>\n",
      );
    }
    return placed;
  }

  #edges(channels: ReadonlyMap<string, Anchor>): void {
    const out = this.#out;
    for (const e of this.#graph.edges) {
      const from = this.#rows.get(e.from) ?? channels.get(e.from);
      const to = this.#rows.get(e.to) ?? channels.get(e.to);
      if (from === undefined || to === undefined) continue;
      let d: string;
      if (e.kind === "bind") {
        const bend = Math.max(from.right, to.right) + 2 * MARGIN;
        d = `M${from.right} ${from.y} C${bend} ${from.y} ${bend} ${to.y} ` +
          `${to.right} ${to.y}`;
      } else {
        const [x1, x2] = e.kind === "recv"
          ? [from.left, to.right]
          : [from.right, to.left];
        const mid = (x1 + x2) / 2;
        d = `M${x1} ${from.y} C${mid} ${from.y} ${mid} ${to.y} ${x2} ${to.y}`;
      }
      out.push(
        `<path class="edge ${e.kind}" d="${d}" fill="none" ` +
          `stroke="${COLOR[e.kind]}" stroke-width="1.3"${DASH[e.kind]} ` +
          `marker-end="url(#arrow-${e.kind})">` +
          `<title>${xml(`${e.from} ${e.label} ${e.to}`)}</title></path>\n`,
      );
    }
  }

  // A one-line key under the drawing; returns its bottom.
  #legend(top: number): number {
    let x = MARGIN;
    const y = top + 12;
    const items: [GraphEdgeKind, string][] = [
      ["make", "make"],
      ["send", "send"],
      ["close", "close"],
      ["recv", "receive"],
      ["bind", "passed on (assign, Args)"],
    ];
    const parts = ['<g class="legend">'];
    for (const [kind, text] of items) {
      parts.push(
        `<line x1="${x}" y1="${y - 4}" x2="${x + 24}" y2="${y - 4}" ` +
          `stroke="${COLOR[kind]}" stroke-width="1.3"${DASH[kind]}/>` +
          `<text x="${x + 30}" y="${y}">${text}</text>`,
      );
      x += 30 + textWidth(text) + 2 * PAD;
    }
    parts.push(
      `<text x="${x}" y="${y}" fill="#1a7f37">green box: new green thread` +
        "</text></g>\n",
    );
    this.#out.push(parts.join(""));
    return y + GAP;
  }
}

function boxRect(
  block: GraphBlock,
  x: number,
  y: number,
  w: number,
  h: number,
): string {
  const [fill, stroke, width] = block.thread
    ? ["#f0fff4", "#2da44e", 2.5]
    : block.owner === undefined && block.idx > 0
    ? ["#fff1f0", "#cf222e", 1]
    : ["#f6f8fa", "#8c959f", 1];
  return `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="6" ` +
    `fill="${fill}" stroke="${stroke}" stroke-width="${width}"/>\n`;
}

function defs(): string {
  const markers = Object.entries(COLOR).map(([kind, color]) =>
    `<marker id="arrow-${kind}" viewBox="0 0 10 10" refX="9" refY="5" ` +
    `markerWidth="7" markerHeight="7" orient="auto-start-reverse">` +
    `<path d="M0 0L10 5L0 10z" fill="${color}"/></marker>`
  );
  return `<defs>${markers.join("")}</defs>\n`;
}

function textWidth(text: string): number {
  return Math.ceil(text.length * CHAR_WIDTH);
}

// Text for XML content or a quoted attribute. Labels went through
// printable(), so no control character is left; U+FFFE and U+FFFF, which
// XML does not allow either, are spelled out the same way, and a lone
// surrogate becomes U+FFFD.
function xml(text: string): string {
  return text.toWellFormed().replace(
    /[&<>"\uFFFE\uFFFF]/g,
    (c) =>
      c === "&"
        ? "&amp;"
        : c === "<"
        ? "&lt;"
        : c === ">"
        ? "&gt;"
        : c === '"'
        ? "&quot;"
        : `\\u${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
