// The header dict of a .npy file, read as NumPy reads it
// (`numpy.lib.format.read_array_header`): the text is a Python literal,
// evaluated as `ast.literal_eval` would, and must then be a dict with
// exactly the keys 'descr', 'fortran_order' and 'shape', where 'shape' is a
// tuple of ints and 'fortran_order' a bool. A key given twice keeps its
// last value, as in Python. What NumPy refuses is refused here, so a file
// never means one shape to NumPy and another to Rill.
//
// The literal grammar is the part of Python's that a header can use:
// dicts, tuples, lists, strings ('…' or "…", with b/r prefixes), ints
// (decimal, `_` between digits, a sign), floats, True, False and None.
// Versions 1.0 and 2.0 also accept Python 2's long suffix (`3L`), as
// NumPy's fallback for those versions does. Ints are kept exact (as
// bigint), so a message shows the digits the file holds.

/** A Python literal value of a header. */
export type PyValue =
  | string
  | bigint
  | number
  | boolean
  | null
  | PyTuple
  | PyValue[]
  | Map<PyValue, PyValue>;

/** A Python tuple (a list is a plain array). */
export class PyTuple {
  /** The items. */
  readonly items: readonly PyValue[];

  /**
   * Wraps the items of a tuple.
   *
   * @param items The items.
   */
  constructor(items: readonly PyValue[]) {
    this.items = items;
  }
}

/** The header's three entries, checked as NumPy checks them. */
export interface HeaderDict {
  /** The dtype string, as written. */
  readonly descr: string;
  /** Whether the data is in Fortran order. */
  readonly fortranOrder: boolean;
  /** The shape, each dim exact. */
  readonly shape: readonly bigint[];
}

const KEYS = ["descr", "fortran_order", "shape"];

/**
 * Reads a header's dict.
 *
 * @param text The header, as decoded from the file.
 * @param major The format's major version (1, 2 or 3).
 * @returns The entries.
 * @throws {TypeError} Where NumPy raises: not a literal, not a dict, the
 * wrong keys, a shape that is not a tuple of ints, a fortran_order that is
 * not a bool, a descr that is not a string.
 *
 * @example Usage
 * ```ts
 * import { readHeaderDict } from "./_npy_header.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const d = readHeaderDict("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 1);
 * assertEquals(d, { descr: "<f4", fortranOrder: false, shape: [2n, 3n] });
 * ```
 */
export function readHeaderDict(text: string, major: number): HeaderDict {
  const value = new LiteralReader(text, major < 3).whole();
  if (!(value instanceof Map)) {
    throw new TypeError(
      `decode npy: the header is not a dictionary: ${quoted(text)}`,
    );
  }
  const keys = [...value.keys()];
  const named = keys.filter((k): k is string => typeof k === "string");
  if (
    named.length !== keys.length || keys.length !== KEYS.length ||
    !KEYS.every((k) => value.has(k))
  ) {
    throw new TypeError(
      "decode npy: the header's keys must be exactly 'descr', " +
        `'fortran_order' and 'shape', not ${keys.map(pyRepr).join(", ")}`,
    );
  }
  const shape = value.get("shape");
  if (
    !(shape instanceof PyTuple) ||
    !shape.items.every((d) => typeof d === "bigint")
  ) {
    throw new TypeError(
      `decode npy: shape ${pyRepr(shape!)} is not a tuple of integers`,
    );
  }
  const fortran = value.get("fortran_order");
  if (typeof fortran !== "boolean") {
    throw new TypeError(
      `decode npy: fortran_order ${pyRepr(fortran!)} is not True or False`,
    );
  }
  const descr = value.get("descr");
  if (typeof descr !== "string") {
    throw new TypeError(
      `decode npy: descr ${pyRepr(descr!)} is not a plain dtype string`,
    );
  }
  return {
    descr,
    fortranOrder: fortran,
    shape: shape.items as bigint[],
  };
}

/**
 * A value as Python's `repr` shows it, for messages.
 *
 * @param v The value.
 * @returns Its text.
 *
 * @example Usage
 * ```ts
 * import { PyTuple, pyRepr } from "./_npy_header.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(pyRepr(new PyTuple([2n, 3.5])), "(2, 3.5)");
 * ```
 */
export function pyRepr(v: PyValue): string {
  if (v === null) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "bigint") return String(v);
  if (typeof v === "number") {
    return Number.isInteger(v) ? v.toFixed(1) : String(v);
  }
  if (typeof v === "string") return `'${v}'`;
  if (v instanceof PyTuple) {
    const items = v.items.map(pyRepr);
    return items.length === 1 ? `(${items[0]},)` : `(${items.join(", ")})`;
  }
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  return `{${[...v].map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(", ")}}`;
}

function quoted(text: string): string {
  return JSON.stringify(text.trim());
}

// A reader of one Python literal. Each method reads one construct at #at
// (after skipping white space) and leaves #at after it.
class LiteralReader {
  readonly #text: string;
  readonly #longs: boolean;
  #at = 0;

  constructor(text: string, longs: boolean) {
    this.#text = text;
    this.#longs = longs;
  }

  whole(): PyValue {
    const value = this.#value();
    this.#space();
    if (this.#at < this.#text.length) this.#fail("after the value");
    return value;
  }

  #value(): PyValue {
    this.#space();
    const c = this.#text[this.#at];
    if (c === "{") return this.#dict();
    if (c === "(") return this.#tuple();
    if (c === "[") return this.#list();
    if (c === "'" || c === '"') return this.#string();
    if (c !== undefined && /[bBrR]/.test(c) && /['"bBrR]/.test(this.#peek(1))) {
      return this.#string();
    }
    if (c !== undefined && /[-+0-9.]/.test(c)) return this.#number();
    for (const [word, value] of WORDS) {
      if (this.#text.startsWith(word, this.#at) && !this.#wordGoesOn(word)) {
        this.#at += word.length;
        return value;
      }
    }
    return this.#fail("here");
  }

  #dict(): Map<PyValue, PyValue> {
    const map = new Map<PyValue, PyValue>();
    this.#items("{", "}", () => {
      const key = this.#value();
      if (typeof key !== "string" && typeof key !== "bigint") {
        // Python would hash it; no header needs such keys.
        this.#fail("as a key");
      }
      this.#expect(":");
      map.delete(key); // the last of a repeated key wins, in its place
      map.set(key, this.#value());
    });
    return map;
  }

  #tuple(): PyValue {
    const items: PyValue[] = [];
    const commas = this.#items("(", ")", () => items.push(this.#value()));
    // `(x)` is x itself; `()`, `(x,)` and `(x, y)` are tuples.
    return items.length === 1 && commas === 0 ? items[0] : new PyTuple(items);
  }

  #list(): PyValue[] {
    const items: PyValue[] = [];
    this.#items("[", "]", () => items.push(this.#value()));
    return items;
  }

  // Reads `open item, item, … close` (a trailing comma allowed) and
  // returns how many commas it read.
  #items(open: string, close: string, item: () => void): number {
    this.#expect(open);
    let commas = 0;
    for (;;) {
      this.#space();
      if (this.#text[this.#at] === close) break;
      item();
      this.#space();
      if (this.#text[this.#at] !== ",") break;
      this.#at++;
      commas++;
    }
    this.#expect(close);
    return commas;
  }

  #string(): string {
    let raw = false;
    while (/[bBrR]/.test(this.#text[this.#at])) {
      if (/[rR]/.test(this.#text[this.#at])) raw = true;
      this.#at++;
    }
    const quote = this.#text[this.#at];
    if (quote !== "'" && quote !== '"') this.#fail("in a string prefix");
    let out = "";
    for (this.#at++; this.#text[this.#at] !== quote; this.#at++) {
      const c = this.#text[this.#at];
      if (c === undefined || c === "\n") this.#fail("in an unclosed string");
      if (c === "\\" && !raw) {
        this.#at++;
        out += ESCAPES[this.#text[this.#at]] ?? "\\" + this.#text[this.#at];
      } else {
        out += c;
      }
    }
    this.#at++;
    return out;
  }

  #number(): bigint | number {
    const m = NUMBER.exec(this.#text.slice(this.#at));
    if (m === null || m[0] === "" || /^[-+]$/.test(m[0])) {
      return this.#fail("in a number");
    }
    const [text, sign, digits, long] = [m[0], m[1], m[2], m[4]];
    const fraction = m[3] || undefined;
    if (long !== undefined && (!this.#longs || fraction !== undefined)) {
      this.#fail("in a number");
    }
    this.#at += text.length;
    if (fraction === undefined) {
      // Python 3 refuses a leading zero on a nonzero decimal int.
      if (/^0+[1-9]/.test(digits.replaceAll("_", ""))) this.#fail("here");
      const n = BigInt(digits.replaceAll("_", ""));
      return sign === "-" ? -n : n;
    }
    const value = Number(
      (sign ?? "") + (digits + fraction).replaceAll("_", ""),
    );
    if (Number.isNaN(value)) this.#fail("in a number");
    return value;
  }

  #expect(c: string): void {
    this.#space();
    if (this.#text[this.#at] !== c) this.#fail(`where '${c}' belongs`);
    this.#at++;
  }

  #space(): void {
    while (/\s/.test(this.#text[this.#at] ?? "")) this.#at++;
  }

  #peek(n: number): string {
    return this.#text[this.#at + n] ?? "";
  }

  #wordGoesOn(word: string): boolean {
    return /[A-Za-z0-9_]/.test(this.#text[this.#at + word.length] ?? "");
  }

  #fail(where: string): never {
    throw new TypeError(
      `decode npy: the header is not a Python literal (byte ${this.#at}, ` +
        `${where}): ${quoted(this.#text)}`,
    );
  }
}

// Digits with `_` only between them; an optional fraction and exponent
// make a float; `L` a Python 2 long.
const NUMBER =
  /^([-+])?\s*((?:\d(?:_?\d)*)?)((?:\.(?:\d(?:_?\d)*)?)?(?:[eE][-+]?\d(?:_?\d)*)?)?(L)?/;

const WORDS: ReadonlyArray<readonly [string, PyValue]> = [
  ["True", true],
  ["False", false],
  ["None", null],
];

const ESCAPES: Readonly<Record<string, string>> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  n: "\n",
  t: "\t",
  r: "\r",
  "0": "\0",
};
