/**
 * What the fuzzer requires of every run of the CLI on a mutated input
 * (the command-line contract, docs/architecture.md §5): it answers within
 * the time limit, or is still printing when the limit kills it (a program
 * that loops for ever by its own logic, as a Go program may, is not a
 * hang); it exits 0, 1 or 2 and is not killed by a signal; it never
 * prints a stack trace or a raw JavaScript engine message; exit 1 is one
 * `error:` line with nothing printed before it (nothing ran); exit 2 is a
 * panic or deadlock report; and a file NumPy refuses is refused (exit 1).
 *
 * @module
 */

/** How one run of the CLI ended. */
export interface Outcome {
  /** The exit code; null when a signal ended it. */
  readonly code: number | null;
  /** The signal that ended it, if one did. */
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Whether it was killed at the time limit. */
  readonly timedOut: boolean;
  /**
   * Whether, killed at the time limit, it had printed within the last
   * second before: a run making progress, not a hung one.
   */
  readonly printing: boolean;
}

/** What the input requires beyond the contract. */
export interface Expectation {
  /** The input is one NumPy refuses: the run must exit 1. */
  readonly refuse?: boolean;
}

// Messages of V8 and Deno rather than of Rill: a user should never see
// them (each stands for a check Rill lacks).
const ENGINE_MESSAGES =
  /Invalid array length|Invalid typed array length|Array buffer allocation failed|Cannot read properties|Cannot set properties|is not a function|is not iterable|Maximum call stack|out of memory|Invalid string length|BigInt|Cannot convert/;

// A JavaScript stack frame, "    at f (file:///x.ts:1:2)" or
// "    at ext:core/01_core.js:3:4"; not Rill's own "\tat block 0 op 2".
const STACK_LINE = /^\s+at .*(\(\S+:\d+:\d+\)|(file|ext|node):\S*:\d+:\d+)$/m;

const DEADLOCK = "fatal error: all goroutines are asleep - deadlock!";

/**
 * The ways `outcome` breaks the contract; empty when it keeps it.
 *
 * @param outcome How the run ended.
 * @param expect What the input requires.
 * @returns One phrase per problem.
 *
 * @example Usage
 * ```ts
 * import { judge } from "./_judge.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const ok = { code: 1, signal: null, stdout: "", stderr: "error: x.pb: not a ProgramDesc\n", timedOut: false, printing: false };
 * assertEquals(judge(ok, {}), []);
 * assertEquals(judge({ ...ok, stdout: "1\n" }, {}), ["output before exit 1"]);
 * ```
 */
export function judge(outcome: Outcome, expect: Expectation): string[] {
  if (outcome.timedOut && !outcome.printing) {
    return ["no answer within the time limit"];
  }
  if (outcome.signal !== null && !outcome.timedOut) {
    return [`killed by ${outcome.signal}`];
  }
  const problems: string[] = [];
  const { code, stdout, stderr } = outcome;
  if (STACK_LINE.test(stderr)) problems.push("a stack trace");
  const engine = ENGINE_MESSAGES.exec(stderr);
  if (engine !== null) problems.push(`an engine message ("${engine[0]}")`);
  // Killed while still printing, it has no exit code of its own to judge.
  if (!outcome.timedOut) problems.push(...exitProblems(code, stdout, stderr));
  if (expect.refuse && code !== 1) {
    problems.push(`exit ${code} on a file NumPy refuses`);
  }
  return problems;
}

// What the exit code and output break of the contract.
function exitProblems(
  code: number | null,
  stdout: string,
  stderr: string,
): string[] {
  const problems: string[] = [];
  if (code === 1) {
    if (stdout !== "") problems.push("output before exit 1");
    const lines = stderr.trimEnd().split("\n");
    if (lines.length !== 1 || !lines[0].startsWith("error: ")) {
      problems.push("exit 1 without exactly one error: line");
    }
  } else if (code === 2) {
    if (!stderr.startsWith("panic: ") && !stderr.startsWith(DEADLOCK)) {
      problems.push("exit 2 without a panic or deadlock report");
    }
  } else if (code !== 0) {
    problems.push(`exit ${code}`);
  }
  return problems;
}
