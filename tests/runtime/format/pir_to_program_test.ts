// pirToProgram(): hand-written PIR programs converted and run on Rill's
// executor (constants folded or kept, combine lists, if, while, fetches),
// and the one error that lists every op, attribute, operand and type the
// conversion does not know.

import { assertEquals, assertInstanceOf, assertThrows } from "@std/assert";
import {
  AttrType,
  decodePirProgram,
  decodeProgram,
  Executor,
  pirToProgram,
  PirUnsupportedError,
  Program,
  type ProgramDesc,
  ProgramError,
  Tensor,
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
import { tensorOf } from "../../_helpers/run_program.ts";

function convert(ops: Json[], version = 1): ProgramDesc {
  const desc = pirToProgram(decodePirProgram(pirText(ops, { version })));
  validateProgram(desc);
  return desc;
}

async function run(
  desc: ProgramDesc,
  feeds: Record<string, Tensor>,
  fetch = "fetch_name_0",
): Promise<Tensor> {
  const { fetched } = await new Executor().run(new Program(desc), {
    feeds,
    fetch: [fetch],
  });
  return tensorOf(fetched[fetch]);
}

function opTypes(desc: ProgramDesc, block = 0): string[] {
  return desc.blocks[block].ops.map((o) => o.type);
}

const F4 = dense("f32", [2, 4]);
const X = Tensor.fromArray([[1, -2, 3, -4], [5, -6, 7, -8]], "float32");

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

// --- constants ---

Deno.test("pirToProgram() folds a full_int_array into reshape's shape and keeps no op for it", async () => {
  const desc = convert([
    data("x", 1, F4, [2, 4]),
    fullIntArray(2, [4, 2]),
    op("1.reshape", [1, 2], [[3, dense("f32", [4, 2])]]),
    fetch(3, 4, dense("f32", [4, 2])),
  ]);
  assertEquals(opTypes(desc), ["feed", "reshape2", "fetch"]);
  assertEquals((await run(desc, { x: X })).shape, [4, 2]);
});

Deno.test("pirToProgram() keeps a constant some operand reads as a tensor", async () => {
  const desc = convert([
    data("x", 1, F4, [2, 4]),
    full(2, dense("f32", [1]), [1], 10),
    op("1.add", [1, 2], [[3, F4]]),
    fetch(3, 4, F4),
  ]);
  assertEquals(opTypes(desc), [
    "feed",
    "fill_constant",
    "elementwise_add",
    "fetch",
  ]);
  assertEquals((await run(desc, { x: X })).toNested(), [
    [11, 8, 13, 6],
    [15, 4, 17, 2],
  ]);
});

Deno.test("pirToProgram() keeps a full's value exact where a float32 would round it", async () => {
  const i = dense("i64", [1]);
  const d = dense("f64", [1]);
  const desc = convert([
    data("x", 1, i, [1], "int64"),
    full(2, i, [1], 2 ** 40 + 1, "int64"),
    op("1.add", [1, 2], [[3, i]]),
    full(4, d, [1], 0.1, "float64"),
    fetch(3, 5, i, 0),
    fetch(4, 6, d, 1),
  ]);
  const x = Tensor.fromArray([1n], "int64");
  assertEquals((await run(desc, { x })).item(0), 2n ** 40n + 2n);
  assertEquals((await run(desc, { x }, "fetch_name_1")).item(0), 0.1);
});

Deno.test("pirToProgram() folds scale's full factor and pool2d's kernel size, int64 strides of version 2 included", async () => {
  const img = dense("f32", [1, 1, 2, 4]);
  const desc = convert([
    data("x", 1, img, [1, 1, 2, 4]),
    full(2, dense("f32", [1]), [1], 0.5),
    op("1.scale", [1, 2], [[3, img]], [
      a.f32("bias", 1),
      a.bool("bias_after_scale", true),
    ]),
    fullIntArray(4, [2, 2]),
    op("1.pool2d", [3, 4], [[5, dense("f32", [1, 1, 1, 2])]], [
      a.i64s("strides", [2, 2]),
      a.i64s("paddings", [0, 0]),
      a.bool("ceil_mode", false),
      a.bool("exclusive", true),
      a.str("data_format", "NCHW"),
      a.str("pooling_type", "max"),
      a.bool("global_pooling", false),
      a.bool("adaptive", false),
      a.str("padding_algorithm", "EXPLICIT"),
      a.str("struct_name", "/Net/Pool/"),
    ]),
    fetch(5, 6, dense("f32", [1, 1, 1, 2])),
  ], 2);
  assertEquals(opTypes(desc), ["feed", "scale", "pool2d", "fetch"]);
  const x = Tensor.fromArray([1, 2, 3, 4, 5, 6, 7, 8], "float32", [1, 1, 2, 4]);
  // max of 0.5·x + 1 over 2×2 windows.
  assertEquals((await run(desc, { x })).toNested(), [[[[4, 5]]]]);
});

Deno.test("pirToProgram() gives concat each member of a combine and its axis from a full", async () => {
  const desc = convert([
    data("x", 1, F4, [2, 4]),
    op("0.combine", [1, 1], [[2, { "#": "0.t_vec", D: [F4, F4] }]]),
    full(3, dense("i32", [1]), [1], 1, "int32"),
    op("1.concat", [2, 3], [[4, dense("f32", [2, 8])]]),
    fetch(4, 5, dense("f32", [2, 8])),
  ]);
  assertEquals(desc.blocks[0].ops[1].inputs[0].arguments, ["x", "x"]);
  assertEquals((await run(desc, { x: X })).shape, [2, 8]);
});

Deno.test("pirToProgram() reduces over a constant axis list, an empty one over every dim", async () => {
  const desc = convert([
    data("x", 1, F4, [2, 4]),
    fullIntArray(2, [1]),
    op("1.sum", [1, 2], [[3, dense("f32", [2, 1])]], [
      a.dtype("dtype", "Undefined(ALL_DTYPE)"),
      a.bool("keepdim", true),
    ]),
    fullIntArray(4, []),
    op("1.max", [1, 4], [[5, dense("f32", [])]], [a.bool("keepdim", false)]),
    fetch(3, 6, dense("f32", [2, 1]), 0),
    fetch(5, 7, dense("f32", []), 1),
  ]);
  assertEquals(opTypes(desc).slice(1, 4), [
    "reduce_sum",
    "reduce_max",
    "reshape2",
  ]);
  assertEquals((await run(desc, { x: X })).toNested(), [[-2], [-2]]);
  assertEquals((await run(desc, { x: X }, "fetch_name_1")).toNested(), 7);
});

Deno.test("pirToProgram() gives the product of two vectors the 0-D shape Paddle 3 declares", async () => {
  const v = dense("f32", [3]);
  const desc = convert([
    data("x", 1, v, [3]),
    op("1.matmul", [1, 1], [[2, dense("f32", [])]], [
      a.bool("transpose_x", false),
      a.bool("transpose_y", false),
    ]),
    fetch(2, 3, dense("f32", [])),
  ]);
  const x = Tensor.fromArray([1, 2, 3], "float32");
  const y = await run(desc, { x });
  assertEquals([y.shape, y.item(0)], [[], 14]);
});

Deno.test("pirToProgram() refuses a sum to another dtype, naming the attribute and its value", () => {
  const text = pirText([
    data("x", 1, F4, [2, 4]),
    fullIntArray(2, [1]),
    op("1.sum", [1, 2], [[3, dense("f64", [2])]], [
      a.dtype("dtype", "float64"),
      a.bool("keepdim", false),
    ]),
  ]);
  const e = assertThrows(() => pirToProgram(decodePirProgram(text)));
  assertInstanceOf(e, PirUnsupportedError);
  assertEquals(e.gaps, [
    { kind: "attribute", name: '1.sum.dtype ("float64")', count: 1 },
  ]);
});

Deno.test("pirToProgram() gives split's list result one variable per member, which 0.split names", async () => {
  const half = dense("f32", [2, 2]);
  const desc = convert([
    data("x", 1, F4, [2, 4]),
    fullIntArray(2, [2, -1]),
    full(3, dense("i32", [1]), [1], 1, "int32"),
    op("1.split", [1, 2, 3], [[4, { "#": "0.t_vec", D: [half, half] }]]),
    op("0.split", [4], [[5, half], [6, half]]),
    op("1.subtract", [6, 5], [[7, half]]),
    fetch(7, 8, half),
  ]);
  assertEquals(desc.blocks[0].ops[1].outputs[0].arguments, ["%4.0", "%4.1"]);
  assertEquals((await run(desc, { x: X })).toNested(), [[2, -2], [2, -2]]);
});

// --- control flow ---

function ifProgram(): ProgramDesc {
  const i = dense("i64", []);
  const b = dense("bool", []);
  return convert([
    data("n", 1, i, [], "int64"),
    full(2, i, [], 0, "int64"),
    op("1.greater_than", [1, 2], [[3, b]]),
    op("1.if", [3], [[6, i]], [], [
      region(1, [op("1.relu", [1], [[4, i]]), op("2.yield", [4], [])]),
      region(2, [
        full(5, dense("f32", [1]), [1], -2),
        op("1.scale", [1, 5], [[7, i]], [
          a.f32("bias", 0),
          a.bool("bias_after_scale", true),
        ]),
        op("2.yield", [7], []),
      ]),
    ]),
    fetch(6, 8, i),
  ]);
}

Deno.test("pirToProgram() turns if into two conditional_blocks on cond and its negation", async () => {
  const desc = ifProgram();
  assertEquals(opTypes(desc), [
    "feed",
    "fill_constant",
    "greater_than",
    "logical_not",
    "conditional_block",
    "conditional_block",
    "fetch",
  ]);
  assertEquals(opTypes(desc, 1), ["relu", "assign"]);
  assertEquals(opTypes(desc, 2), ["scale", "assign"]);
  const n = (v: bigint) => ({ n: Tensor.fromArray([v], "int64", []) });
  assertEquals((await run(desc, n(3n))).item(0), 3n);
  assertEquals((await run(desc, n(-3n))).item(0), 6n);
});

Deno.test("pirToProgram() turns while into the while op, its block arguments into loop variables", async () => {
  const i = dense("i64", []);
  const b = dense("bool", []);
  const desc = convert([
    data("n", 1, i, [], "int64"),
    full(2, i, [], 1, "int64"),
    op("1.less_than", [2, 1], [[3, b]]),
    op("1.while", [3, 2], [[9, i]], [], [
      region(1, [
        full(4, i, [], 2, "int64"),
        op("1.multiply", [-1, 4], [[5, i]]),
        op("1.less_than", [5, 1], [[6, b]]),
        op("2.yield", [6, 5], []),
      ], [[-1, i]]),
    ]),
    fetch(9, 10, i),
  ]);
  assertEquals(opTypes(desc).includes("while"), true);
  // The first power of two not below n.
  const n = (v: bigint) => ({ n: Tensor.fromArray([v], "int64", []) });
  assertEquals((await run(desc, n(100n))).item(0), 128n);
  assertEquals((await run(desc, n(1n))).item(0), 1n);
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

Deno.test("pirToProgram() writes each attribute tag as the attribute type Rill reads", () => {
  const desc = convert([
    data("x", 1, dense("f32", [1, 1, 3, 3]), [1, 1, 3, 3]),
    param("w", 2, dense("f32", [1, 1, 1, 1])),
    param("s", 20, dense("f32", [1])),
    op("1.conv2d", [1, 2], [[3, dense("f32", [1, 1, 3, 3])]], [
      a.i32s("strides", [1, 1]),
      a.i64s("paddings", [0, 0]),
      a.str("padding_algorithm", "EXPLICIT"),
      a.i32("groups", 1),
      a.i32s("dilations", [1, 1]),
      a.str("data_format", "NCHW"),
    ]),
    op("1.cast", [3], [[4, dense("f64", [1, 1, 3, 3])]], [
      a.dtype("dtype", "float64"),
    ]),
    op("1.batch_norm_", [1, 20, 20, 20, 20], [
      [5, dense("f32", [1, 1, 3, 3])],
      [6, dense("f32", [1])],
      [7, dense("f32", [1])],
      [8, dense("f32", [1])],
      [9, dense("f32", [1])],
      [10, dense("ui8", [-1])],
    ], [
      a.bool("is_test", true),
      a.f32("momentum", 0.8999999761581421),
      a.f64("epsilon", 1e-5),
      a.str("data_format", "NCHW"),
      a.bool("use_global_stats", true),
      a.bool("trainable_statistics", false),
    ]),
    fullIntArray(11, [0]),
    fullIntArray(12, [1]),
    op("1.slice", [4, 11, 12], [[13, dense("f64", [1, 1, 3, 3])]], [
      a.i64s("axes", [0]),
      a.i64s("infer_flags", [1]),
      attr_("decrease_axis", "0.a_array", []),
    ]),
  ]);
  const types = (k: number) =>
    Object.fromEntries(
      desc.blocks[0].ops[k].attrs.map((x) => [x.name, AttrType[x.type]]),
    );
  assertEquals(types(1), {
    strides: "INTS",
    paddings: "LONGS",
    padding_algorithm: "STRING",
    groups: "INT",
    dilations: "INTS",
    data_format: "STRING",
  });
  assertEquals(desc.blocks[0].ops[2].attrs[0].i, 6); // FP64
  assertEquals(types(3), {
    is_test: "BOOLEAN",
    momentum: "FLOAT",
    epsilon: "FLOAT64",
    data_layout: "STRING",
    use_global_stats: "BOOLEAN",
    trainable_statistics: "BOOLEAN",
  });
  assertEquals(types(4), {
    starts: "INTS",
    ends: "INTS",
    axes: "LONGS",
    infer_flags: "LONGS",
    decrease_axis: "INTS",
  });
});

function attr_(name: string, tag: string, data: Json): Json {
  return { N: name, AT: { "#": tag, D: data } };
}

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
