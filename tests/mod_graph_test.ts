// What a run loads before any Rill code runs: the modules Deno reads,
// compiles and evaluates for `deno run -A mod.ts …` and for each pool worker
// (runtime/pool/worker_main.ts, which `new Worker(url)` starts, so no graph
// reaches it). Start-up grows with that graph (bench/README.md, "Where
// start-up goes"), so what only some runs use loads when they use it: the
// WebGPU kernels once a run picks a GPU, the cluster's servers for the
// worker command, node:crypto and the recorder for a recorded or replayed
// run, the tracer for a traced one, @std/path for an HTML trace, the graph,
// vet, ops and worker commands when they run.
//
// `deno info --json` lists type-only imports too; a run loads only the
// static `code` imports, followed here. Dynamic imports load later, if ever.

import { assert, assertEquals } from "@std/assert";
import { denoInfo } from "./_helpers/deno_info.ts";
import { ROOT } from "./_helpers/rill_process.ts";

interface InfoDependency {
  code?: { specifier?: string };
  isDynamic?: boolean;
}

interface InfoModule {
  specifier: string;
  dependencies?: InfoDependency[];
}

/**
 * The modules a run of `root` loads before its first line runs: local ones
 * as paths from the repository's root, the others as their specifiers.
 */
async function loadedModules(root: string): Promise<Set<string>> {
  const info = await denoInfo<{ roots: string[]; modules: InfoModule[] }>(
    root,
  );
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const base = new URL(ROOT, "file:///").href;
  const seen = new Set<string>();
  const queue = [...info.roots];
  for (let s = queue.pop(); s !== undefined; s = queue.pop()) {
    if (seen.has(s)) continue;
    seen.add(s);
    for (const dep of bySpecifier.get(s)?.dependencies ?? []) {
      const target = dep.code?.specifier;
      if (target !== undefined && !dep.isDynamic) queue.push(target);
    }
  }
  return new Set(
    [...seen].map((s) => s.startsWith(base) ? s.slice(base.length) : s),
  );
}

// What no run of a program loads at start-up, with the one exception each
// allows: a module named after the pattern that a run does need.
const NOT_AT_START: readonly [RegExp, readonly string[]][] = [
  // A run that picks a GPU imports the WebGPU device (device_choice.ts);
  // its threshold constant and the tracer's hook are light.
  [/^kernels\/webgpu\//, [
    "kernels/webgpu/gpu_min_elements.ts",
    "kernels/webgpu/gpu_trace.ts",
  ]],
  // Flags and ops read addresses and limits; servers and discovery load
  // when a program serves or discovers.
  [/^runtime\/cluster\//, [
    "runtime/cluster/host_port.ts",
    "runtime/cluster/worker_addrs.ts",
    "runtime/cluster/worker_limits.ts",
  ]],
  [/^runtime\/cli\/(graph|vet|ops|worker)_command\.ts$/, []],
  [/^node:(crypto|http2|net|tls)$/, []],
  [/^npm:/, [
    "npm:@bufbuild/protobuf@2.17.0",
    "npm:/@bufbuild/protobuf@2.17.0/codegenv2",
    "npm:/@bufbuild/protobuf@2.17.0/txtpb",
  ]],
];

// A worker runs green threads of a program the main thread read and
// checked: none of the library's other entry points.
const NOT_IN_WORKER: readonly RegExp[] = [
  /^runtime\/cli\//,
  /^runtime\/transpile\//,
  /^runtime\/build\//,
  /^runtime\/check\/(vet|validate|channel_flow|_vet)/,
  /^runtime\/format\/(pir|_pir|program_file|model_dir)/,
  /^runtime\/run\//,
];

function unwanted(modules: Set<string>): string[] {
  return [...modules].filter((m) =>
    NOT_AT_START.some(([pattern, allowed]) =>
      pattern.test(m) && !allowed.includes(m)
    )
  ).sort();
}

Deno.test("mod.ts loads no module that only some commands and runs use", async () => {
  const modules = await loadedModules("mod.ts");
  assert(modules.has("runtime/cli/run_command.ts"));
  assertEquals(unwanted(modules), []);
  // The Executor loads these for a traced, recorded or replayed run (a pool
  // worker still loads them with the rest: its init message is handled at
  // once, in order with the messages that follow).
  assertEquals(
    [...modules].filter((m) =>
      /^runtime\/core\/(run_tracer|schedule_recorder|schedule_replayer)\.ts$/
        .test(m)
    ),
    [],
  );
});

Deno.test("a pool worker loads only what running green threads needs", async () => {
  const modules = await loadedModules("runtime/pool/worker_main.ts");
  assert(modules.has("runtime/ops/mod.ts"));
  assertEquals(unwanted(modules), []);
  assertEquals(
    [...modules].filter((m) => NOT_IN_WORKER.some((p) => p.test(m))).sort(),
    [],
  );
});
