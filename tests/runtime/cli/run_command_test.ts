// Seeds on the command line: with --seed a run on one worker repeats its
// select choices exactly; without it each run draws a seed, and a panic or
// deadlock names the seed that repeats it.
import {
  assert,
  assertEquals,
  assertMatch,
  assertNotEquals,
} from "@std/assert";
import { join } from "@std/path";
import {
  elementwiseAdd,
  fillConstant,
  makeChannel,
  print,
  Program,
  recv,
  select,
  send,
} from "../../../mod.ts";
import { withTempDir } from "../../_helpers/with_temp_dir.ts";
import { cli } from "../../_helpers/cli_output.ts";

/** Rounds of the select below: 3^12 orders, so two seeds rarely agree. */
const ROUNDS = 12;

/**
 * A program whose output is its select choices: three buffered channels
 * hold ROUNDS values each, and each round prints the channel a select took.
 * Then, by `end`, it finishes, panics or deadlocks.
 */
function choices(end: "finish" | "panic" | "deadlock"): Program {
  const program = new Program();
  program.guard(() => {
    const chans = [1, 2, 3].map(() =>
      makeChannel({ capacity: ROUNDS, dtype: "int32" })
    );
    chans.forEach((ch, i) => {
      const v = fillConstant({ shape: [1], dtype: "int32", value: i + 1 });
      for (let r = 0; r < ROUNDS; r++) send(ch, v);
    });
    for (let r = 0; r < ROUNDS; r++) {
      select((s) => {
        for (const ch of chans) {
          s.recv(ch, (v) => print(v, { message: "took" }));
        }
      });
    }
    if (end === "panic") {
      // Through a channel, so that the shape is known only at run time.
      const ch = makeChannel({ capacity: 1 });
      send(ch, fillConstant({ shape: [2] }));
      elementwiseAdd(recv(ch), fillConstant({ shape: [3] }));
    }
    if (end === "deadlock") recv(makeChannel({ dtype: "int32" }));
  });
  return program;
}

Deno.test("a run with --seed on one worker repeats its select choices; seeds differ", async () => {
  await withTempDir(async (dir) => {
    const pb = join(dir, "choices.pb");
    await choices("finish").save(pb);
    const run = (seed: number) =>
      cli([pb, "--seed", String(seed), "--workers", "1", "--device", "cpu"]);
    const first = await run(9);
    assertEquals(first.code, 0);
    assertEquals(first.stdout.split("\n").length, ROUNDS + 1);
    assertEquals(await run(9), first);
    const others = new Set<string>();
    for (let seed = 1; seed <= 4; seed++) others.add((await run(seed)).stdout);
    assert(others.size > 1, "four seeds made the same choices");
  });
});

Deno.test("without --seed, a panic and a deadlock name the seed that repeats the run", async () => {
  await withTempDir(async (dir) => {
    for (const end of ["panic", "deadlock"] as const) {
      const pb = join(dir, `${end}.pb`);
      await choices(end).save(pb);
      const flags = ["--workers", "1", "--device", "cpu"];
      const failed = await cli([pb, ...flags]);
      assertEquals(failed.code, 2);
      const rerun = /\nrerun with --seed (\d+) to repeat this run's choices\n$/
        .exec(failed.stderr);
      if (rerun === null) throw new Error(`no rerun line in: ${failed.stderr}`);
      const again = await cli([pb, ...flags, "--seed", rerun[1]]);
      assertEquals(again, {
        code: 2,
        stdout: failed.stdout,
        stderr: failed.stderr.slice(0, rerun.index),
      });
      assertMatch(again.stderr, end === "panic" ? /^panic: / : /^fatal error/);
    }
  });
});

Deno.test("runs without --seed draw different seeds", async () => {
  await withTempDir(async (dir) => {
    const pb = join(dir, "deadlock.pb");
    await choices("deadlock").save(pb);
    const seedOf = async () =>
      /--seed (\d+)/.exec((await cli([pb, "--workers", "1"])).stderr)?.[1];
    const [a, b] = [await seedOf(), await seedOf()];
    assert(a !== undefined && b !== undefined);
    assertNotEquals(a, b);
  });
});
