// Golden tests of examples/: each committed `.pb` (and data file) is what
// its builder makes today, and running it prints what README.md's examples
// table says it prints; each model example's files are what its module
// writes, and the model computes what a float64 reference computes.

import { assert, assertEquals } from "@std/assert";
import {
  buildExample,
  exampleData,
  examplePath,
  EXAMPLES,
  MODEL_EXAMPLES,
  modelExampleFiles,
} from "../examples/build.ts";
import * as mlpModel from "../examples/mlp_model.ts";
import { decodeNpy, Executor, Program, type Tensor } from "../mod.ts";
import { ROOT } from "./_helpers/rill_process.ts";
import { TEST_DEVICE } from "./_helpers/test_device.ts";
import { TEST_WORKERS } from "./_helpers/test_workers.ts";

const README = Deno.readTextFileSync(new URL("../README.md", import.meta.url));

/**
 * README.md's examples table: for each `name.pb` row, the printed lines it
 * states, as runs of consecutive lines; `…` between runs stands for any
 * lines. The first run starts the output and the last one ends it.
 */
function statedOutputs(readme: string): Map<string, string[][]> {
  const rows = new Map<string, string[][]>();
  for (const line of readme.split("\n")) {
    const row = /^\|\s*`([\w-]+)\.pb`\s*\|(.*)\|\s*$/.exec(line);
    if (row === null) continue;
    const runs = row[2].split("…").map((part) =>
      [...part.matchAll(/`([^`]*)`/g)].map((m) => m[1])
    );
    rows.set(row[1], runs);
  }
  return rows;
}

/** Whether `lines` is what the runs state (see `statedOutputs`). */
function matchesRuns(lines: readonly string[], runs: string[][]): boolean {
  const at = (run: string[], i: number) =>
    i >= 0 && i + run.length <= lines.length &&
    run.every((l, k) => lines[i + k] === l);
  if (runs.length === 1) {
    return lines.length === runs[0].length && at(runs[0], 0);
  }
  if (!at(runs[0], 0)) return false;
  let next = runs[0].length;
  for (const run of runs.slice(1, -1)) {
    let i = next;
    while (i <= lines.length && !at(run, i)) i++;
    if (i > lines.length) return false;
    next = i + run.length;
  }
  const last = runs[runs.length - 1];
  const start = lines.length - last.length;
  return start >= next && at(last, start);
}

async function runExample(name: string): Promise<string[]> {
  const lines: string[] = [];
  const program = await Program.load(examplePath(name));
  // Examples read data files by paths relative to the repository root.
  const cwd = Deno.cwd();
  const move = cwd !== ROOT.replace(/\/$/, "");
  if (move) Deno.chdir(ROOT);
  try {
    await new Executor({
      workers: TEST_WORKERS,
      device: TEST_DEVICE,
      print: (l) => lines.push(l),
    })
      .run(program);
  } finally {
    if (move) Deno.chdir(cwd);
  }
  return lines;
}

Deno.test("matchesRuns() reads … as any lines between anchored runs", () => {
  const lines = ["a", "b", "c", "d", "e"];
  assert(matchesRuns(lines, [["a", "b", "c", "d", "e"]]));
  assert(!matchesRuns(lines, [["a", "b"]]));
  assert(matchesRuns(lines, [["a"], ["e"]]));
  assert(matchesRuns(lines, [["a", "b"], ["c"], ["e"]]));
  assert(!matchesRuns(lines, [["b"], ["e"]]));
  assert(!matchesRuns(lines, [["a"], ["d"]]));
  assert(!matchesRuns(lines, [["a"], ["x"], ["e"]]));
});

Deno.test("README.md's examples table has a row for every example", () => {
  const rows = statedOutputs(README);
  const missing = EXAMPLES.filter((name) => !rows.has(name));
  assertEquals(missing, [], `examples with no row: ${missing.join(", ")}`);
  const unknown = [...rows.keys()].filter((n) => !EXAMPLES.includes(n));
  assertEquals(unknown, [], "rows for examples that do not exist");
});

for (const name of EXAMPLES) {
  Deno.test(`examples/${name}.pb is what its builder makes`, async () => {
    const built = (await buildExample(name)).toBinary();
    const committed = await Deno.readFile(examplePath(name));
    assert(
      built.length === committed.length &&
        built.every((b, i) => b === committed[i]),
      `examples/${name}.pb is stale: run \`deno task examples\``,
    );
    for (const [path, bytes] of Object.entries(await exampleData(name))) {
      assertEquals(
        await Deno.readFile(ROOT + path),
        bytes,
        `${path} is stale: run \`deno task examples\``,
      );
    }
  });

  const runs = statedOutputs(README).get(name);
  Deno.test({
    name: `examples/${name}.pb prints what README.md states`,
    ignore: runs === undefined, // the test above reports the missing row
    fn: async () => {
      const lines = await runExample(name);
      assert(
        matchesRuns(lines, runs!),
        `examples/${name}.pb printed\n${lines.join("\n")}\n` +
          `README.md states ${JSON.stringify(runs)}`,
      );
    },
  });
}

for (const name of MODEL_EXAMPLES) {
  Deno.test(`examples/${name}'s files are what its module writes`, async () => {
    for (const [path, bytes] of Object.entries(await modelExampleFiles(name))) {
      assertEquals(
        await Deno.readFile(ROOT + path),
        bytes,
        `${path} is stale: run \`deno task examples\``,
      );
    }
  });
}

/** The MLP's output in float64, from the example's own numbers. */
function mlpReference(): number[][] {
  const p = mlpModel.parameters();
  const rows = (t: Tensor) => t.toNested() as number[][];
  const flat = (t: Tensor) => t.toNested() as number[];
  const fc = (x: number[][], w: number[][], b: number[]) =>
    x.map((r) => b.map((bj, j) => r.reduce((s, v, k) => s + v * w[k][j], bj)));
  const hidden = fc(
    rows(mlpModel.input()),
    rows(p.get("fc_0.w_0")!),
    flat(p.get("fc_0.b_0")!),
  ).map((r) => r.map(Math.tanh));
  return fc(hidden, rows(p.get("fc_1.w_0")!), flat(p.get("fc_1.b_0")!)).map(
    (r) => {
      const top = Math.max(...r);
      const e = r.map((v) => Math.exp(v - top));
      const sum = e.reduce((s, v) => s + v, 0);
      return e.map((v) => v / sum);
    },
  );
}

Deno.test("examples/mlp_model runs from its feed and fetches what a float64 reference computes", async () => {
  const program = await Program.load(ROOT + mlpModel.MODEL_DIR);
  const img = decodeNpy(await Deno.readFile(ROOT + mlpModel.INPUT_PATH));
  const { fetched } = await new Executor({ device: TEST_DEVICE }).run(program, {
    feeds: { img },
    fetch: ["fc_1.tmp_2"],
  });
  const got = (fetched["fc_1.tmp_2"] as Tensor).toNested() as number[][];
  const want = mlpReference();
  assertEquals([got.length, got[0].length], [2, 10]);
  got.flat().forEach((g, i) => {
    const w = want.flat()[i];
    assert(Math.abs(g - w) <= 1e-6, `probability ${i}: ${g}, want ${w}`);
  });
});
