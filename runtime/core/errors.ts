/**
 * The errors the runtime raises before a program runs. A `ProgramError` is
 * the user's mistake (a file that does not decode, an unknown op, an
 * undeclared variable): the CLI prints its message as one `error:` line and
 * exits 1. An `InternalError` is a broken invariant inside Rill.
 *
 * @module
 */

/** Where in a program an error was found: any of file, block, op. */
export interface ProgramErrorWhere {
  /** The file the program was read from. */
  file?: string;
  /** The line in a text-format file, from 1. */
  line?: number;
  /** The column in that line, from 1. */
  column?: number;
  /** The block index. */
  block?: number;
  /** The op index inside the block. */
  op?: number;
  /** The op type. */
  opType?: string;
  /** The op's slot involved, as `input "X"` names it: `X`. */
  slot?: string;
  /** The variable involved. */
  variable?: string;
  /** The attribute involved. */
  attr?: string;
}

/**
 * Invalid input: a program that does not decode, fails validation, or a
 * bad command line. Its message is one line that names what and where.
 *
 * @example Usage
 * ```ts
 * import { ProgramError } from "./errors.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const e = new ProgramError('unknown op "foo"', { block: 0, op: 2, opType: "foo" });
 * assertEquals(e.message, 'block 0 op 2 (foo): unknown op "foo"');
 * // Control characters from the program are escaped: one line.
 * assertEquals(new ProgramError('unknown op "a\nb"').message, 'unknown op "a\\nb"');
 * ```
 */
export class ProgramError extends Error {
  /** Where the error was found. */
  readonly where: ProgramErrorWhere;

  /**
   * Makes an error whose message is `where: detail`.
   *
   * @param detail What is wrong.
   * @param where Where it is.
   */
  constructor(detail: string, where: ProgramErrorWhere = {}) {
    // Names come from the program file; a line break in one must not
    // break the one-line message.
    super(printable(prefixOf(where) + detail));
    this.name = "ProgramError";
    this.where = where;
  }
}

/**
 * A broken invariant inside Rill ("this is a Rill bug"); never caught to
 * retry.
 *
 * @example Usage
 * ```ts
 * import { InternalError } from "./errors.ts";
 * import { assertStringIncludes } from "@std/assert";
 *
 * assertStringIncludes(new InternalError("slot out of range").message, "Rill bug");
 * ```
 */
export class InternalError extends Error {
  /**
   * Makes the error.
   *
   * @param detail The invariant that broke.
   */
  constructor(detail: string) {
    super(`internal error (this is a Rill bug): ${detail}`);
    this.name = "InternalError";
  }
}

// C0 and C1 controls, DEL, and the Unicode line and paragraph separators:
// matching them is the point.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

/**
 * Text with its control characters escaped (`\n`, `\t`, `\u001b`), so that
 * text taken from a program (names, strings) cannot break a one-line
 * message or forge another line of output.
 *
 * @param text Any text.
 * @returns The text, on one line.
 *
 * @example Usage
 * ```ts
 * import { printable } from "./errors.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(printable("x\ny\u001b[0m"), "x\\ny\\u001b[0m");
 * assertEquals(printable("fc_0.w_0"), "fc_0.w_0");
 * ```
 */
export function printable(text: string): string {
  return text.replace(
    CONTROL,
    (c) =>
      SHORT_ESCAPES[c] ??
        `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function prefixOf(where: ProgramErrorWhere): string {
  const parts: string[] = [];
  if (where.file !== undefined) {
    let file = where.file;
    if (where.line !== undefined) file += `:${where.line}`;
    if (where.column !== undefined) file += `:${where.column}`;
    parts.push(file);
  }
  if (where.block !== undefined) {
    let at = `block ${where.block}`;
    if (where.op !== undefined) at += ` op ${where.op}`;
    if (where.opType !== undefined) at += ` (${where.opType})`;
    parts.push(at);
  }
  return parts.length === 0 ? "" : parts.join(": ") + ": ";
}
