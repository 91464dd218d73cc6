// The fuzzer's parts (tests/fuzz/): the judge's rules, cases made again
// from their numbers, the broken `.npy` headers refused, and a short fuzz
// run of the real CLI that must find nothing. The full run is
// `deno run -A tests/fuzz/fuzz_cli.ts --cases 1000` (bench/README.md).
import { assert, assertEquals, assertThrows } from "@std/assert";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { join } from "@std/path";
import { ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
import { decodeNpy, encodeNpy } from "../../kernels/npy.ts";
import { Tensor } from "../../kernels/tensor.ts";
import { makeCase, seedInputs } from "./_cases.ts";
import { fuzz, ROOT, runCase } from "./fuzz_cli.ts";
import { judge, type Outcome } from "./_judge.ts";
import { refusedNpy, Rng } from "./_mutate.ts";

const REFUSED: Outcome = {
  code: 1,
  signal: null,
  stdout: "",
  stderr: "error: p.pb: not a ProgramDesc: premature EOF\n",
  timedOut: false,
  printing: false,
};

Deno.test("judge() holds each run to the command line's contract", () => {
  assertEquals(judge(REFUSED, {}), []);
  assertEquals(judge({ ...REFUSED, timedOut: true }, {}), [
    "no answer within the time limit",
  ]);
  // Killed at the limit while still printing: a program that loops for
  // ever by its own logic, judged by what it printed to stderr.
  const killed = { code: null, signal: "SIGKILL", timedOut: true };
  const endless = { ...REFUSED, ...killed, stdout: "0\n1\n", stderr: "" };
  assertEquals(judge({ ...endless, printing: true }, {}), []);
  assertEquals(judge({ ...endless, printing: false }, {}), [
    "no answer within the time limit",
  ]);
  const raw0 = {
    ...endless,
    printing: true,
    stderr: "x: Invalid array length",
  };
  assertEquals(judge(raw0, {}), ['an engine message ("Invalid array length")']);
  assertEquals(judge({ ...REFUSED, code: null, signal: "SIGSEGV" }, {}), [
    "killed by SIGSEGV",
  ]);
  assertEquals(judge({ ...REFUSED, stdout: "[1]\n" }, {}), [
    "output before exit 1",
  ]);
  assertEquals(judge({ ...REFUSED, stderr: "error: a\nerror: b\n" }, {}), [
    "exit 1 without exactly one error: line",
  ]);
  const trace = "error: x\n    at run (file:///a/b.ts:3:9)\n";
  assertEquals(judge({ ...REFUSED, stderr: trace }, {}), [
    "a stack trace",
    "exit 1 without exactly one error: line",
  ]);
  const raw = "error: fill: Invalid array length\n";
  assertEquals(judge({ ...REFUSED, stderr: raw }, {}), [
    'an engine message ("Invalid array length")',
  ]);
  const panic =
    "panic: x\n\tat block 0 op 2 scale\n\ngoroutine 1 [runnable]:\n";
  assertEquals(judge({ ...REFUSED, code: 2, stderr: panic }, {}), []);
  assertEquals(judge({ ...REFUSED, code: 2, stderr: "oops\n" }, {}), [
    "exit 2 without a panic or deadlock report",
  ]);
  assertEquals(judge({ ...REFUSED, code: 0, stderr: "" }, { refuse: true }), [
    "exit 0 on a file NumPy refuses",
  ]);
  assertEquals(judge({ ...REFUSED, code: 3 }, {}), ["exit 3"]);
});

Deno.test("makeCase() makes the same case again from the run's seed and the case's number", async () => {
  const seeds = await seedInputs(ROOT, undefined);
  assert(seeds.length >= 10, `${seeds.length} seed inputs`);
  for (const n of [0, 7, seeds.length + 3, 3 * seeds.length + 1]) {
    const a = makeCase(seeds, 5, n);
    const b = makeCase(seeds, 5, n);
    assertEquals(a.how, b.how);
    assertEquals([...a.files], [...b.files]);
  }
});

Deno.test("every broken .npy header the fuzzer makes is one Rill refuses", () => {
  const file = encodeNpy(Tensor.fromArray([[1, 2], [3, 4]], "float32"));
  const seen = new Set<string>();
  const rng = new Rng(3);
  for (let i = 0; i < 200; i++) {
    const { value, how } = refusedNpy(file, rng);
    seen.add(how);
    assertThrows(() => decodeNpy(value), Error, undefined, how);
  }
  assertEquals(seen.size, 10);
});

Deno.test("a short fuzz run of the CLI finds no broken case", async () => {
  const seeds = await seedInputs(ROOT, undefined);
  const report = await fuzz(seeds, {
    // A round of the seed inputs per mutation family.
    cases: 4 * seeds.length,
    seed: 11,
    jobs: 2,
    timeoutMs: 60_000,
  });
  assertEquals(
    report.broken.map((b) => `${b.case.how}: ${b.problems.join("; ")}`),
    [],
  );
});

Deno.test("runCase() tells a program that prints for ever from a hung run", async () => {
  // examples/fibonacci.pb with its goroutine's `increment` made an
  // `assign` (fuzz case 753 of seed 1202): the goroutine's loop never
  // ends, and it prints a Fibonacci number on every pass.
  const desc = fromBinary(
    ProgramDescSchema,
    await Deno.readFile(join(ROOT, "examples", "fibonacci.pb")),
  );
  const step = desc.blocks[2].ops[2];
  assertEquals(step.type, "increment");
  step.type = "assign";
  step.attrs = [];
  const c = {
    index: 0,
    seedInput: "fibonacci.pb",
    how: "increment becomes assign",
    files: new Map([["p.pb", toBinary(ProgramDescSchema, desc)]]),
    args: ["p.pb"],
    expect: {},
  };
  const dir = await Deno.makeTempDir({ prefix: "rill-fuzz-" });
  try {
    const outcome = await runCase(c, dir, 5000);
    assert(
      outcome.timedOut && outcome.printing,
      JSON.stringify(outcome).slice(0, 300),
    );
    assertEquals(judge(outcome, c.expect), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
