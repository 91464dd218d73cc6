import { assertEquals, assertStringIncludes } from "@std/assert";
import { judgeStep } from "./run_suite.ts";

const PASSED = "running 3 tests\n...\nok | 3 passed | 0 failed (1s)\n";
const ABORT = { code: 134, signal: "SIGABRT" } as const;

Deno.test("judgeStep() passes a step that exits 0, and fails one that exits otherwise", () => {
  assertEquals(judgeStep(["lint"], { code: 0, signal: null }, ""), {
    passed: true,
  });
  assertEquals(
    judgeStep(["lint"], { code: 1, signal: null }, "").passed,
    false,
  );
});

Deno.test("judgeStep() counts a deno test that reported a pass and then aborted while exiting, with a warning", () => {
  const output = PASSED + "corrupted size vs. prev_size\n";
  for (const status of [ABORT, { code: 134, signal: null }]) {
    const { passed, warning } = judgeStep(["test", "-A"], status, output);
    assertEquals(passed, true);
    assertStringIncludes(warning!, "passed (3 tests) and then died of SIGABRT");
  }
  const segv = judgeStep(["test"], { code: 139, signal: null }, output);
  assertStringIncludes(segv.warning!, "SIGSEGV");
});

Deno.test("judgeStep() fails an abort without a passing report, and any other death", () => {
  const failed = "FAILED | 2 passed | 1 failed (1s)\n";
  assertEquals(judgeStep(["test"], ABORT, failed).passed, false);
  assertEquals(judgeStep(["test"], ABORT, "running 3 tests\n").passed, false);
  assertEquals(
    judgeStep(["test"], { code: 137, signal: "SIGKILL" }, PASSED).passed,
    false,
  );
  assertEquals(judgeStep(["check"], ABORT, PASSED).passed, false);
});

Deno.test("judgeStep() reads the last summary, colours and all", () => {
  const coloured = "\x1b[0m\x1b[32mok\x1b[0m | 5 passed | 0 failed (2s)\n";
  const output = "FAILED | 1 passed | 1 failed\n" + coloured;
  assertEquals(judgeStep(["test"], ABORT, output).passed, true);
});
