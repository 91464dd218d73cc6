// arg_max, top_k_v2 and one_hot_v2 with the attributes Paddle writes,
// against hand-worked positions.

import { assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import { appendLayer, assignValue } from "../../../mod.ts";
import { AttrType } from "../../../gen/rill/v1/framework_pb.ts";
import { INDEX_OPS } from "../../../runtime/ops/indices.ts";
import { Panic } from "../../../scheduler/panic.ts";
import { op, tensor } from "../../_helpers/desc_init.ts";
import { validationError } from "../../_helpers/invalid_program.ts";
import { testOpCases } from "../../_helpers/op_cases.ts";
import { runProgram } from "../../_helpers/run_program.ts";

const scores = () => assignValue([1, 5, 5, -2, 7, 0, 2, 7], { shape: [2, 4] });

testOpCases("INDEX_OPS", INDEX_OPS, {
  arg_max: [{
    what:
      "gives the first largest along axis, keepdims and flatten as Paddle writes them",
    build: () => {
      const x = scores();
      const paddle = (axis: number, keepdims: boolean, flatten: boolean) => ({
        axis,
        keepdims,
        flatten,
        dtype: 3,
      });
      return [
        appendLayer("arg_max", { X: x }, paddle(-1, false, false)).Out[0],
        appendLayer("arg_max", { X: x }, paddle(0, true, false)).Out[0],
        appendLayer("arg_max", { X: x }, paddle(0, false, true)).Out[0],
        appendLayer("arg_max", { X: x }, { axis: 1, dtype: 2 }).Out[0],
      ];
    },
    tensors: [
      { dtype: "int64", shape: [2], values: [1n, 0n] },
      { dtype: "int64", shape: [1, 4], values: [[1n, 0n, 0n, 1n]] },
      { dtype: "int64", shape: [1], values: [4n] },
      { dtype: "int32", shape: [2], values: [1, 0] },
    ],
  }],
  top_k_v2: [{
    what:
      "gives the k largest or smallest, sorted, ties by position; K overrides k",
    build: () => {
      const x = scores();
      const top = appendLayer("top_k_v2", { X: x }, {
        k: 2,
        axis: -1,
        largest: true,
        sorted: true,
      });
      const bottom = appendLayer("top_k_v2", {
        X: x,
        K: assignValue([1], { dtype: "int32" }),
      }, { k: 3, axis: 0, largest: false, sorted: true });
      return [top.Out[0], top.Indices[0], bottom.Out[0], bottom.Indices[0]];
    },
    tensors: [
      { dtype: "float32", shape: [2, 2], values: [[5, 5], [7, 7]] },
      { dtype: "int64", shape: [2, 2], values: [[1n, 2n], [0n, 3n]] },
      { dtype: "float32", shape: [1, 4], values: [[1, 0, 2, -2]] },
      { dtype: "int64", shape: [1, 4], values: [[0n, 1n, 1n, 0n]] },
    ],
  }],
  one_hot_v2: [{
    what: "appends a one-hot dim of depth, zeros out of range when allowed",
    build: () => {
      const labels = assignValue([2, 0, 5], { dtype: "int64", shape: [3, 1] });
      return [
        appendLayer("one_hot_v2", { X: labels }, {
          depth: 6,
          dtype: 5,
          allow_out_of_range: false,
        }).Out[0],
        appendLayer("one_hot_v2", {
          X: labels,
          depth_tensor: assignValue([3], { dtype: "int32" }),
        }, { depth: 6, dtype: 2, allow_out_of_range: true }).Out[0],
      ];
    },
    tensors: [
      {
        dtype: "float32",
        shape: [3, 1, 6],
        values: [[[0, 0, 1, 0, 0, 0]], [[1, 0, 0, 0, 0, 0]], [[
          0,
          0,
          0,
          0,
          0,
          1,
        ]]],
      },
      {
        dtype: "int32",
        shape: [3, 1, 3],
        values: [[[0, 0, 1]], [[1, 0, 0]], [[0, 0, 0]]],
      },
    ],
  }],
});

Deno.test("validateProgram() refuses a top_k_v2 whose k exceeds the dim, naming the op and shape", () => {
  const e = validationError([tensor("x", [2, 3]), tensor("o"), tensor("i")], [
    op("top_k_v2", { X: ["x"] }, { Out: ["o"], Indices: ["i"] }, [
      { name: "k", type: AttrType.INT, i: 4 },
    ]),
  ]);
  assertEquals(
    e.message,
    "p.pb: block 0 op 0 (top_k_v2): top_k_v2: k 4 is larger than dim 3 of X [2, 3]",
  );
});

Deno.test("validateProgram() refuses arg_max on an axis X lacks", () => {
  const e = validationError([tensor("x", [2, 3]), tensor("o")], [
    op("arg_max", { X: ["x"] }, { Out: ["o"] }, [
      { name: "axis", type: AttrType.LONG, l: 2n },
    ]),
  ]);
  assertEquals(
    e.message,
    "p.pb: block 0 op 0 (arg_max): arg_max: axis 2 is out of range for X [2, 3]",
  );
});

Deno.test("one_hot_v2 panics on a label out of range, naming the op", async () => {
  const panic: Panic = await assertRejects(
    () =>
      runProgram(() => {
        appendLayer("one_hot_v2", {
          X: assignValue([3], { dtype: "int64" }),
        }, { depth: 3 });
      }),
    Panic,
  );
  assertEquals(panic.where, "block 0 op 1 one_hot_v2");
  assertStringIncludes(panic.message, "position 3 is out of range for depth 3");
});
