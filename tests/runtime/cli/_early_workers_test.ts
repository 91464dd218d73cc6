// The workers a command line starts before the CLI reads its program: which
// command lines start them, and whole `mod.ts` processes that start them,
// whether the run then uses a pool or not.

import { assertEquals } from "@std/assert";
import { join } from "@std/path";
import {
  arrayToTensor,
  arrayWrite,
  createArray,
  fillConstant,
  parallelFor,
  print,
  Program,
} from "../../../mod.ts";
import {
  earlyWorkerCount,
  takeEarlyWorkers,
} from "../../../runtime/cli/_early_workers.ts";
import { runRill } from "../../_helpers/rill_process.ts";
import { withTempDir } from "../../_helpers/with_temp_dir.ts";

Deno.test("earlyWorkerCount() starts workers only for a run of one program with --workers above 1", () => {
  const cases: [string[], number][] = [
    [["p.pb", "--workers", "2"], 1],
    [["--workers", "8", "p.pb", "--seed", "3"], 7],
    [["p.pb", "--workers=3", "--explain"], 2],
    [["p.pb", "--workers", "1"], 0],
    [["p.pb"], 0], // auto: the plan decides, after reading the program
    [["p.pb", "q.pb", "--workers", "2"], 0],
    [["vet", "p.pb", "--workers", "2"], 0],
    [["help", "--workers", "2"], 0],
    [["p.pb", "--workers", "2", "--help"], 0],
    [["p.pb", "--workers", "0"], 0],
    [["p.pb", "--workers", "257"], 0],
    [["p.pb", "--workers", "two"], 0],
    [["p.pb", "--no-such-flag", "--workers", "2"], 0],
  ];
  for (const [args, count] of cases) {
    assertEquals(earlyWorkerCount(args), count, args.join(" "));
  }
});

Deno.test("takeEarlyWorkers() has none to give outside `deno run mod.ts`", () => {
  assertEquals(takeEarlyWorkers(), undefined);
});

Deno.test("mod.ts with --workers 2 runs a pooled parallel_for and a program that needs no pool alike", async () => {
  await withTempDir(async (dir) => {
    const pooled = new Program();
    pooled.guard(() => {
      const out = createArray({ dtype: "int64" });
      parallelFor(6, (index) => arrayWrite(index, index, out));
      print(arrayToTensor(out), { message: "indices" });
    });
    const single = new Program();
    single.guard(() => print(fillConstant({ shape: [1], value: 4 })));
    const [p, s] = [join(dir, "pooled.pb"), join(dir, "single.pb")];
    await pooled.save(p);
    await single.save(s);
    const runs = await Promise.all([
      runRill([p, "--workers", "2", "--seed", "1"]),
      runRill([s, "--workers", "2"]),
    ]);
    assertEquals(runs.map((r) => [r.code, r.stdout, r.stderr]), [
      [0, "indices [0, 1, 2, 3, 4, 5]\n", ""],
      [0, "4\n", ""],
    ]);
  });
});
