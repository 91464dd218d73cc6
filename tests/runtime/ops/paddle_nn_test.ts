// fc and lookup_table_v2 with the attributes Paddle writes, against
// hand-worked products and rows.

import {
  assertEquals,
  assertRejects,
  assertStringIncludes,
  assertThrows,
} from "@std/assert";
import { create } from "@bufbuild/protobuf";
import { appendLayer, assignValue } from "../../../mod.ts";
import {
  AttrType,
  OpDescSchema,
  VarType_Type,
} from "../../../gen/rill/v1/framework_pb.ts";
import { ProgramError } from "../../../runtime/core/errors.ts";
import { PADDLE_NN_OPS } from "../../../runtime/ops/paddle_nn.ts";
import { checkRowSeparable } from "../../../runtime/transpile/row_separable.ts";
import { Panic } from "../../../scheduler/panic.ts";
import { op, tensor } from "../../_helpers/desc_init.ts";
import {
  assertValid,
  validationError,
} from "../../_helpers/invalid_program.ts";
import { testOpCases } from "../../_helpers/op_cases.ts";
import { runProgram } from "../../_helpers/run_program.ts";

// Input [[1, 2, 3], [4, 5, 6]] × W [[1, 0], [0, 1], [1, 1]] is
// [[4, 5], [10, 11]]; plus Bias [10, -20] it is [[14, -15], [20, -9]].
const input = (shape: number[]) => assignValue([1, 2, 3, 4, 5, 6], { shape });
const weights = () => assignValue([1, 0, 0, 1, 1, 1], { shape: [3, 2] });

// W's rows are [1, 2], [3, 4], [5, 6], [7, 8].
const table = () => assignValue([1, 2, 3, 4, 5, 6, 7, 8], { shape: [4, 2] });

testOpCases("PADDLE_NN_OPS", PADDLE_NN_OPS, {
  fc: [{
    what: "multiplies, adds Bias and applies relu as Paddle writes them",
    build: () => [
      appendLayer("fc", {
        Input: input([2, 3]),
        W: weights(),
        Bias: assignValue([10, -20]),
      }, {
        in_num_col_dims: 1,
        activation_type: "relu",
        padding_weights: false,
        use_mkldnn: false,
      }).Out[0],
      appendLayer("fc", { Input: input([2, 3]), W: weights() }).Out[0],
    ],
    tensors: [
      { dtype: "float32", shape: [2, 2], values: [[14, 0], [20, 0]] },
      { dtype: "float32", shape: [2, 2], values: [[4, 5], [10, 11]] },
    ],
  }, {
    what: "flattens Input at in_num_col_dims and takes a [1, N] Bias",
    build: () => [
      appendLayer("fc", {
        Input: input([2, 1, 3]),
        W: weights(),
        Bias: assignValue([10, -20], { shape: [1, 2] }),
      }, { in_num_col_dims: 2 }).Out[0],
      appendLayer("fc", { Input: input([2, 1, 3]), W: weights() }).Out[0],
    ],
    tensors: [
      {
        dtype: "float32",
        shape: [2, 1, 2],
        values: [[[14, -15]], [[20, -9]]],
      },
      { dtype: "float32", shape: [2, 2], values: [[4, 5], [10, 11]] },
    ],
  }],
  lookup_table_v2: [{
    what:
      "gives W's rows at int64 or int32 ids of any shape, zeros at padding_idx",
    build: () => {
      const ids = (dtype: "int64" | "int32") =>
        assignValue([3, 0, 1, 3], { shape: [2, 2], dtype });
      return [
        appendLayer("lookup_table_v2", { W: table(), Ids: ids("int64") }, {
          padding_idx: -1n,
          is_sparse: false,
          is_distributed: false,
          remote_prefetch: false,
        }).Out[0],
        appendLayer("lookup_table_v2", { W: table(), Ids: ids("int32") }, {
          padding_idx: 3n,
        }).Out[0],
      ];
    },
    tensors: [
      {
        dtype: "float32",
        shape: [2, 2, 2],
        values: [[[7, 8], [1, 2]], [[3, 4], [7, 8]]],
      },
      {
        dtype: "float32",
        shape: [2, 2, 2],
        values: [[[0, 0], [1, 2]], [[3, 4], [0, 0]]],
      },
    ],
  }, {
    what: "counts a negative padding_idx other than -1 from the vocab's end",
    build: () => [
      appendLayer("lookup_table_v2", {
        W: table(),
        Ids: assignValue([2, 1], { dtype: "int64" }),
      }, { padding_idx: -2n }).Out[0],
    ],
    tensors: [{ dtype: "float32", shape: [2, 2], values: [[0, 0], [3, 4]] }],
  }],
});

Deno.test("validateProgram() refuses an fc whose W rows do not match Input's flattened columns, naming the shapes", () => {
  const e = validationError(
    [tensor("x", [2, 3]), tensor("w", [4, 2]), tensor("o")],
    [op("fc", { Input: ["x"], W: ["w"] }, { Out: ["o"] })],
  );
  assertEquals(
    e.message,
    "p.pb: block 0 op 0 (fc): fc: Input [2, 3] flattened at in_num_col_dims 1 has 3 columns, but W [4, 2] has 4 rows",
  );
});

Deno.test("validateProgram() refuses fc with padding_weights true, naming the attribute", () => {
  const e = validationError(
    [tensor("x", [2, 3]), tensor("w", [3, 2]), tensor("o")],
    [
      op("fc", { Input: ["x"], W: ["w"] }, { Out: ["o"] }, [
        { name: "padding_weights", type: AttrType.BOOLEAN, b: true },
      ]),
    ],
  );
  assertEquals(e.where.attr, "padding_weights");
});

Deno.test("validateProgram() refuses fc with an activation_type other than relu", () => {
  const e = validationError(
    [tensor("x", [2, 3]), tensor("w", [3, 2]), tensor("o")],
    [
      op("fc", { Input: ["x"], W: ["w"] }, { Out: ["o"] }, [
        { name: "activation_type", type: AttrType.STRING, s: "tanh" },
      ]),
    ],
  );
  assertEquals(e.where.attr, "activation_type");
});

Deno.test("validateProgram() accepts lookup_table_v2 with the attributes Paddle writes", () => {
  assertValid(
    [
      tensor("w", [4, 2]),
      tensor("ids", [-1, 3], VarType_Type.INT64),
      tensor("o"),
    ],
    [
      op("lookup_table_v2", { W: ["w"], Ids: ["ids"] }, { Out: ["o"] }, [
        { name: "padding_idx", type: AttrType.LONG, l: -1n },
        { name: "is_sparse", type: AttrType.BOOLEAN, b: true },
        { name: "is_distributed", type: AttrType.BOOLEAN, b: false },
        { name: "remote_prefetch", type: AttrType.BOOLEAN, b: false },
      ]),
    ],
  );
});

Deno.test("lookup_table_v2 panics on an id out of range, naming the id and the vocab size", async () => {
  const panic: Panic = await assertRejects(
    () =>
      runProgram(() => {
        appendLayer("lookup_table_v2", {
          W: table(),
          Ids: assignValue([1, 4], { dtype: "int64" }),
        });
      }),
    Panic,
  );
  assertEquals(panic.where, "block 0 op 2 lookup_table_v2");
  assertStringIncludes(
    panic.message,
    "id 4 is out of range for a vocabulary of 4 rows",
  );
});

Deno.test("checkRowSeparable() splits fc on Input's rows, as it does mul", () => {
  const fc = (attrs: { in_num_col_dims: number }, bias = "b") =>
    create(OpDescSchema, {
      type: "fc",
      inputs: [
        { parameter: "Input", arguments: ["x"] },
        { parameter: "W", arguments: ["w"] },
        { parameter: "Bias", arguments: [bias] },
      ],
      outputs: [{ parameter: "Out", arguments: ["y"] }],
      attrs: [{
        name: "in_num_col_dims",
        type: AttrType.INT,
        i: attrs.in_num_col_dims,
      }],
    });
  const context = {
    carriesRows: (n: string) => n === "x" || n === "r",
    declaration: () => undefined,
  };
  checkRowSeparable(fc({ in_num_col_dims: 1 }), 0, context);
  const e = assertThrows(
    () => checkRowSeparable(fc({ in_num_col_dims: 2 }), 0, context),
    ProgramError,
  );
  assertEquals(e.where.variable, "x");
  const bias = assertThrows(
    () => checkRowSeparable(fc({ in_num_col_dims: 1 }, "r"), 0, context),
    ProgramError,
  );
  assertEquals(bias.where.variable, "r");
});
