// decodePirProgram(): every attribute and type tag the real PIR files use,
// both versions, block arguments, and each kind of bad input named by
// file, block, op and value.

import { assertEquals, assertInstanceOf, assertThrows } from "@std/assert";
import {
  decodePirProgram,
  type PirAttr,
  type PirProgram,
  ProgramError,
} from "../../../mod.ts";
import {
  a,
  attr,
  data,
  dense,
  fetch,
  op,
  param,
  pirText,
  region,
} from "../../_helpers/pir_json.ts";

function attrsOf(program: PirProgram): Record<string, PirAttr> {
  return Object.fromEntries(
    program.top.ops[0].attrs.map((x) => [x.name, x.value]),
  );
}

function refused(text: string, file = "m.json"): ProgramError {
  const e = assertThrows(() => decodePirProgram(text, file));
  assertInstanceOf(e, ProgramError);
  assertEquals(e.message.includes("\n"), false);
  return e;
}

// --- attributes ---

Deno.test("decodePirProgram() decodes each attribute tag the files use", () => {
  const program = decodePirProgram(pirText([
    op("1.x", [], [], [
      a.bool("b", true),
      a.i32("i", -3),
      a.i64("l", 1 << 30),
      a.f32("f", 0.8999999761581421),
      a.f64("d", 1e-5),
      a.str("s", "NCHW"),
      a.i32s("ints", [1, 2]),
      attr("empty", "0.a_array", []),
      a.intarray("shape", [-1, 3]),
      a.dtype("dtype", "int64"),
      a.place(),
    ]),
  ]));
  assertEquals(attrsOf(program), {
    b: { kind: "bool", value: true },
    i: { kind: "i32", value: -3 },
    l: { kind: "i64", value: 1 << 30 },
    f: { kind: "f32", value: 0.8999999761581421 },
    d: { kind: "f64", value: 1e-5 },
    s: { kind: "str", value: "NCHW" },
    ints: {
      kind: "array",
      value: [{ kind: "i32", value: 1 }, { kind: "i32", value: 2 }],
    },
    empty: { kind: "array", value: [] },
    shape: { kind: "intarray", value: [-1, 3] },
    dtype: { kind: "dtype", value: "int64" },
    place: { kind: "place", value: [0, 0, ""] },
  });
});

Deno.test("decodePirProgram() reads floats written as words under VD", () => {
  const word = (w: string) => ({ N: w, AT: { "#": "0.a_f64", VD: w } });
  const program = decodePirProgram(pirText([
    op("1.x", [], [], [word("INF"), word("-INF"), word("NAN")]),
  ]));
  const values = program.top.ops[0].attrs.map((x) =>
    (x.value as { value: number }).value
  );
  assertEquals(values, [Infinity, -Infinity, NaN]);
});

Deno.test("decodePirProgram() keeps an unknown attribute tag as opaque", () => {
  const program = decodePirProgram(pirText([
    op("1.x", [], [], [attr("q", "9.a_future", { any: 1 })]),
  ]));
  assertEquals(attrsOf(program).q, { kind: "opaque", tag: "9.a_future" });
});

Deno.test("decodePirProgram() refuses a known attribute tag holding the wrong data", () => {
  const e = refused(pirText([op("1.x", [], [], [a.i32("n", "3" as never)])]));
  assertEquals(e.where, { file: "m.json", block: 0, op: 0, opType: "1.x" });
  assertEquals(e.message, 'm.json: block 0 op 0 (1.x): 0.a_i32 holds "3"');
});

// --- types ---

Deno.test("decodePirProgram() decodes each type tag the files use", () => {
  const elements = ["f32", "f64", "i32", "i64", "bool", "ui8"];
  const program = decodePirProgram(pirText([
    op("1.x", [], [
      ...elements.map((e, i): [number, unknown] => [i + 1, dense(e, [-1, i])]),
      [10, dense("f32", [])],
      [11, { "#": "0.t_vec", D: [dense("f32", [2]), dense("i64", [])] }],
      [12, { "#": "2.t_stack" }],
      [13, { "#": "2.t_inlet" }],
      [14, { "#": "2.t_outlet" }],
    ]),
  ]));
  const types = program.top.ops[0].results.map((v) => v.type);
  assertEquals(
    types.slice(0, 6),
    elements.map((e, i) => ({
      kind: "dense",
      element: `0.t_${e}`,
      dims: [-1, i],
    })),
  );
  assertEquals(types.slice(6), [
    { kind: "dense", element: "0.t_f32", dims: [] },
    {
      kind: "vec",
      types: [
        { kind: "dense", element: "0.t_f32", dims: [2] },
        { kind: "dense", element: "0.t_i64", dims: [] },
      ],
    },
    { kind: "opaque", tag: "2.t_stack" },
    { kind: "opaque", tag: "2.t_inlet" },
    { kind: "opaque", tag: "2.t_outlet" },
  ]);
});

// --- structure ---

Deno.test("decodePirProgram() reads parameter ops, feeds, fetches and nested regions", () => {
  const t = dense("f32", [2]);
  const program = decodePirProgram(pirText([
    param("w_0", 1, t),
    data("x", 2, t, [2]),
    op("1.if", [2], [[4, t]], [], [
      region(1, [op("2.yield", [1], [])]),
      region(2, [op("1.relu", [2], [[3, t]]), op("2.yield", [3], [])]),
    ]),
    fetch(4, 5, t),
  ]));
  const [p, , cond] = program.top.ops;
  assertEquals(p.parameter, { name: "w_0", trainable: true });
  assertEquals(p.results, [{
    id: 1,
    type: { kind: "dense", element: "0.t_f32", dims: [2] },
  }]);
  assertEquals(cond.regions.map((r) => r.blocks[0].index), [1, 2]);
  assertEquals(cond.regions[1].blocks[0].ops[1].operands, [3]);
});

Deno.test("decodePirProgram() reads block arguments, with their negative ids", () => {
  const t = dense("i64", []);
  const program = decodePirProgram(pirText([
    data("n", 1, t, [], "int64"),
    op("1.while", [1, 1], [[3, t]], [], [
      region(1, [op("1.relu", [-1], [[2, t]]), op("2.yield", [2, -1], [])], [[
        -1,
        t,
      ]]),
    ]),
  ]));
  const body = program.top.ops[1].regions[0].blocks[0];
  assertEquals(body.args.map((v) => v.id), [-1]);
  assertEquals(body.ops[0].operands, [-1]);
});

Deno.test("decodePirProgram() reads versions 1 and 2, and a null operand", () => {
  for (const version of [1, 2]) {
    const program = decodePirProgram(
      pirText([op("1.x", [0], [])], { version }),
    );
    assertEquals(program.version, version);
    assertEquals(program.top.ops[0].operands, [0]);
  }
});

// --- bad input ---

Deno.test("decodePirProgram() refuses truncated and invalid JSON", () => {
  const text = pirText([op("1.x", [], [])]);
  for (const bad of [text.slice(0, text.length / 2), "{pir}", ""]) {
    const e = refused(bad);
    assertEquals(e.where, { file: "m.json" });
    assertEquals(
      e.message.startsWith("m.json: not a PIR program: invalid JSON: "),
      true,
    );
  }
});

Deno.test("decodePirProgram() refuses a magic other than pir", () => {
  const e = refused(pirText([], { magic: "mlir" }));
  assertEquals(
    e.message,
    'm.json: not a PIR program: magic is "mlir", not "pir"',
  );
});

Deno.test("decodePirProgram() refuses an unknown version", () => {
  const e = refused(pirText([], { version: 3 }));
  assertEquals(e.message, "m.json: unknown PIR version 3 (Rill reads 1 and 2)");
});

Deno.test("decodePirProgram() refuses a value used before it is defined, naming the op and the value", () => {
  const t = dense("f32", [1]);
  const e = refused(pirText([
    op("1.full", [], [[1, t]]),
    op("1.relu", [7], [[2, t]]),
    op("1.relu", [2], [[7, t]]),
  ]));
  assertEquals(e.where, { file: "m.json", block: 0, op: 1, opType: "1.relu" });
  assertEquals(
    e.message,
    "m.json: block 0 op 1 (1.relu): value %7 is used before it is defined",
  );
});

Deno.test("decodePirProgram() refuses a value used outside the region that defines it", () => {
  const t = dense("bool", []);
  const e = refused(pirText([
    op("1.full", [], [[1, t]]),
    op("1.if", [1], [], [], [
      region(1, [op("1.full", [], [[2, t]]), op("2.yield", [], [])]),
      region(2, [op("2.yield", [2], [])]),
    ]),
  ]));
  assertEquals(e.where.block, 2);
  assertEquals(
    e.message.endsWith("value %2 is used outside the block that defines it"),
    true,
  );
});

Deno.test("decodePirProgram() refuses a value id defined twice", () => {
  const t = dense("f32", [1]);
  const e = refused(
    pirText([op("1.full", [], [[1, t]]), op("1.full", [], [[1, t]])]),
  );
  assertEquals(
    e.message,
    "m.json: block 0 op 1 (1.full): value %1 is defined twice",
  );
});

Deno.test("decodePirProgram() refuses a program whose parts are missing", () => {
  const e = refused(
    JSON.stringify({ base_code: { magic: "pir", version: 1 } }),
  );
  assertEquals(e.message, 'm.json: not a PIR program: "program" is missing');
  const noOps = JSON.stringify({
    base_code: { magic: "pir", version: 1 },
    program: { regions: [{ "#": "region_0", blocks: [{ "#": "block_0" }] }] },
  });
  assertEquals(
    refused(noOps).message,
    'm.json: block 0: not a PIR program: "ops" is missing',
  );
});
