/**
 * Small PIR programs written by hand, in the JSON layout Paddle 3 saves
 * (`../shared/paddle-models-pir/README.md`), for the PIR reader's tests:
 * a program is a list of ops in one top block.
 *
 * @module
 */

/** A JSON value of the file. */
export type Json = unknown;

/** A `0.t_dtensor` type of element `element` (`f32`, `i64`, …). */
export function dense(element: string, dims: number[]): Json {
  return {
    "#": "0.t_dtensor",
    D: [{ "#": `0.t_${element}` }, dims, "NCHW", [], 0],
  };
}

/** An attribute `{N, AT}` of tag `tag` holding `data`. */
export function attr(name: string, tag: string, data: Json): Json {
  return { N: name, AT: { "#": tag, D: data } };
}

/** Shorthands for the attribute tags. */
export const a = {
  bool: (name: string, v: boolean): Json => attr(name, "0.a_bool", v),
  i32: (name: string, v: number): Json => attr(name, "0.a_i32", v),
  i64: (name: string, v: number): Json => attr(name, "0.a_i64", v),
  f32: (name: string, v: number): Json => attr(name, "0.a_f32", v),
  f64: (name: string, v: number): Json => attr(name, "0.a_f64", v),
  str: (name: string, v: string): Json => attr(name, "0.a_str", v),
  dtype: (name: string, v: string): Json => attr(name, "1.a_dtype", v),
  intarray: (name: string, v: number[]): Json => attr(name, "1.a_intarray", v),
  place: (): Json => attr("place", "1.a_place", [0, 0, ""]),
  i32s: (name: string, v: number[]): Json =>
    attr(name, "0.a_array", v.map((x) => ({ "#": "0.a_i32", D: x }))),
  i64s: (name: string, v: number[]): Json =>
    attr(name, "0.a_array", v.map((x) => ({ "#": "0.a_i64", D: x }))),
};

/** An op: operand ids, results as [id, type], attributes, regions. */
export function op(
  name: string,
  operands: number[],
  results: [number, Json][],
  attrs: Json[] = [],
  regions?: Json[],
): Json {
  const o: Record<string, Json> = {
    "#": name,
    I: operands.map((id) => ({ "%": id })),
    O: results.map(([id, type]) => ({ "%": id, TT: type })),
    A: attrs,
    OA: [],
  };
  if (regions !== undefined) o.regions = regions;
  return o;
}

/** A parameter op `p` named `name`, its value `id` of `type`. */
export function param(name: string, id: number, type: Json): Json {
  return {
    "#": "p",
    A: [0, 1, 1, name],
    DA: [],
    O: { "%": id, TT: type },
    OA: [1, 0, 1],
    QA: [],
  };
}

/** A `1.data` op feeding `name`. */
export function data(
  name: string,
  id: number,
  type: Json,
  dims: number[],
  dtype = "float32",
): Json {
  return op("1.data", [], [[id, type]], [
    a.str("name", name),
    a.intarray("shape", dims),
    a.dtype("dtype", dtype),
    a.place(),
  ]);
}

/** A `1.fetch` op of value `of` at column `col`. */
export function fetch(of: number, id: number, type: Json, col = 0): Json {
  return op("1.fetch", [of], [[id, type]], [
    a.str("name", `fetch_name_${col}`),
    a.i32("col", col),
  ]);
}

/** A `1.full` constant. */
export function full(
  id: number,
  type: Json,
  dims: number[],
  value: number,
  dtype = "float32",
): Json {
  return op("1.full", [], [[id, type]], [
    a.intarray("shape", dims),
    a.f64("value", value),
    a.dtype("dtype", dtype),
    a.place(),
  ]);
}

/** A `1.full_int_array` constant. */
export function fullIntArray(id: number, values: number[]): Json {
  return op("1.full_int_array", [], [[id, dense("i64", [values.length])]], [
    a.i64s("value", values),
    a.dtype("dtype", "int64"),
    a.place(),
  ]);
}

/** A region of one block. */
export function region(
  n: number,
  ops: Json[],
  args: [number, Json][] = [],
): Json {
  return {
    "#": `region_${n}`,
    blocks: [{
      "#": `block_${n}`,
      args: args.map(([id, type]) => ({ "%": id, TT: type })),
      ops,
    }],
  };
}

/** Options of `pirText`. */
export interface PirTextOptions {
  /** `base_code.magic`. @default {"pir"} */
  magic?: string;
  /** `base_code.version`. @default {1} */
  version?: number;
}

/** The JSON text of a program whose top block holds `ops`. */
export function pirText(ops: Json[], options: PirTextOptions = {}): string {
  return JSON.stringify({
    base_code: {
      magic: options.magic ?? "pir",
      trainable: true,
      version: options.version ?? 1,
    },
    program: { regions: [region(0, ops)] },
  });
}

/**
 * A PIR model directory's program: `fetch_name_0 = x + w + b`, with
 * parameters `w` and `b` (float32 [2]) and feed `x` (float32 [-1, 2]).
 */
export function pirAffineText(): string {
  const v = dense("f32", [2]);
  const x = dense("f32", [-1, 2]);
  return pirText([
    param("w", 1, v),
    param("b", 2, v),
    data("x", 3, x, [-1, 2]),
    op("1.add", [3, 1], [[4, x]]),
    op("1.add", [4, 2], [[5, x]]),
    fetch(5, 6, x),
  ]);
}
