import { assertEquals, assertStringIncludes } from "@std/assert";
import { judgeStep, testsReadingEnv } from "./run_suite.ts";

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

Deno.test("testsReadingEnv() keeps the test files whose imports reach a module naming the variable", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rill-suite-" });
  try {
    const files: Record<string, string> = {
      "helper.ts": 'export const n = Deno.env.get("RILL_X");\n',
      "through.ts": 'export { n } from "./helper.ts";\n',
      "a/direct_test.ts": 'import { n } from "../helper.ts";\n',
      "a/deep/through_test.ts": 'import "../../through.ts";\n',
      "a/dynamic_test.ts": 'await import("../through.ts");\n',
      "a/worker_test.ts": 'new URL("../helper.ts", import.meta.url);\n',
      "a/cycle_test.ts": 'import "./cycle.ts";\n',
      "a/cycle.ts": 'import "./cycle_test.ts";\nimport "@std/assert";\n',
      "a/data_test.ts": 'new URL("./data.bin", import.meta.url);\n',
      "a/data.bin": "RILL_X",
      "a/imported.ts": 'import "../helper.ts";\n',
    };
    for (const [path, text] of Object.entries(files)) {
      await Deno.mkdir(`${dir}/${path}`.replace(/\/[^/]*$/, ""), {
        recursive: true,
      });
      await Deno.writeTextFile(`${dir}/${path}`, text);
    }
    assertEquals(await testsReadingEnv([`${dir}/a/`], "RILL_X"), [
      `${dir}/a/deep/through_test.ts`,
      `${dir}/a/direct_test.ts`,
      `${dir}/a/dynamic_test.ts`,
      `${dir}/a/worker_test.ts`,
    ]);
    assertEquals(
      await testsReadingEnv([`${dir}/a/cycle_test.ts`], "RILL_X"),
      [],
    );
    assertEquals(
      await testsReadingEnv([`${dir}/a/direct_test.ts`], "RILL_Y"),
      [],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
