// A program encoded WITHOUT the project's generated code: protobufjs, with a
// schema written here by reflection from docs/architecture.md §2's field numbers,
// encodes a hand-written program; Rill decodes and runs it and must print
// exactly what the same program built with the builder prints.

// The foreign library is imported here, not through deno.json, so that the
// project itself never depends on it.
// deno-lint-ignore no-import-prefix
import protobuf from "npm:protobufjs@7";
import { assert, assertEquals, assertNotEquals } from "@std/assert";
import {
  assignValue,
  decodeProgram,
  dumpProgram,
  elementwiseAdd,
  elementwiseMul,
  fillConstant,
  increment,
  lessThan,
  mul,
  print,
  whileLoop,
} from "../../../mod.ts";
import { buildProgram, runProgram } from "../../_helpers/run_program.ts";

// VarType.Type and AttrType numbers (docs/architecture.md §2).
const BOOL = 0, INT64 = 3, FP32 = 5, LOD_TENSOR = 7, STEP_SCOPES = 11;
const INT = 0, FLOAT = 1, STRING = 2, INTS = 3, FLOATS = 4, BLOCK = 8;
const LONGS = 11;

/**
 * The ProgramDesc schema by protobufjs reflection. `packed` picks the
 * encoding of repeated scalars: packed (proto3's default) or one tag per
 * element (proto2's).
 */
function programDescType(packed: boolean): protobuf.Type {
  const o = packed ? undefined : { packed: false };
  const repeated = (name: string, id: number, type: string) =>
    new protobuf.Field(name, id, type, "repeated", undefined, o);
  const field = (name: string, id: number, type: string) =>
    new protobuf.Field(name, id, type);
  const attr = new protobuf.Type("Attr")
    .add(field("name", 1, "string"))
    .add(field("type", 2, "int32"))
    .add(field("i", 3, "int32"))
    .add(field("f", 4, "float"))
    .add(field("s", 5, "string"))
    .add(repeated("ints", 6, "int32"))
    .add(repeated("floats", 7, "float"))
    .add(new protobuf.Field("strings", 8, "string", "repeated"))
    .add(field("b", 10, "bool"))
    .add(repeated("bools", 11, "bool"))
    .add(field("block_idx", 12, "int32"))
    .add(field("l", 13, "int64"))
    .add(repeated("blocks_idx", 14, "int32"))
    .add(repeated("longs", 15, "int64"));
  const opVar = new protobuf.Type("Var")
    .add(field("parameter", 1, "string"))
    .add(new protobuf.Field("arguments", 2, "string", "repeated"));
  const op = new protobuf.Type("OpDesc")
    .add(new protobuf.Field("inputs", 1, "Var", "repeated"))
    .add(new protobuf.Field("outputs", 2, "Var", "repeated"))
    .add(field("type", 3, "string"))
    .add(new protobuf.Field("attrs", 4, "Attr", "repeated"))
    .add(field("is_target", 5, "bool"));
  const tensorDesc = new protobuf.Type("TensorDesc")
    .add(field("data_type", 1, "int32"))
    .add(repeated("dims", 2, "int64"));
  const lodTensorDesc = new protobuf.Type("LoDTensorDesc")
    .add(field("tensor", 1, "TensorDesc"))
    .add(field("lod_level", 2, "int32"));
  const varType = new protobuf.Type("VarType")
    .add(field("type", 1, "int32"))
    .add(field("lod_tensor", 3, "LoDTensorDesc"));
  const varDesc = new protobuf.Type("VarDesc")
    .add(field("name", 1, "string"))
    .add(field("type", 2, "VarType"))
    .add(field("persistable", 3, "bool"));
  const block = new protobuf.Type("BlockDesc")
    .add(field("idx", 1, "int32"))
    .add(field("parent_idx", 2, "int32"))
    .add(new protobuf.Field("vars", 3, "VarDesc", "repeated"))
    .add(new protobuf.Field("ops", 4, "OpDesc", "repeated"))
    .add(field("forward_block_idx", 5, "int32"));
  const program = new protobuf.Type("ProgramDesc")
    .add(new protobuf.Field("blocks", 1, "BlockDesc", "repeated"));
  const ns = new protobuf.Namespace("foreign");
  for (
    const t of [
      attr,
      opVar,
      op,
      tensorDesc,
      lodTensorDesc,
      varType,
      varDesc,
      block,
      program,
    ]
  ) ns.add(t);
  new protobuf.Root().add(ns);
  program.resolveAll();
  return program;
}

type Plain = Record<string, unknown>;

function tensorVar(name: string, dataType: number, dims: number[]): Plain {
  return {
    name,
    type: {
      type: LOD_TENSOR,
      lod_tensor: { tensor: { data_type: dataType, dims } },
    },
  };
}

function slots(m: Record<string, string[]>): Plain[] {
  return Object.entries(m).map(([parameter, args]) => ({
    parameter,
    arguments: args,
  }));
}

function op(
  type: string,
  inputs: Record<string, string[]>,
  outputs: Record<string, string[]>,
  attrs: Plain[] = [],
): Plain {
  return { type, inputs: slots(inputs), outputs: slots(outputs), attrs };
}

const shape1 = { name: "shape", type: LONGS, longs: ["1"] };
const int64Type = { name: "dtype", type: INT, i: INT64 };

/**
 * The program, hand-written with every field explicit (zeros included):
 * a while loop that sums squares and counts an int64 past 2^53, Fluid's
 * `mul`, an empty tensor and a bool constant.
 */
const PROGRAM: Plain = {
  blocks: [
    {
      idx: 0,
      parent_idx: -1,
      forward_block_idx: -1,
      vars: [
        tensorVar("i", INT64, [1]),
        tensorVar("n", INT64, [1]),
        tensorVar("total", INT64, [1]),
        tensorVar("big", INT64, [1]),
        tensorVar("cond", BOOL, [1]),
        tensorVar("x", FP32, [2, 2]),
        tensorVar("w", FP32, [2, 2]),
        tensorVar("y", FP32, [2, 2]),
        tensorVar("e", FP32, [0]),
        tensorVar("flag", BOOL, [1]),
        { name: "steps", type: { type: STEP_SCOPES }, persistable: false },
      ],
      ops: [
        op("fill_constant", {}, { Out: ["i"] }, [
          shape1,
          int64Type,
          { name: "value", type: FLOAT, f: 0 },
        ]),
        op("fill_constant", {}, { Out: ["n"] }, [
          { name: "shape", type: INTS, ints: [1] },
          int64Type,
          { name: "value", type: FLOAT, f: 4 },
        ]),
        op("fill_constant", {}, { Out: ["total"] }, [shape1, int64Type]),
        op("fill_constant", {}, { Out: ["big"] }, [
          shape1,
          int64Type,
          { name: "str_value", type: STRING, s: "9007199254740993" },
        ]),
        op("less_than", { X: ["i"], Y: ["n"] }, { Out: ["cond"] }, [
          { name: "axis", type: INT, i: -1 },
        ]),
        op("while", {
          X: ["i", "n", "total", "big"],
          Condition: ["cond"],
        }, {
          Out: ["i", "total", "big", "cond"],
          StepScopes: ["steps"],
        }, [{ name: "sub_block", type: BLOCK, block_idx: 1 }]),
        op("print", { In: ["total"] }, {}, [
          { name: "message", type: STRING, s: "total" },
        ]),
        op("print", { In: ["big"] }, {}, [
          { name: "message", type: STRING, s: "big" },
        ]),
        op("assign_value", {}, { Out: ["x"] }, [
          { name: "shape", type: INTS, ints: [2, 2] },
          { name: "dtype", type: INT, i: FP32 },
          { name: "fp32_values", type: FLOATS, floats: [1, 2, 3, 4] },
        ]),
        op("assign_value", {}, { Out: ["w"] }, [
          { name: "shape", type: INTS, ints: [2, 2] },
          { name: "dtype", type: INT, i: FP32 },
          { name: "fp32_values", type: FLOATS, floats: [1, 3, 2, 4] },
        ]),
        op("mul", { X: ["x"], Y: ["w"] }, { Out: ["y"] }, [
          { name: "x_num_col_dims", type: INT, i: 1 },
        ]),
        op("print", { In: ["y"] }, {}, [
          { name: "message", type: STRING, s: "Y" },
        ]),
        op("fill_constant", {}, { Out: ["e"] }, [
          { name: "shape", type: LONGS, longs: ["0"] },
        ]),
        op("print", { In: ["e"] }, {}, [
          { name: "message", type: STRING, s: "e" },
        ]),
        op("fill_constant", {}, { Out: ["flag"] }, [
          shape1,
          { name: "dtype", type: INT, i: BOOL },
          { name: "value", type: FLOAT, f: 1 },
        ]),
        op("print", { In: ["flag"] }, {}, [
          { name: "message", type: STRING, s: "" },
        ]),
      ],
    },
    {
      idx: 1,
      parent_idx: 0,
      forward_block_idx: -1,
      vars: [tensorVar("sq", INT64, [1])],
      ops: [
        op("elementwise_mul", { X: ["i"], Y: ["i"] }, { Out: ["sq"] }),
        op("elementwise_add", { X: ["total"], Y: ["sq"] }, {
          Out: ["total"],
        }),
        op("increment", { X: ["i"] }, { Out: ["i"] }, [
          { name: "step", type: FLOAT, f: 1 },
        ]),
        op("increment", { X: ["big"] }, { Out: ["big"] }),
        op("less_than", { X: ["i"], Y: ["n"] }, { Out: ["cond"] }),
        op("print", { In: ["i"] }, {}, [
          { name: "message", type: STRING, s: "i" },
        ]),
      ],
    },
  ],
};

const EXPECTED = [
  "i 1",
  "i 2",
  "i 3",
  "i 4",
  "total 14",
  "big 9007199254740997",
  "Y [[5, 11], [11, 25]]",
  "e []",
  "true",
];

/** The same program with the builder. */
function builtProgram() {
  return buildProgram(() => {
    const int64 = (v: number | bigint) =>
      fillConstant({ shape: [1], dtype: "int64", value: v });
    const i = int64(0);
    const n = int64(4);
    const total = int64(0);
    const big = int64(9007199254740993n);
    const cond = lessThan(i, n);
    whileLoop(cond, () => {
      elementwiseAdd(total, elementwiseMul(i, i), { out: total });
      increment(i);
      increment(big);
      lessThan(i, n, { out: cond });
      print(i, { message: "i" });
    });
    print(total, { message: "total" });
    print(big, { message: "big" });
    const x = assignValue([1, 2, 3, 4], { shape: [2, 2] });
    const w = assignValue([1, 3, 2, 4], { shape: [2, 2] });
    print(mul(x, w), { message: "Y" });
    print(fillConstant({ shape: [0] }), { message: "e" });
    print(fillConstant({ shape: [1], dtype: "bool", value: true }));
  })[0];
}

/** Drops every zero, false, empty string and empty list, as proto3 does. */
function omitZeros(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(omitZeros);
  if (v === null || typeof v !== "object") return v;
  const out: Plain = {};
  for (const [k, x] of Object.entries(v)) {
    const zero = x === 0 || x === false || x === "" || x === "0" ||
      (Array.isArray(x) && x.length === 0);
    if (!zero) out[k] = omitZeros(x);
  }
  return out;
}

function encodeForeign(plain: unknown, packed: boolean): Uint8Array {
  const type = programDescType(packed);
  const message = type.fromObject(plain as Plain);
  assertEquals(type.verify(message), null);
  return type.encode(message).finish();
}

Deno.test("decodeProgram() runs a program protobufjs encoded (proto2 style, every field explicit) like the builder's", async () => {
  const bytes = encodeForeign(PROGRAM, false);
  const foreign = await runProgram(decodeProgram(bytes, "foreign.pb"));
  const built = await runProgram(builtProgram());
  assertEquals(foreign.lines, EXPECTED);
  assertEquals(built.lines, EXPECTED);
});

Deno.test("decodeProgram() runs a program protobufjs encoded proto3 style (packed, zeros omitted) like the builder's", async () => {
  const bytes = encodeForeign(omitZeros(PROGRAM), true);
  const explicit = encodeForeign(PROGRAM, false);
  assert(bytes.length < explicit.length);
  const desc = decodeProgram(bytes, "foreign.pb");
  // Absent fields read as their defaults: block 0's idx, a BOOL data
  // type, an INT attribute type and value.
  assertEquals(desc.blocks[0].idx, 0);
  assertEquals(desc.blocks[0].vars[4].type?.lodTensor?.tensor?.dataType, 0);
  const dtypeOfFlag = desc.blocks[0].ops[14].attrs[1];
  assertEquals([dtypeOfFlag.name, dtypeOfFlag.type, dtypeOfFlag.i], [
    "dtype",
    0,
    0,
  ]);
  assertEquals((await runProgram(desc)).lines, EXPECTED);
  assertEquals((await runProgram(builtProgram())).lines, EXPECTED);
});

Deno.test("Program.toBinary() bytes decode with protobufjs", async () => {
  const bytes = await Deno.readFile(
    new URL("../../../examples/mult.pb", import.meta.url),
  );
  const type = programDescType(false);
  const decoded = type.toObject(type.decode(bytes), {
    longs: String,
  }) as { blocks: { ops: { type: string }[] }[] };
  assertEquals(decoded.blocks[0].ops.map((o) => o.type), [
    "assign_value",
    "assign_value",
    "mul",
    "print",
  ]);
  // protobufjs re-encodes what it decoded to bytes Rill reads the same.
  const again = type.encode(type.decode(bytes)).finish();
  assertEquals(
    (await runProgram(decodeProgram(again, "again.pb"))).lines,
    ["Y [[5, 11], [11, 25]]"],
  );
  assertNotEquals(again.length, 0);
});

// Paddle 2.x's additions, by the field numbers of Paddle's framework.proto
// (paddle/fluid/framework/framework.proto; since 3.0 under paddle/phi/core/
// framework/), written here as a schema of their own: enums as int32.
const PADDLE2_SCHEMA = `
syntax = "proto2";
package foreign2;
message Complex { optional double r = 1; optional double i = 2; }
message Scalar {
  optional int32 type = 1; optional bool b = 2; optional int64 i = 3;
  optional double r = 4; optional Complex c = 5;
}
message Attr {
  optional string name = 1; optional int32 type = 2; optional int32 i = 3;
  optional float f = 4; optional string s = 5; repeated string strings = 8;
  optional bool b = 10; repeated int64 longs = 15;
  repeated double float64s = 16; optional string var_name = 17;
  repeated string vars_name = 18; optional double float64 = 19;
  optional Scalar scalar = 20; repeated Scalar scalars = 21;
}
message Var { optional string parameter = 1; repeated string arguments = 2; }
message OpDesc {
  repeated Var inputs = 1; repeated Var outputs = 2; optional string type = 3;
  repeated Attr attrs = 4; optional bool is_target = 5;
}
message TensorDesc { optional int32 data_type = 1; repeated int64 dims = 2; }
message LoDTensorDesc { optional TensorDesc tensor = 1; }
message VarType {
  optional int32 type = 1; optional LoDTensorDesc lod_tensor = 3;
  optional TensorDesc strings = 9;
}
message VarAttr {
  optional string name = 1; optional int32 type = 2; optional int32 i = 3;
  optional string s = 4; repeated int32 ints = 5;
}
message VarDesc {
  optional string name = 1; optional VarType type = 2;
  optional bool persistable = 3; optional bool need_check_feed = 4;
  optional bool is_parameter = 5; optional bool stop_gradient = 6;
  repeated VarAttr attrs = 7;
}
message BlockDesc {
  optional int32 idx = 1; optional int32 parent_idx = 2;
  repeated VarDesc vars = 3; repeated OpDesc ops = 4;
}
message Version { optional int64 version = 1; }
message OpVersion { optional int32 version = 1; }
message OpVersionPair { optional string op_name = 1; optional OpVersion op_version = 2; }
message OpVersionMap { repeated OpVersionPair pair = 1; }
message ProgramDesc {
  repeated BlockDesc blocks = 1; optional Version version = 4;
  optional OpVersionMap op_version_map = 5;
}
`;

// AttrType and Scalar.Type numbers of Paddle 2.x.
const FLOAT64 = 15, SCALAR = 16, BOOLEAN = 6;
const SCALAR_LONG = 2, SCALAR_FLOAT64 = 3;
// VarType.Type numbers of Paddle 2.x.
const STRINGS_KIND = 26, FP32_TYPE = 5;

const PADDLE2_PROGRAM: Plain = {
  version: { version: "2006000" },
  op_version_map: {
    pair: [{ op_name: "scale", op_version: { version: 1 } }],
  },
  blocks: [{
    idx: 0,
    parent_idx: -1,
    vars: [
      {
        ...tensorVar("x", FP32_TYPE, [2]),
        need_check_feed: true,
        stop_gradient: true,
      },
      {
        ...tensorVar("y", FP32_TYPE, [2]),
        is_parameter: true,
        attrs: [{ name: "n", type: INT, i: 4 }],
      },
      { name: "words", type: { type: STRINGS_KIND, strings: { dims: [-1] } } },
    ],
    ops: [
      op("fill_constant", {}, { Out: ["x"] }, [
        { name: "shape", type: LONGS, longs: ["2"] },
        { name: "value", type: FLOAT64, float64: 0.25 },
        { name: "op_callstack", type: 5, strings: ["a", "b"] },
      ]),
      op(
        "scale",
        { X: ["x"] },
        { Out: ["y"] },
        [
          {
            name: "scale",
            type: SCALAR,
            scalar: { type: SCALAR_LONG, i: "4" },
          },
          {
            name: "bias",
            type: SCALAR,
            scalar: { type: SCALAR_FLOAT64, r: -0.5 },
          },
          { name: "is_test", type: BOOLEAN, b: true },
        ],
      ),
      {
        ...op("print", { In: ["y"] }, {}, [
          { name: "message", type: STRING, s: "y" },
        ]),
        is_target: true,
      },
    ],
  }],
};

Deno.test("decodeProgram() reads Paddle 2.x's fields that protobufjs encoded with Paddle's numbers", async () => {
  const type = protobuf.parse(PADDLE2_SCHEMA, { keepCase: true }).root
    .lookupType(
      "foreign2.ProgramDesc",
    );
  const message = type.fromObject(PADDLE2_PROGRAM);
  assertEquals(type.verify(message), null);
  const desc = decodeProgram(type.encode(message).finish(), "paddle2.pb");
  assertEquals(desc.version?.version, 2006000n);
  assertEquals(desc.opVersionMap?.pair[0].opName, "scale");
  const [x, y, words] = desc.blocks[0].vars;
  assertEquals([x.needCheckFeed, x.stopGradient, x.isParameter], [
    true,
    true,
    false,
  ]);
  assertEquals([y.isParameter, y.attrs[0].name, y.attrs[0].i], [
    true,
    "n",
    4,
  ]);
  assertEquals(words.type?.strings?.dims, [-1n]);
  const [fill, scale, printOp] = desc.blocks[0].ops;
  assertEquals(fill.attrs[1].float64, 0.25);
  assertEquals(scale.attrs[0].scalar?.i, 4n);
  assertEquals(scale.attrs[1].scalar?.r, -0.5);
  assertEquals(printOp.isTarget, true);
  // y = 4 * 0.25 - 0.5, read from FLOAT64 and SCALAR attributes.
  assertEquals((await runProgram(desc)).lines, ["y [0.5, 0.5]"]);
  assertEquals(dumpProgram(desc).split("\n").slice(1, 7), [
    "  var x LOD_TENSOR float32 [2]",
    "  var y LOD_TENSOR float32 [2]",
    "  var words STRINGS",
    "  op 0: fill_constant() -> Out=[x] {shape=[2], value=0.25}",
    "  op 1: scale(X=[x]) -> Out=[y] {scale=4, bias=-0.5}",
    '  op 2: print(In=[y]) {message="y"}',
  ]);
});
