// Mapped PIR ops converted and run: each attribute tag as the attribute
// type Rill reads, constants folded into attributes or kept as ops, lists
// (combine, split), reductions and the 0-D results of Paddle 3.

import { assertEquals, assertInstanceOf, assertThrows } from "@std/assert";
import {
  AttrType,
  decodePirProgram,
  pirToProgram,
  PirUnsupportedError,
  Tensor,
} from "../../../mod.ts";
import {
  a,
  attr,
  data,
  dense,
  fetch,
  full,
  fullIntArray,
  op,
  param,
  pirText,
} from "../../_helpers/pir_json.ts";
import {
  convertPir as convert,
  F4,
  opTypes,
  runPir as run,
  X,
} from "../../_helpers/pir_run.ts";

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
      attr("decrease_axis", "0.a_array", []),
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
