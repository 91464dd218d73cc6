// The layout docs/architecture.md describes, checked from the import
// statements themselves: data flows one way, mod.ts → runtime/ →
// scheduler/ and kernels/, and inside runtime/ each stage imports only the
// stages before it in STAGES. A type-only import counts like any other: it
// is still a reader's jump up the pipeline.
import { assertEquals } from "@std/assert";
import { fromFileUrl, join, relative } from "@std/path";

const ROOT = fromFileUrl(new URL("../", import.meta.url));

/** runtime/'s stages, in pipeline order: each may import those before it. */
const STAGES = [
  "core",
  "format",
  "cluster",
  "exec",
  "ops",
  "check",
  "build",
  "layers",
  "pool",
  "run",
  "transpile",
  "cli",
] as const;

/** The top-level layers: each may import those after it, never before. */
const LAYERS = ["runtime", "scheduler", "kernels", "gen"] as const;

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of Deno.readDirSync(join(ROOT, dir))) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* sourceFiles(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

// Real import and export-from statements: a doc example's imports sit
// behind " * " and are not matched.
const IMPORT =
  /^(?:import|export)\b[^;]*?from\s+"(\.[^"]+)"|^import\s+"(\.[^"]+)"|\bimport\("(\.[^"]+)"\)/gms;

function importsOf(file: string): string[] {
  const text = Deno.readTextFileSync(join(ROOT, file));
  const found: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3];
    const line = text.slice(text.lastIndexOf("\n", m.index) + 1, m.index + 1);
    if (/^\s*(\*|\/\/)/.test(line)) continue;
    found.push(relative(ROOT, join(ROOT, file, "..", spec)));
  }
  return found;
}

function layerOf(path: string): number {
  return LAYERS.indexOf(path.split("/")[0] as typeof LAYERS[number]);
}

function stageOf(path: string): number {
  return STAGES.indexOf(path.split("/")[1] as typeof STAGES[number]);
}

Deno.test("runtime/ holds no file outside a stage folder", () => {
  const loose = [...sourceFiles("runtime")].filter((f) => stageOf(f) < 0);
  assertEquals(loose, []);
});

Deno.test("runtime/'s stages import only the stages before them", () => {
  const up: string[] = [];
  for (const file of sourceFiles("runtime")) {
    for (const target of importsOf(file)) {
      if (!target.startsWith("runtime/")) continue;
      if (stageOf(target) > stageOf(file)) up.push(`${file} → ${target}`);
    }
  }
  assertEquals(up, []);
});

Deno.test("runtime/, scheduler/ and kernels/ import only the layers below them", () => {
  const up: string[] = [];
  for (const layer of ["runtime", "scheduler", "kernels"]) {
    for (const file of sourceFiles(layer)) {
      for (const target of importsOf(file)) {
        const to = layerOf(target);
        if (to < 0 || to < layerOf(file)) up.push(`${file} → ${target}`);
      }
    }
  }
  // scheduler/ knows nothing of kernels/, and kernels/ nothing of threads.
  const across = [...sourceFiles("scheduler"), ...sourceFiles("kernels")]
    .flatMap((file) =>
      importsOf(file)
        .filter((t) => t.split("/")[0] !== file.split("/")[0])
        .filter((t) => !t.startsWith("gen/"))
        .map((t) => `${file} → ${t}`)
    );
  assertEquals(up, []);
  assertEquals(across, []);
});
