/**
 * PIR attributes and types as the JSON writes them: `{"#": tag, "D":
 * data}`. Known tags decode to a discriminated value; any other tag is
 * `opaque`, kept by name so that the conversion can list it. A known tag
 * whose data has the wrong shape is the file's error (`bad` is called).
 *
 * Integers: `0.a_i32` and `0.a_i64` both decode to numbers (an int64 beyond
 * 2^53 loses precision, as JSON.parse already did); the kind keeps the
 * width the file declared. Floats JSON cannot spell are written with `VD`
 * in place of `D` (`{"#": "0.a_f64", "VD": "INF"}`, seen in DeePMD's
 * program): `INF`, `-INF` and `NAN` are read.
 *
 * @module
 */

/** A decoded attribute. */
export type PirAttr =
  | { readonly kind: "bool"; readonly value: boolean }
  | { readonly kind: "i32" | "i64" | "f32" | "f64"; readonly value: number }
  | { readonly kind: "str"; readonly value: string }
  | { readonly kind: "array"; readonly value: readonly PirAttr[] }
  | { readonly kind: "intarray"; readonly value: readonly number[] }
  | { readonly kind: "dtype"; readonly value: string }
  | { readonly kind: "place"; readonly value: readonly unknown[] }
  | { readonly kind: "opaque"; readonly tag: string };

/** A decoded type. */
export type PirType =
  | {
    /** `0.t_dtensor`: a dense tensor. */
    readonly kind: "dense";
    /** Its element type's tag (`0.t_f32`). */
    readonly element: string;
    /** Its dims, -1 where dynamic; [] for 0-D. */
    readonly dims: readonly number[];
  }
  | { readonly kind: "vec"; readonly types: readonly PirType[] }
  | { readonly kind: "opaque"; readonly tag: string };

// The scalar tags: the kind each decodes to and the JSON type of its data.
const SCALARS: Readonly<
  Record<
    string,
    { kind: PirAttr["kind"]; json: "boolean" | "number" | "string" }
  >
> = {
  "0.a_bool": { kind: "bool", json: "boolean" },
  "0.a_i32": { kind: "i32", json: "number" },
  "0.a_i64": { kind: "i64", json: "number" },
  "0.a_f32": { kind: "f32", json: "number" },
  "0.a_f64": { kind: "f64", json: "number" },
  "0.a_str": { kind: "str", json: "string" },
  "1.a_dtype": { kind: "dtype", json: "string" },
};

/**
 * Decodes an attribute (`A[k].AT`).
 *
 * @param json The attribute's JSON.
 * @param bad Called with what is wrong when a known tag's data is
 * malformed; it throws.
 * @returns The attribute.
 *
 * @example Usage
 * ```ts
 * import { attrOf } from "./_pir_attr_type.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const bad = (d: string): never => { throw new Error(d); };
 * assertEquals(attrOf({ "#": "0.a_i64", D: 3 }, bad), { kind: "i64", value: 3 });
 * assertEquals(attrOf({ "#": "9.a_new", D: 1 }, bad), { kind: "opaque", tag: "9.a_new" });
 * ```
 */
export function attrOf(json: unknown, bad: (detail: string) => never): PirAttr {
  const { tag, data } = tagged(json, bad);
  if (data === undefined && (tag === "0.a_f32" || tag === "0.a_f64")) {
    return {
      kind: tag === "0.a_f32" ? "f32" : "f64",
      value: special(json, bad),
    };
  }
  const scalar = SCALARS[tag];
  if (scalar !== undefined) {
    const json: string = typeof data;
    if (json !== scalar.json) {
      bad(`${tag} holds ${JSON.stringify(data)}`);
    }
    return { kind: scalar.kind, value: data } as PirAttr;
  }
  switch (tag) {
    case "0.a_array":
      if (!Array.isArray(data)) bad(`${tag} holds no list`);
      return { kind: "array", value: data.map((a) => attrOf(a, bad)) };
    case "1.a_intarray":
      if (!Array.isArray(data) || !data.every(Number.isInteger)) {
        bad(`${tag} holds ${JSON.stringify(data)}`);
      }
      return { kind: "intarray", value: data };
    case "1.a_place":
      if (!Array.isArray(data)) bad(`${tag} holds no list`);
      return { kind: "place", value: data };
  }
  return { kind: "opaque", tag };
}

/**
 * Decodes a type (`O[k].TT`).
 *
 * @param json The type's JSON.
 * @param bad Called with what is wrong when a known tag's data is
 * malformed; it throws.
 * @returns The type.
 *
 * @example Usage
 * ```ts
 * import { typeOf } from "./_pir_attr_type.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const bad = (d: string): never => { throw new Error(d); };
 * const t = { "#": "0.t_dtensor", D: [{ "#": "0.t_i64" }, [-1, 2], "NCHW", [], 0] };
 * assertEquals(typeOf(t, bad), { kind: "dense", element: "0.t_i64", dims: [-1, 2] });
 * assertEquals(typeOf({ "#": "2.t_stack" }, bad), { kind: "opaque", tag: "2.t_stack" });
 * ```
 */
export function typeOf(json: unknown, bad: (detail: string) => never): PirType {
  const { tag, data } = tagged(json, bad);
  switch (tag) {
    case "0.t_dtensor": {
      if (!Array.isArray(data) || data.length < 2) bad(`${tag} holds no list`);
      const [element, dims] = data as unknown[];
      if (!Array.isArray(dims) || !dims.every(Number.isInteger)) {
        bad(`${tag} has dims ${JSON.stringify(dims)}`);
      }
      return {
        kind: "dense",
        element: tagged(element, bad).tag,
        dims: dims as number[],
      };
    }
    case "0.t_vec":
      if (!Array.isArray(data)) bad(`${tag} holds no list`);
      return { kind: "vec", types: data.map((t) => typeOf(t, bad)) };
  }
  return { kind: "opaque", tag };
}

// A float written as a word under "VD".
function special(json: unknown, bad: (detail: string) => never): number {
  const word = (json as { VD?: unknown }).VD;
  const value = typeof word === "string"
    ? SPECIAL_FLOATS[word.toUpperCase()]
    : undefined;
  if (value === undefined) bad(`expected a number, got ${short(json)}`);
  return value;
}

const SPECIAL_FLOATS: Readonly<Record<string, number>> = {
  INF: Infinity,
  "-INF": -Infinity,
  NAN: NaN,
};

function tagged(
  json: unknown,
  bad: (detail: string) => never,
): { tag: string; data: unknown } {
  const tag = (json as { "#"?: unknown } | null)?.["#"];
  if (typeof tag !== "string") bad(`expected {"#": tag}, got ${short(json)}`);
  return { tag: tag as string, data: (json as { D?: unknown }).D };
}

function short(json: unknown): string {
  const text = JSON.stringify(json) ?? String(json);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
