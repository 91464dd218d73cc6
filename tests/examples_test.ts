// Golden tests of examples/: each committed `.pb` (and data file) is what
// its builder makes today, and running it prints what README.md's examples
// table says it prints.

import { assert, assertEquals } from "@std/assert";
import { buildExample, examplePath, EXAMPLES } from "../examples/build.ts";
import { exampleData } from "../examples/build.ts";
import { Executor, Program } from "../mod.ts";
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
