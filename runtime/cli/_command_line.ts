/**
 * The command line's words: every flag any command takes, parsed once,
 * the small readers the commands share, and where a command writes and
 * what it ends with.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { WORKER_LIMIT_FLAGS } from "../cluster/worker_limits.ts";
import { ProgramError } from "../core/errors.ts";

/** What a CLI run ends with. */
export interface CliResult {
  /** The process exit code. */
  code: 0 | 1 | 2;
}

/** Where the CLI writes; tests capture both. */
export interface CliIO {
  /** Program output and fetched values. */
  stdout(line: string): void;
  /** `error:`, `panic:` and deadlock reports. */
  stderr(text: string): void;
}

/**
 * A flag's whole number (0 allowed for `--seed` and `--port`), or the
 * fallback when the flag is absent.
 *
 * @param flag The flag, for the message.
 * @param text Its value, if given.
 * @param fallback The value without the flag.
 * @returns The number.
 * @throws {ProgramError} If the text is no such number.
 *
 * @example Usage
 * ```ts
 * import { positiveInt } from "./_command_line.ts";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * assertEquals(positiveInt("--workers", "3", 1), 3);
 * assertEquals(positiveInt("--workers", undefined, 1), 1);
 * assertThrows(() => positiveInt("--workers", "0", 1));
 * ```
 */
export function positiveInt(
  flag: string,
  text: string | undefined,
  fallback: number,
): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < (flag === "--seed" ? 0 : 1)) {
    throw new ProgramError(`${flag}: "${text}" is not a valid number`);
  }
  return n;
}

/**
 * A `name=value` flag's two parts; the value is undefined without `=`.
 *
 * @param flag The flag, for the message.
 * @param text Its value.
 * @returns The name and the value.
 * @throws {ProgramError} If the text names no variable (`=x`).
 *
 * @example Usage
 * ```ts
 * import { splitPair } from "./_command_line.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(splitPair("--feed", "x=a.npy"), ["x", "a.npy"]);
 * assertEquals(splitPair("--fetch", "y"), ["y", undefined]);
 * ```
 */
export function splitPair(
  flag: string,
  text: string,
): [string, string | undefined] {
  const eq = text.indexOf("=");
  if (eq === 0) throw new ProgramError(`${flag}: "${text}" names no variable`);
  return eq < 0 ? [text, undefined] : [text.slice(0, eq), text.slice(eq + 1)];
}

// node:util's parseArgs message, in Rill's words where it has some.
function usageProblem(message: string): string {
  const flag = /^Unknown option '([^']*)'/.exec(message)?.[1];
  if (flag !== undefined) return `unknown flag "${flag}"`;
  const missing = /^Option '(?:-\w, )?(--[\w-]+)[^']*' argument missing/.exec(
    message,
  )?.[1];
  if (missing !== undefined) return `flag "${missing}" needs a value`;
  return message.split("\n")[0].replace(/\.$/, "");
}

/**
 * The command line's flags and positionals.
 *
 * @param args The arguments after `mod.ts`.
 * @returns What node:util's parseArgs makes of them.
 * @throws {ProgramError} For an unknown flag or a flag without its value.
 *
 * @example Usage
 * ```ts
 * import { parseCommandLine } from "./_command_line.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const { values, positionals } = parseCommandLine(["p.pb", "--seed", "7"]);
 * assertEquals([positionals, values.seed], [["p.pb"], "7"]);
 * ```
 */
export function parseCommandLine(args: readonly string[]): ParsedCommandLine {
  try {
    return parseFlags(args);
  } catch (e) {
    throw new ProgramError(
      `${usageProblem((e as Error).message)} (see --help)`,
    );
  }
}

// Every flag of every command; a command refuses those it does not take.
function parseFlags(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      workers: { type: "string" },
      device: { type: "string" },
      explain: { type: "boolean" },
      seed: { type: "string" },
      trace: { type: "string" },
      record: { type: "string" },
      replay: { type: "string" },
      feed: { type: "string", multiple: true },
      fetch: { type: "string", multiple: true },
      params: { type: "string" },
      "worker-addrs": { type: "string" },
      "all-attrs": { type: "boolean" },
      format: { type: "string" },
      out: { type: "string" },
      "out-dir": { type: "string" },
      "label-selector": { type: "string" },
      port: { type: "string" },
      listen: { type: "string" },
      insecure: { type: "boolean" },
      "tls-cert": { type: "string" },
      "tls-key": { type: "string" },
      "drain-timeout": { type: "string" },
      namespace: { type: "string" },
      "min-workers": { type: "string" },
      "discovery-timeout": { type: "string" },
      "dial-by": { type: "string" },
      "health-listen": { type: "string" },
      "tls-ca": { type: "string" },
      "rpc-keepalive": { type: "string" },
      "rpc-timeout": { type: "string" },
      "rpc-redial": { type: "string" },
      ...WORKER_LIMIT_OPTIONS,
      help: { type: "boolean", short: "h" },
      version: { type: "boolean" },
    },
  });
}

// The limit flags of the worker command, for parseArgs.
const WORKER_LIMIT_OPTIONS = Object.fromEntries(
  WORKER_LIMIT_FLAGS.map(({ flag }) => [flag, { type: "string" as const }]),
);

/** What `parseCommandLine` returns. */
export type ParsedCommandLine = ReturnType<typeof parseFlags>;

/** The flags of a command line, by name. */
export type Flags = ParsedCommandLine["values"];
