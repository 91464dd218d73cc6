/**
 * Writes `docs/operators.md`, the operator catalog, from the op table
 * (`OP_GROUPS` in runtime/ops/mod.ts): every op's slots, attributes and
 * defaults as the validator, the printer and the builder read them, and
 * the devices it runs on (runtime/ops/op_devices.ts, as the `ops` command
 * and `--explain` say them), in one table and per op. Run it
 * with `deno task docs` after changing an op; `tests/docs/build_test.ts`
 * fails while the file differs from what this writes.
 *
 * @module
 */
import type { AttrSpec, OpDef, SlotSpec } from "../runtime/core/op_def.ts";
import { OP_GROUPS, type OpGroup } from "../runtime/ops/mod.ts";
import { opDevices } from "../runtime/ops/op_devices.ts";

/** Where the catalog is written. */
export const CATALOG_PATH: URL = new URL("./operators.md", import.meta.url);

/**
 * The operator catalog as Markdown.
 *
 * @param groups The ops, in groups.
 * @returns The document.
 *
 * @example Usage
 * ```ts
 * import { operatorCatalog } from "./build.ts";
 * import { OP_GROUPS } from "../runtime/ops/mod.ts";
 * import { assertStringIncludes } from "@std/assert";
 *
 * assertStringIncludes(operatorCatalog(OP_GROUPS), "### `elementwise_add`");
 * ```
 */
export function operatorCatalog(groups: readonly OpGroup[]): string {
  const count = groups.reduce((n, g) => n + g.ops.length, 0);
  const lines = [
    "# Operators",
    "",
    "<!-- Written by `deno task docs` from runtime/ops/: do not edit. -->",
    "",
    `Every operator Rill runs (${count}), as its definition in`,
    "`runtime/ops/` states it: slots as `Name (kind)`, marked optional or",
    "duplicable (a list of variables); attributes as `name` (kind) and their",
    "default. Scalars are tensors of shape [1]; `dtype` attributes hold",
    "`VarType.Type` numbers (docs/architecture.md §2).",
    "",
    "## Devices",
    "",
    "Where each op runs, from the kernels its definition declares and the",
    "WebGPU kernel table: `cpu, wgsl` (float32 operands may run on the GPU),",
    "`cpu` (on the GPU device it falls back to the CPU alone: its operands",
    "are read back once), `cpu, partly wgsl` (the kernel calls named run on",
    "the CPU), `host` (no tensor math: it moves values, runs blocks or does",
    "I/O). `deno run -A mod.ts ops MODEL` prints the same for the ops a",
    "program uses.",
    "",
    "| op | devices |",
    "| --- | --- |",
    ...groups.flatMap((g) =>
      g.ops.map((def) => `| \`${def.type}\` | ${devicesOf(def)} |`)
    ),
  ];
  for (const group of groups) {
    lines.push("", `## ${group.title}`);
    for (const def of group.ops) lines.push("", ...opSection(def));
  }
  return lines.join("\n") + "\n";
}

function opSection(def: OpDef): string[] {
  const lines = [`### \`${def.type}\``, "", def.summary + "", ""];
  lines.push(`- inputs: ${slots(def.inputs)}`);
  lines.push(`- outputs: ${slots(def.outputs)}`);
  const attrs = Object.entries(def.attrs as Record<string, AttrSpec>);
  lines.push(
    `- attributes: ${
      attrs.length === 0
        ? "none"
        : attrs.map(([name, spec]) => attribute(name, spec)).join(", ")
    }`,
  );
  lines.push(`- devices: ${devicesOf(def)}`);
  return lines;
}

// Where an op runs, in words (see the catalog's "Devices" section).
function devicesOf(def: OpDef): string {
  const { place, cpuOnly } = opDevices(def);
  switch (place) {
    case "host":
      return "host";
    case "cpu":
      return "cpu";
    case "wgsl":
      return "cpu, wgsl";
    case "partly":
      return `cpu, partly wgsl (${cpuOnly.join(", ")} on the CPU)`;
  }
}

function slots(specs: Readonly<Record<string, SlotSpec>>): string {
  const entries = Object.entries(specs);
  if (entries.length === 0) return "none";
  return entries.map(([name, spec]) => {
    const marks: string[] = [spec.kind];
    if (spec.duplicable) marks.push("duplicable");
    if (spec.optional) marks.push("optional");
    return `\`${name}\` (${marks.join(", ")})`;
  }).join(", ");
}

function attribute(name: string, spec: AttrSpec): string {
  const value = spec.default === undefined
    ? (spec.required ? "required" : "no default")
    : `= \`${shown(spec.default)}\``;
  return `\`${name}\` (${spec.kind}) ${value}`;
}

function shown(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(shown).join(", ")}]`;
  if (typeof value === "string") return JSON.stringify(value);
  return String(value);
}

/**
 * Markdown as `deno fmt` leaves it, so that the written file passes
 * `deno fmt --check` (the project wraps prose at 80 columns).
 *
 * @param markdown The document.
 * @returns The document formatted.
 *
 * @example Usage
 * ```ts
 * import { formatMarkdown } from "./build.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(await formatMarkdown("# A\n\n\n\nb\n"), "# A\n\nb\n");
 * ```
 */
export async function formatMarkdown(markdown: string): Promise<string> {
  const fmt = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext=md", "-"],
    cwd: new URL("../", import.meta.url),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = fmt.stdin.getWriter();
  await writer.write(new TextEncoder().encode(markdown));
  await writer.close();
  const { code, stdout, stderr } = await fmt.output();
  if (code !== 0) {
    throw new Error(`deno fmt: ${new TextDecoder().decode(stderr).trim()}`);
  }
  return new TextDecoder().decode(stdout);
}

if (import.meta.main) {
  const catalog = await formatMarkdown(operatorCatalog(OP_GROUPS));
  await Deno.writeTextFile(CATALOG_PATH, catalog);
}
