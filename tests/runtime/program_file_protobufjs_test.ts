// A program encoded WITHOUT the project's generated code: protobufjs, with a
// schema written here by reflection from design.md §2's field numbers,
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
  elementwiseAdd,
  elementwiseMul,
  fillConstant,
  increment,
  lessThan,
  mul,
  print,
  whileLoop,
} from "../../mod.ts";
import { buildProgram, runProgram } from "../_helpers/run_program.ts";

// VarType.Type and AttrType numbers (design.md §2).
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
    new URL("../../examples/mult.pb", import.meta.url),
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
