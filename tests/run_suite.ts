/**
 * The whole check, as `deno task test` runs it: format, lint, types, the
 * public API's docs, then the test suites, each step its own process, in
 * order, stopping at the first that fails.
 *
 * A step's result is read from what it reports, not from its exit status
 * alone. The one case where the two disagree: a `deno test` step that
 * printed a passing summary (`ok | N passed | 0 failed`) and then died of
 * SIGABRT or SIGSEGV. On this machine that happens now and then after the
 * WebGPU steps, in glibc's allocator while the process exits (`corrupted
 * size vs. prev_size`, `malloc_consolidate(): invalid chunk size`), after
 * every test has finished and every GPU device has been destroyed: Mesa's
 * llvmpipe threads and the WebGPU instance tear down in parallel. Nothing
 * of the tests' results depends on it, so such a step counts as passed,
 * with one `warning:` line that names the signal. Any other death, a
 * failing summary, or no summary at all fails the step.
 *
 * @module
 */

/** One step: a `deno` command line and the environment it adds. */
interface Step {
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

const GPU_FILES = [
  "kernels/webgpu/",
  "tests/kernels/webgpu/",
  "tests/runtime/run/device_choice_test.ts",
  "tests/runtime/cli/cli_test.ts",
];

const LAYERED = [
  "tests/runtime/ops/",
  "tests/runtime/layers/",
  "tests/examples_test.ts",
];

/**
 * The steps, in order. Steps 7 and 8 rerun, under another environment,
 * only the files that can see it: a test file whose module graph never
 * names `RILL_TEST_WORKERS` (or `RILL_TEST_DEVICE`) runs the same code
 * under it as it did in step 5, so its rerun would repeat step 5's
 * results (`testsReadingEnv`). They skip the type check too: step 5 has
 * checked every one of those files, with the same configuration.
 */
async function suiteSteps(): Promise<Step[]> {
  const onWorkers = await testsReadingEnv(LAYERED, "RILL_TEST_WORKERS");
  const onGpu = await testsReadingEnv([
    ...LAYERED,
    "tests/runtime/run/paddle_models_test.ts",
    "tests/runtime/run/paddle_models_pir_test.ts",
  ], "RILL_TEST_DEVICE");
  return [
    { args: ["fmt", "--check"] },
    { args: ["lint"] },
    { args: ["check"] },
    { args: ["doc", "--lint", "mod.ts", "scheduler/mod.ts"] },
    // Everything but the WebGPU modules, several modules at a time.
    {
      args: ["test", "-A", "--doc", "--parallel", `--ignore=${GPU_FILES}`],
    },
    // The WebGPU modules one at a time: two modules on two threads, each
    // holding a device, made the exit aborts above far more frequent.
    { args: ["test", "-A", "--doc", ...GPU_FILES] },
    // The concurrency suites again on two workers, and the op suites and
    // the real models (Paddle 2's and Paddle 3's PIR programs) on the GPU
    // path.
    {
      args: ["test", "-A", "--no-check", "--parallel", ...onWorkers],
      env: { RILL_TEST_WORKERS: "2" },
    },
    {
      args: ["test", "-A", "--no-check", ...onGpu],
      env: { RILL_TEST_DEVICE: "webgpu" },
    },
  ];
}

// A module's relative imports: static, dynamic, re-exports, and the
// `new URL("./x.ts", import.meta.url)` a Worker is started from.
const RELATIVE_IMPORT =
  /(?:\bfrom|\bimport|\bURL)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;

/**
 * The test files (`*_test.ts` and the like) among `roots` (files, or folders searched
 * through) whose module graph has a module whose text names `name`, in
 * sorted order. The graph is followed through relative imports; a module
 * outside it (an npm package, a process a test starts: `mod.ts`, whose
 * graph is the runtime's) does not read the test helpers' variables.
 *
 * @param roots Test files and folders, relative to the working directory.
 * @param name The text to look for: an environment variable's name.
 * @returns The files, as paths relative to the working directory.
 *
 * @example Usage
 * ```ts
 * import { testsReadingEnv } from "./run_suite.ts";
 * import { assert } from "@std/assert";
 *
 * const files = await testsReadingEnv(["tests/runtime/ops/"], "RILL_TEST_WORKERS");
 * assert(files.includes("tests/runtime/ops/go_test.ts"));
 * assert(!files.includes("tests/runtime/ops/mod_test.ts"));
 * ```
 */
export async function testsReadingEnv(
  roots: readonly string[],
  name: string,
): Promise<string[]> {
  // Whether each module's graph names `name`; false while it is being
  // walked, so that a cycle back to it adds nothing.
  const reaches = new Map<string, boolean>();
  const reach = (path: string): boolean => {
    const known = reaches.get(path);
    if (known !== undefined) return known;
    reaches.set(path, false);
    const found = moduleReaches(path, name, reach);
    reaches.set(path, found);
    return found;
  };
  const files: string[] = [];
  for (const root of roots) {
    for (const file of await testFilesUnder(root)) {
      if (reach(file)) files.push(file);
    }
  }
  return files.sort();
}

function moduleReaches(
  path: string,
  name: string,
  reach: (path: string) => boolean,
): boolean {
  // Data files a test opens by URL are no modules.
  if (!/\.m?[jt]sx?$/.test(path)) return false;
  const text = Deno.readTextFileSync(path);
  if (text.includes(name)) return true;
  const dir = path.slice(0, path.lastIndexOf("/") + 1);
  for (const [, specifier] of text.matchAll(RELATIVE_IMPORT)) {
    if (reach(normalize(dir + specifier))) return true;
  }
  return false;
}

// `a/b/../c/./d.ts` as `a/c/d.ts`.
function normalize(path: string): string {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "." && part !== "") parts.push(part);
  }
  return (path.startsWith("/") ? "/" : "") + parts.join("/");
}

// The names `deno test` takes for test files in a folder it is given.
const TEST_FILE = /(^|[._])test\.m?[jt]sx?$/;

async function testFilesUnder(root: string): Promise<string[]> {
  if (!root.endsWith("/")) return [root];
  const files: string[] = [];
  for await (const entry of Deno.readDir(root)) {
    const path = root + entry.name;
    if (entry.isDirectory) files.push(...await testFilesUnder(path + "/"));
    else if (TEST_FILE.test(entry.name)) files.push(path);
  }
  return files;
}

// deno test's last summary line, colours stripped.
const SUMMARY = /^(ok|FAILED) \| (\d+) passed.*\| (\d+) failed/m;

/** Signals after which a passing `deno test` still counts (see the top). */
const EXIT_ABORTS: ReadonlySet<string> = new Set(["SIGABRT", "SIGSEGV"]);

/**
 * Whether a finished step passed, and the warning to print when it passed
 * only by its report.
 *
 * @param args The step's command line.
 * @param status How it ended: its exit code, and the signal that ended it.
 * @param output What it printed, stdout and stderr.
 * @returns Whether it passed, and a warning or undefined.
 *
 * @example Usage
 * ```ts
 * import { judgeStep } from "./run_suite.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const report = "ok | 3 passed | 0 failed (1s)\nmalloc_consolidate(): invalid chunk size\n";
 * const aborted = { code: 134, signal: "SIGABRT" } as const;
 * assertEquals(judgeStep(["test"], aborted, report).passed, true);
 * assertEquals(judgeStep(["test"], { code: 1, signal: null }, report).passed, false);
 * assertEquals(judgeStep(["lint"], aborted, report).passed, false);
 * ```
 */
export function judgeStep(
  args: readonly string[],
  status: { readonly code: number; readonly signal: string | null },
  output: string,
): { passed: boolean; warning?: string } {
  if (status.code === 0 && status.signal === null) return { passed: true };
  // A child killed by a signal reports it; `deno task` and shells report
  // 128 + its number instead.
  const signal = status.signal ??
    { 134: "SIGABRT", 139: "SIGSEGV" }[status.code] ?? null;
  // deno test prints its summary last: the final one is the step's.
  const summaries = [
    ...stripColours(output).matchAll(new RegExp(SUMMARY, "gm")),
  ];
  const last = summaries.at(-1);
  if (
    args[0] !== "test" || signal === null || !EXIT_ABORTS.has(signal) ||
    last === undefined ||
    last[1] !== "ok" || last[3] !== "0"
  ) {
    return { passed: false };
  }
  return {
    passed: true,
    warning: `warning: deno ${args[0]} passed (${last[2]} tests) and then ` +
      `died of ${signal} while exiting; counted as passed (tests/run_suite.ts)`,
  };
}

function stripColours(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, "");
}

// Runs one step, echoing what it prints as it prints it, and returns how
// it ended and its output.
async function runStep(step: Step): Promise<[Deno.CommandStatus, string]> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [...step.args],
    env: step.env,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const chunks: string[] = [];
  const decoder = new TextDecoder();
  const echo = async (
    stream: ReadableStream<Uint8Array>,
    to: typeof Deno.stdout,
  ) => {
    for await (const bytes of stream) {
      chunks.push(decoder.decode(bytes, { stream: true }));
      await writeAll(to, bytes);
    }
  };
  const [status] = await Promise.all([
    child.status,
    echo(child.stdout, Deno.stdout),
    echo(child.stderr, Deno.stderr),
  ]);
  return [status, chunks.join("")];
}

async function writeAll(
  to: typeof Deno.stdout,
  bytes: Uint8Array,
): Promise<void> {
  for (let n = 0; n < bytes.length;) n += await to.write(bytes.subarray(n));
}

if (import.meta.main) {
  for (const step of await suiteSteps()) {
    const [status, output] = await runStep(step);
    const { passed, warning } = judgeStep(step.args, status, output);
    if (warning !== undefined) console.error(warning);
    if (!passed) Deno.exit(status.code === 0 ? 1 : status.code);
  }
}
