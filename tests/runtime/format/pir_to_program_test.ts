// pirToProgram(): hand-written PIR programs converted: names of feeds,
// fetches and parameters, element types, and the one error that lists
// every op, attribute, operand and type the conversion does not know
// (never another error, whatever the file holds). Mapped ops:
// pir_mapped_op_test.ts; control flow: pir_control_flow_test.ts.

import { assertEquals, assertInstanceOf, assertThrows } from "@std/assert";
import {
  decodePirProgram,
  decodeProgram,
  pirToProgram,
  PirUnsupportedError,
  ProgramError,
  validateProgram,
} from "../../../mod.ts";
import {
  a,
  data,
  dense,
  fetch,
  full,
  fullIntArray,
  type Json,
  op,
  param,
  pirText,
  region,
} from "../../_helpers/pir_json.ts";
import {
  convertPir as convert,
  F4,
  opTypes,
  runPir as run,
  X,
} from "../../_helpers/pir_run.ts";

// --- values, feeds, fetches, parameters ---

Deno.test("pirToProgram() names feeds, fetches and parameters, and declares parameters persistable", () => {
  const desc = convert([
    param("fc.w_0", 1, dense("f32", [4, 3])),
    data("x", 2, F4, [-1, 4]),
    op("1.matmul", [2, 1], [[3, dense("f32", [-1, 3])]], [
      a.bool("transpose_x", false),
      a.bool("transpose_y", false),
    ]),
    fetch(3, 4, dense("f32", [-1, 3])),
  ]);
  assertEquals(opTypes(desc), ["feed", "matmul_v2", "fetch"]);
  const w = desc.blocks[0].vars.find((v) => v.name === "fc.w_0")!;
  assertEquals([w.persistable, w.isParameter], [true, true]);
  const x = desc.blocks[0].vars.find((v) => v.name === "x")!;
  assertEquals(x.needCheckFeed, true);
  assertEquals(desc.blocks[0].ops[1].outputs[0].arguments, ["fetch_name_0"]);
});

Deno.test("pirToProgram() fetches a feed through an assign", async () => {
  const desc = convert([data("x", 1, F4, [2, 4]), fetch(1, 2, F4)]);
  assertEquals(opTypes(desc), ["feed", "assign", "fetch"]);
  assertEquals((await run(desc, { x: X })).toNested(), X.toNested());
});

Deno.test("pirToProgram() declares each element type tag as its VarType", () => {
  const tags = ["f32", "f64", "i32", "i64", "bool", "ui8", "f16", "i8"];
  const names = [
    "float32",
    "float64",
    "int32",
    "int64",
    "bool",
    "uint8",
    "float16",
    "int8",
  ];
  const desc = convert(
    tags.map((t, i) => data(`x${i}`, i + 1, dense(t, [2]), [2], names[i])),
  );
  const codes = tags.map((_, i) =>
    desc.blocks[0].vars.find((v) => v.name === `x${i}`)?.type?.lodTensor
      ?.tensor?.dataType
  );
  // FP32 5, FP64 6, INT32 2, INT64 3, BOOL 0, UINT8 20, FP16 4, INT8 21.
  assertEquals(codes, [5, 6, 2, 3, 0, 20, 4, 21]);
});

// --- what it cannot convert ---

Deno.test("pirToProgram() lists every unknown op, attribute, operand and type with its count", () => {
  const t = dense("f32", [2]);
  const text = pirText([
    data("x", 1, t, [2]),
    op("1.matmul_grad", [1, 1], [[2, t]]),
    op("1.relu", [1], [[3, dense("c64", [2])]]),
    op("1.matmul_grad", [1, 1], [[4, t]]),
    op("1.softmax", [1], [[5, t]], [
      a.i32("axis", -1),
      a.bool("use_cudnn", true),
    ]),
    op("1.relu", [1], [[6, t]]),
    fullIntArray(7, [1, 1]),
    op("1.add", [6, 7], [[8, t]]),
    op("1.pool2d", [1, 8], [[9, t]], [a.str("pooling_type", "avg")]),
    op("1.softmax", [1], [[10, t]], [{
      N: "axis",
      AT: { "#": "0.a_new", D: 1 },
    }]),
  ]);
  const e = assertThrows(
    () => pirToProgram(decodePirProgram(text), { file: "m.json" }),
  );
  assertInstanceOf(e, PirUnsupportedError);
  assertEquals(e.gaps, [
    { kind: "op", name: "1.matmul_grad", count: 2 },
    { kind: "attribute", name: "1.softmax.use_cudnn", count: 1 },
    { kind: "attribute", name: "1.softmax.axis (0.a_new)", count: 1 },
    { kind: "operand", name: "1.pool2d.ksize", count: 1 },
    { kind: "type", name: "0.t_c64", count: 1 },
  ]);
  assertEquals(
    e.message,
    "m.json: cannot convert the PIR program: ops: 1.matmul_grad ×2; " +
      "attributes: 1.softmax.use_cudnn ×1, 1.softmax.axis (0.a_new) ×1; " +
      "computed operands: 1.pool2d.ksize ×1; types: 0.t_c64 ×1",
  );
});

Deno.test("pirToProgram() lists structural ops of the wrong shape instead of failing on them", () => {
  const t = dense("f32", [2]);
  const text = pirText([
    data("x", 1, t, [2]),
    op("1.fetch", [], [[2, t]], [a.str("name", "y"), a.i32("col", 0)]),
    op("1.full", [], []),
    op("1.data", [1], [[3, t]]),
    op("1.if", [0], []),
    op("2.yield", [1], []),
  ]);
  const e = assertThrows(() => pirToProgram(decodePirProgram(text)));
  assertInstanceOf(e, PirUnsupportedError);
  assertEquals((e as PirUnsupportedError).gaps.map((g) => g.name), [
    "1.fetch with 0 operands and 1 results",
    "1.full with 0 operands and 0 results",
    "1.data with 1 operands and 1 results",
    "1.if with 1 operands and 0 results",
    "2.yield",
  ]);
});

// --- malformed files ---

// Every node of `json` replaced in turn by each of `stand_ins`.
function* mutations(json: Json): Generator<Json> {
  const standIns: Json[] = [null, 0, -1, "x", [], {}, [{}]];
  function* at(node: Json, replace: (v: Json) => Json): Generator<Json> {
    for (const s of standIns) yield replace(s);
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        yield* at(node[i], (v) => replace(node.map((x, j) => j === i ? v : x)));
      }
    } else if (node !== null && typeof node === "object") {
      for (const key of Object.keys(node)) {
        yield* at(
          (node as Record<string, Json>)[key],
          (v) => replace({ ...(node as Record<string, Json>), [key]: v }),
        );
      }
    }
  }
  yield* at(json, (v) => v);
}

Deno.test("decodeProgram() answers every malformed PIR program with a ProgramError, never another error", () => {
  const t = dense("f32", [2]);
  const base = JSON.parse(pirText([
    param("w", 1, t),
    data("x", 2, t, [2]),
    op("1.add", [2, 1], [[3, t]], [a.str("struct_name", "/add/")]),
    full(4, dense("bool", []), [], 1, "bool"),
    op("1.if", [4], [[5, t]], [], [
      region(1, [op("2.yield", [3], [])]),
      region(2, [op("2.yield", [2], [])]),
    ]),
    fetch(5, 6, t),
  ]));
  validateProgram(decodeProgram(
    new TextEncoder().encode(JSON.stringify(base)),
    "m.json",
  ));
  let cases = 0;
  for (const m of mutations(base)) {
    cases++;
    try {
      decodeProgram(new TextEncoder().encode(JSON.stringify(m)), "m.json");
    } catch (e) {
      if (!(e instanceof ProgramError)) {
        throw new Error(`${JSON.stringify(m).slice(0, 300)}: ${e}`);
      }
      assertEquals(e.message.includes("\n"), false);
    }
  }
  assertEquals(cases > 500, true);
});
