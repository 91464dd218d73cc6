/**
 * Fuzzes the CLI: runs `deno run -A mod.ts` on mutated programs, text
 * programs, model directories, parameters and `.npy` feeds (_cases.ts),
 * each in a process of its own, and checks every run against the contract
 * (_judge.ts). Prints one line per broken case and a summary; exits 1 when
 * any case broke the contract. A broken case's files stay under --keep.
 *
 *   deno run -A tests/fuzz/fuzz_cli.ts [--cases 1000] [--seed 1] [--jobs 2]
 *     [--timeout 20] [--keep DIR]
 *
 * The real Paddle models join the seed inputs when ../shared/paddle-models
 * (or RILL_PADDLE_MODELS) is there.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { dirname, fromFileUrl, join } from "@std/path";
import {
  type FuzzCase,
  makeCase,
  type SeedInput,
  seedInputs,
} from "./_cases.ts";
import { judge, type Outcome } from "./_judge.ts";

/** How a fuzz run went. */
export interface FuzzReport {
  readonly cases: number;
  /** Broken cases: the case and its problems. */
  readonly broken: { readonly case: FuzzCase; readonly problems: string[] }[];
  /** How many ended with each exit code ("timeout" for none). */
  readonly exits: Record<string, number>;
}

/** What a fuzz run does. */
export interface FuzzOptions {
  readonly cases: number;
  readonly seed: number;
  readonly jobs: number;
  readonly timeoutMs: number;
  /** Where broken cases' files are kept; undefined: nowhere. */
  readonly keep?: string;
  /** Called with each broken case as it is found. */
  readonly onBroken?: (c: FuzzCase, problems: string[]) => void;
}

/** The repository's root. */
export const ROOT: string = join(
  dirname(fromFileUrl(import.meta.url)),
  "..",
  "..",
);

/**
 * Runs `options.cases` cases over `seeds`, `options.jobs` at a time.
 *
 * @param seeds The seed inputs.
 * @param options The run's size, seed and limits.
 * @returns The report.
 */
export async function fuzz(
  seeds: readonly SeedInput[],
  options: FuzzOptions,
): Promise<FuzzReport> {
  const broken: FuzzReport["broken"] = [];
  const exits: Record<string, number> = {};
  let next = 0;
  async function worker(): Promise<void> {
    while (next < options.cases) {
      const c = makeCase(seeds, options.seed, next++);
      const dir = await Deno.makeTempDir({ prefix: "rill-fuzz-" });
      try {
        const outcome = await runCase(c, dir, options.timeoutMs);
        const key = outcome.printing
          ? "endless"
          : outcome.timedOut
          ? "timeout"
          : String(outcome.code ?? outcome.signal);
        exits[key] = (exits[key] ?? 0) + 1;
        const problems = judge(outcome, c.expect);
        if (problems.length > 0) {
          broken.push({ case: c, problems });
          options.onBroken?.(c, problems);
          if (options.keep !== undefined) {
            await keepCase(c, dir, options.keep, outcome);
          }
        }
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    }
  }
  await Promise.all(Array.from({ length: options.jobs }, worker));
  return { cases: options.cases, broken, exits };
}

/**
 * Runs one case's command line in a process of its own, its files in `dir`,
 * killed after `timeoutMs`.
 *
 * @param c The case.
 * @param dir An empty directory for its files.
 * @param timeoutMs The time limit.
 * @returns How the run ended.
 */
export async function runCase(
  c: FuzzCase,
  dir: string,
  timeoutMs: number,
): Promise<Outcome> {
  for (const [path, bytes] of c.files) {
    await Deno.mkdir(dirname(join(dir, path)), { recursive: true });
    await Deno.writeFile(join(dir, path), bytes);
  }
  const child = new Deno.Command(Deno.execPath(), {
    // From the root, where the examples find their data files; the case's
    // own files by absolute path.
    args: ["run", "-A", "mod.ts", ...c.args.map((a) => inDir(dir, a))],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  let timedOut = false;
  let killedAt = 0;
  const timer = setTimeout(() => {
    timedOut = true;
    killedAt = performance.now();
    child.kill("SIGKILL");
  }, timeoutMs);
  const lastOutput = { at: -Infinity };
  const [stdout, stderr, status] = await Promise.all([
    readKept(child.stdout, lastOutput),
    readKept(child.stderr, lastOutput),
    child.status,
  ]);
  clearTimeout(timer);
  return {
    code: status.signal === null ? status.code : null,
    signal: status.signal,
    stdout,
    stderr,
    timedOut,
    printing: timedOut && killedAt - lastOutput.at < PRINTING_MS,
  };
}

// A run killed at the limit that printed this recently was making progress.
const PRINTING_MS = 1000;
// How much of a run's output is kept: an endless program prints without end.
const KEPT_BYTES = 1 << 20;

// Reads `stream` to its end, keeping its first KEPT_BYTES as text and
// noting when its last bytes came.
async function readKept(
  stream: ReadableStream<Uint8Array>,
  last: { at: number },
): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream) {
    last.at = performance.now();
    if (text.length < KEPT_BYTES) {
      text += decoder.decode(chunk, { stream: true });
    }
  }
  return text + decoder.decode();
}

// An argument naming one of the case's files (alone or after `NAME=`),
// as a path into `dir`.
function inDir(dir: string, arg: string): string {
  const eq = arg.indexOf("=");
  const [prefix, path] = eq < 0
    ? ["", arg]
    : [arg.slice(0, eq + 1), arg.slice(eq + 1)];
  return path.startsWith("-") ? arg : prefix + join(dir, path);
}

async function keepCase(
  c: FuzzCase,
  dir: string,
  keep: string,
  outcome: Outcome,
): Promise<void> {
  const to = join(keep, `case-${c.index}`);
  await Deno.mkdir(to, { recursive: true });
  for (const path of c.files.keys()) {
    await Deno.mkdir(dirname(join(to, path)), { recursive: true });
    await Deno.copyFile(join(dir, path), join(to, path));
  }
  await Deno.writeTextFile(
    join(to, "CASE.txt"),
    `seed input: ${c.seedInput}\nmutation: ${c.how}\nargs: ${
      c.args.join(" ")
    }\n` +
      `exit: ${outcome.code} signal: ${outcome.signal} timed out: ${outcome.timedOut} printing: ${outcome.printing}\n` +
      `--- stdout (first 2000 chars)\n${
        outcome.stdout.slice(0, 2000)
      }\n--- stderr\n${outcome.stderr.slice(0, 4000)}\n`,
  );
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      cases: { type: "string", default: "1000" },
      seed: { type: "string", default: "1" },
      jobs: { type: "string", default: "2" },
      timeout: { type: "string", default: "20" },
      keep: { type: "string" },
    },
  });
  const shared = Deno.env.get("RILL_PADDLE_MODELS") ??
    join(ROOT, "..", "shared", "paddle-models");
  const hasShared = await Deno.stat(shared).then(() => true, () => false);
  const seeds = await seedInputs(ROOT, hasShared ? shared : undefined);
  const keep = values.keep ??
    await Deno.makeTempDir({ prefix: "rill-fuzz-kept-" });
  const started = performance.now();
  const report = await fuzz(seeds, {
    cases: Number(values.cases),
    seed: Number(values.seed),
    jobs: Number(values.jobs),
    timeoutMs: Number(values.timeout) * 1000,
    keep,
    onBroken: (c, problems) =>
      console.log(
        `case ${c.index} (${c.seedInput}; ${c.how}): ${problems.join("; ")}`,
      ),
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  console.log(
    `${report.cases} cases over ${seeds.length} seed inputs in ${seconds} s; ` +
      `exits ${
        JSON.stringify(report.exits)
      }; ${report.broken.length} broke the contract` +
      (report.broken.length > 0 ? ` (kept in ${keep})` : ""),
  );
  Deno.exit(report.broken.length === 0 ? 0 : 1);
}
