import { create } from "@bufbuild/protobuf";
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { SaxesParser } from "saxes";
import {
  AttrType,
  type ProgramDesc,
  ProgramDescSchema,
} from "../../../gen/rill/v1/framework_pb.ts";
import {
  fillConstant,
  go,
  graphProgram,
  increment,
  makeChannel,
  print,
  Program,
  readProgramFile,
  recv,
  send,
} from "../../../mod.ts";
import { programGraph } from "../../../runtime/build/program_graph.ts";
import { examplePath, EXAMPLES } from "../../../examples/build.ts";
import { op } from "../../_helpers/desc_init.ts";

// ---- What each format must show, read from the program itself --------------

/** A send: the op's node id and the channel's label. */
interface SendOn {
  readonly op: string;
  readonly channel: string;
}

// Every channel_send and select send case, with the channel's label
// (`chan name · block B`), resolving the name up the parent blocks.
function sendsOf(desc: ProgramDesc): SendOn[] {
  const sends: SendOn[] = [];
  const declaring = (b: number, name: string): number => {
    for (let x = b; x >= 0; x = desc.blocks[x].parentIdx) {
      if (desc.blocks[x].vars.some((v) => v.name === name)) return x;
    }
    throw new Error(`${name} is not declared above block ${b}`);
  };
  desc.blocks.forEach((block, b) => {
    block.ops.forEach((o, i) => {
      const names = o.type === "channel_send"
        ? o.inputs.find((s) => s.parameter === "Channel")!.arguments
        : o.type === "select"
        ? o.attrs.find((a) => a.name === "cases")!.strings
          .filter((c) => c.startsWith("send,")).map((c) => c.split(",")[1])
        : [];
      for (const name of names) {
        sends.push({
          op: `b${b}_o${i}`,
          channel: `chan ${name} · block ${declaring(b, name)}`,
        });
      }
    });
  });
  return sends;
}

/** The blocks a go or parallel_for op runs, with the op's type. */
function threadBlocks(desc: ProgramDesc): [number, string][] {
  return desc.blocks.flatMap((block) =>
    block.ops.flatMap((o): [number, string][] =>
      o.type === "go" || o.type === "parallel_for"
        ? [[o.attrs.find((a) => a.name === "sub_block")!.blockIdx, o.type]]
        : []
    )
  );
}

const PLACED =
  /(movable: may run on any worker|pinned to its spawner's worker)/;

// ---- SVG, read by a strict XML parser ---------------------------------------

/** What the SVG holds: each group's id, class, parent block and texts. */
interface SvgElement {
  readonly name: string;
  readonly id?: string;
  readonly css?: string;
  /** The id of the nearest enclosing block group. */
  readonly parentBlock?: string;
  text: string;
}

/** Parses an SVG document; throws on anything not well-formed. */
function parseSvg(svg: string): SvgElement[] {
  const parser = new SaxesParser();
  const all: SvgElement[] = [];
  const open: SvgElement[] = [];
  parser.on("error", (e) => {
    throw e;
  });
  parser.on("opentag", (tag) => {
    const attr = (name: string) => {
      const v = tag.attributes[name];
      return typeof v === "string" ? v : undefined;
    };
    const parentBlock = [...open].reverse().find((e) =>
      e.css?.split(" ").includes("block")
    )?.id;
    const e: SvgElement = {
      name: tag.name,
      id: attr("id"),
      css: attr("class"),
      parentBlock,
      text: "",
    };
    all.push(e);
    open.push(e);
  });
  parser.on("text", (t) => {
    for (const e of open) e.text += t;
  });
  parser.on("closetag", () => void open.pop());
  parser.write(svg).close();
  assertEquals(open.length, 0);
  return all;
}

/** `value`, which the test needs to be there. */
function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`missing: ${what}`);
  return value;
}

function byId(elements: SvgElement[], id: string): SvgElement | undefined {
  return elements.find((e) => e.id === id);
}

async function exampleDescs(): Promise<[string, ProgramDesc][]> {
  return await Promise.all(
    EXAMPLES.map(async (name): Promise<[string, ProgramDesc]> => [
      name,
      await readProgramFile(examplePath(name)),
    ]),
  );
}

Deno.test("graphProgram() draws every example as well-formed SVG with every block, op, send and thread", async () => {
  for (const [name, desc] of await exampleDescs()) {
    const svg = graphProgram(desc);
    const elements = parseSvg(svg);
    assertEquals(elements[0].name, "svg", name);
    desc.blocks.forEach((block, b) => {
      const group = must(byId(elements, `blk${b}`), `${name} block ${b}`);
      assert(group.css?.split(" ").includes("block"), `${name} block ${b}`);
      // Each block's box sits inside its parent's.
      if (b > 0) assertEquals(group.parentBlock, `blk${block.parentIdx}`);
      block.ops.forEach((o, i) => {
        const row = must(byId(elements, `b${b}_o${i}`), `${name} op ${i}`);
        assertEquals(row.parentBlock, `blk${b}`, `${name} b${b}_o${i}`);
        assert(row.text.startsWith(`op ${i}: ${o.type}(`), row.text);
      });
    });
    const channels = elements.filter((e) => e.css === "channel");
    for (const s of sendsOf(desc)) {
      const channel = channels.find((c) => c.text === s.channel);
      must(channel, `${name}: ${s.channel}`);
      const edge = elements.find((e) =>
        e.css === "edge send" && e.text.startsWith(`${s.op} `) &&
        e.text.endsWith(` ${channel!.id}`)
      );
      assert(edge !== undefined, `${name}: no edge ${s.op} → ${s.channel}`);
    }
    for (const [b, type] of threadBlocks(desc)) {
      const group = byId(elements, `blk${b}`)!;
      assertEquals(group.css, "block thread", `${name} block ${b}`);
      assertStringIncludes(group.text, `block ${b} · ${type}: a new green`);
      assert(PLACED.test(group.text), group.text);
    }
  }
});

Deno.test("graphProgram() with svg writes each op's label from the graph model", async () => {
  for (const [name, desc] of await exampleDescs()) {
    const elements = parseSvg(graphProgram(desc));
    for (const block of programGraph(desc).blocks) {
      for (const o of block.ops) {
        assertEquals(byId(elements, o.id)?.text, o.label, name);
      }
    }
  }
});

// ---- DOT and Mermaid --------------------------------------------------------

Deno.test("graphProgram() writes every example as DOT: a cluster per block, send edges, threads placed", async () => {
  for (const [name, desc] of await exampleDescs()) {
    const dot = graphProgram(desc, { format: "dot" });
    assert(dot.startsWith("digraph program {\n") && dot.endsWith("}\n"));
    const clusters = [...dot.matchAll(/subgraph cluster_blk(\d+) \{/g)];
    assertEquals(
      clusters.map((m) => Number(m[1])).sort((a, b) => a - b),
      desc.blocks.map((_, b) => b),
      name,
    );
    for (const s of sendsOf(desc)) {
      const id = new RegExp(
        `\\n  (ch\\d+) \\[shape=ellipse, label="${s.channel}"\\]`,
      )
        .exec(dot)?.[1];
      assert(id !== undefined, `${name}: no node ${s.channel}`);
      assertStringIncludes(dot, `  ${s.op} -> ${id} [label="`);
    }
    for (const [b, type] of threadBlocks(desc)) {
      const label = new RegExp(
        `subgraph cluster_blk${b} \\{\\n\\s+label="([^"]*)"; color="#2da44e"`,
      ).exec(dot)?.[1];
      assert(label?.startsWith(`block ${b} · ${type}: a new green`), label);
      assert(PLACED.test(label ?? ""), label);
    }
  }
});

Deno.test("graphProgram() writes every example as Mermaid: a subgraph per block, send links, threads placed", async () => {
  for (const [name, desc] of await exampleDescs()) {
    const text = graphProgram(desc, { format: "mermaid" });
    assert(text.startsWith("flowchart TB\n"), name);
    const subgraphs = [...text.matchAll(/subgraph blk(\d+)\["/g)];
    assertEquals(
      subgraphs.map((m) => Number(m[1])).sort((a, b) => a - b),
      desc.blocks.map((_, b) => b),
      name,
    );
    assertEquals(
      [...text.matchAll(/^\s*subgraph /gm)].length,
      [...text.matchAll(/^\s*end$/gm)].length,
    );
    for (const s of sendsOf(desc)) {
      const id = new RegExp(`\\n  (ch\\d+)\\(\\["${s.channel}"\\]\\)`)
        .exec(text)?.[1];
      assert(id !== undefined, `${name}: no node ${s.channel}`);
      assert(
        new RegExp(`\\n  ${s.op} -->\\|(case \\d+ )?send\\| ${id}\\n`).test(
          text,
        ),
        `${name}: no link ${s.op} → ${id}`,
      );
    }
    for (const [b, type] of threadBlocks(desc)) {
      const title = new RegExp(`subgraph blk${b}\\["([^"]*)"\\]`).exec(text)
        ?.[1];
      assert(title?.startsWith(`block ${b} · ${type}: a new green`), title);
      assert(PLACED.test(title ?? ""), title);
      assertStringIncludes(text, `style blk${b} stroke:#2da44e`);
    }
  }
});

// ---- Placement, odd names, blocks never run ---------------------------------

Deno.test("graphProgram() says why a goroutine is pinned, in every format", () => {
  const p = new Program();
  p.guard(() => {
    const ch = makeChannel({ capacity: 1 });
    const x = fillConstant({ shape: [1], value: 1 });
    go(() => {
      increment(x);
      send(ch, x);
    });
    print(recv(ch));
  });
  const why = 'pinned to its spawner\'s worker: "fill_constant.out_0" ' +
    "written by the block";
  const svg = parseSvg(graphProgram(p.desc));
  assertStringIncludes(must(byId(svg, "blk1"), "block 1").text, why);
  assertStringIncludes(
    graphProgram(p.desc, { format: "dot" }),
    why.replaceAll('"', '\\"'),
  );
  assertStringIncludes(
    graphProgram(p.desc, { format: "mermaid" }),
    why.replaceAll('"', "#34;"),
  );
});

Deno.test("graphProgram() escapes names that are markup in each format", () => {
  const p = new Program();
  p.guard(() => {
    const odd = p.globalBlock.createVar({ name: 'a<b&"c"\n#d|e`', shape: [1] });
    print(fillConstant({ shape: [1], value: 1, out: odd }));
  });
  const svg = graphProgram(p.desc);
  const row = byId(parseSvg(svg), "b0_o1");
  assertEquals(row?.text, 'op 1: print(a<b&"c"\\n#d|e`)');
  const dot = graphProgram(p.desc, { format: "dot" });
  assertStringIncludes(dot, 'label="op 1: print(a<b&\\"c\\"\\\\n#d|e`)"');
  const mermaid = graphProgram(p.desc, { format: "mermaid" });
  assertStringIncludes(
    mermaid,
    'b0_o1["op 1: print(a#60;b&#34;c#34;\\n#35;d#124;e#96;)"]',
  );
});

Deno.test("graphProgram() draws a block no op runs as a root of its own", () => {
  const desc = create(ProgramDescSchema, {
    blocks: [
      {
        idx: 0,
        parentIdx: -1,
        ops: [
          op("conditional_block", {}, {}, [
            { name: "sub_block", type: AttrType.BLOCK, blockIdx: 2 },
          ]),
        ],
      },
      { idx: 1, parentIdx: 0 },
      { idx: 2, parentIdx: 0 },
    ],
  });
  const graph = programGraph(desc);
  assertEquals(graph.roots, [0, 1]);
  assertEquals(graph.blocks[1].title, "block 1 · never run (no op runs it)");
  const elements = parseSvg(graphProgram(desc));
  assertEquals(byId(elements, "blk1")?.parentBlock, undefined);
  assertEquals(byId(elements, "blk2")?.parentBlock, "blk0");
});
