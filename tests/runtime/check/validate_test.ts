import { create, type MessageInitShape } from "@bufbuild/protobuf";
import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertRejects,
  assertThrows,
} from "@std/assert";
import {
  AttrType,
  type BlockDescSchema,
  ProgramDescSchema,
  Scalar_Type,
  VarType_Type,
} from "../../../gen/rill/v1/framework_pb.ts";
import { decodeProgram, Executor } from "../../../mod.ts";
import { Random } from "../../../scheduler/random.ts";
import {
  ProgramError,
  type ProgramErrorWhere,
} from "../../../runtime/core/errors.ts";
import { UnknownOpsError } from "../../../runtime/check/unknown_ops_error.ts";
import { validateProgram } from "../../../runtime/check/validate.ts";
import { makeRegistry } from "../../../runtime/ops/mod.ts";
import { VALUE_OPS } from "../../../runtime/ops/values.ts";
import {
  channel,
  op,
  type OpInit,
  tensor,
  type VarInit,
} from "../../_helpers/desc_init.ts";
import { paddle2Program } from "../../_helpers/paddle2_program.ts";

type BlockInit = MessageInitShape<typeof BlockDescSchema>;

/** `fill_constant` of shape [2] into `out`, with extra attributes. */
function fill(out: string, attrs: OpInit["attrs"] = []): OpInit {
  return op("fill_constant", {}, { Out: [out] }, [
    { name: "shape", type: AttrType.LONGS, longs: [2n] },
    ...(attrs ?? []),
  ]);
}

function program(...blocks: BlockInit[]) {
  return create(ProgramDescSchema, {
    blocks: blocks.map((b, i) => ({ idx: i, parentIdx: i - 1, ...b })),
  });
}

function main(vars: VarInit[], ops: OpInit[]): BlockInit {
  return { idx: 0, parentIdx: -1, vars, ops };
}

function block(
  idx: number,
  parentIdx: number,
  vars: VarInit[] = [],
  ops: OpInit[] = [],
): BlockInit {
  return { idx, parentIdx, vars, ops };
}

const cond = tensor("cond", [1], VarType_Type.BOOL);
const fillCond = op("fill_constant", {}, { Out: ["cond"] }, [
  { name: "shape", type: AttrType.LONGS, longs: [1n] },
  { name: "dtype", type: AttrType.INT, i: VarType_Type.BOOL },
]);

function ifBlock(subBlock: number): OpInit {
  return op("conditional_block", { Cond: ["cond"] }, {}, [
    { name: "sub_block", type: AttrType.BLOCK, blockIdx: subBlock },
  ]);
}

/**
 * Asserts that validation fails with a `ProgramError` at `where` whose
 * one-line message is `message`.
 */
function assertInvalid(
  p: ReturnType<typeof program>,
  where: ProgramErrorWhere,
  message: string,
): void {
  const e = assertThrows(() => validateProgram(p, { file: "p.pb" }));
  assertInstanceOf(e, ProgramError);
  assertEquals(e.where, { file: "p.pb", ...where });
  assertEquals(e.message, message);
  assert(!e.message.includes("\n"));
}

Deno.test("validateProgram() accepts a program whose sub-block reads its ancestors' variables", () => {
  validateProgram(program(
    main([cond, tensor("x", [2])], [fill("x"), fillCond, ifBlock(1)]),
    block(1, 0, [], [ifBlock(2)]),
    block(2, 1, [], [op("print", { In: ["x"] })]),
  ));
});

Deno.test("validateProgram() rejects a program with no blocks", () => {
  assertInvalid(
    create(ProgramDescSchema, {}),
    {},
    "p.pb: the program has no blocks",
  );
});

Deno.test("validateProgram() rejects an unknown op", () => {
  assertInvalid(
    program(main([], [op("frobnicate")])),
    { block: 0, op: 0, opType: "frobnicate" },
    'p.pb: block 0 op 0 (frobnicate): unknown op "frobnicate"',
  );
});

Deno.test("validateProgram() lists every unknown op type with its count, in order of first appearance", () => {
  const p = program(
    main([tensor("x"), cond], [
      fill("x"),
      op("yolo_box", { Input: ["x"] }),
      op("roi_align"),
      fillCond,
      op("yolo_box"),
      ifBlock(1),
      // Later problems wait until the ops are known.
      op("relu", { X: ["undeclared"] }, { Out: ["x"] }),
    ]),
    block(1, 0, [], [op("yolo_box"), op("multiclass_nms3"), op("roi_align")]),
  );
  const e = assertThrows(
    () => validateProgram(p, { file: "m.pb" }),
    UnknownOpsError,
  );
  assertEquals(
    e.message,
    "m.pb: unknown ops: yolo_box ×3, roi_align ×2, multiclass_nms3 ×1",
  );
  assertEquals(e.where, { file: "m.pb" });
  assertEquals(e.ops, [
    { type: "yolo_box", count: 3, block: 0, op: 1 },
    { type: "roi_align", count: 2, block: 0, op: 2 },
    { type: "multiclass_nms3", count: 1, block: 1, op: 1 },
  ]);
  assertInstanceOf(e, ProgramError);
});

Deno.test("validateProgram() quotes unknown op types that are not plain names", () => {
  const e = assertThrows(
    () => validateProgram(program(main([], [op("a b"), op(""), op("a b")]))),
    UnknownOpsError,
  );
  assertEquals(e.message, 'unknown ops: "a b" ×2, "" ×1');
  assertEquals(e.where, {});
});

Deno.test("validateProgram() checks block structure before listing unknown ops", () => {
  assertInvalid(
    program(main([], [op("yolo_box"), op("yolo_box")]), block(1, 5)),
    { block: 1 },
    "p.pb: block 1: parent_idx 5 is not an earlier block",
  );
});

Deno.test("validateProgram() rejects an op missing from the registry it is given", () => {
  const e = assertThrows(
    () =>
      validateProgram(
        program(
          main([tensor("x")], [op("relu", { X: ["x"] }, { Out: ["x"] })]),
        ),
        { file: "p.pb", registry: makeRegistry(VALUE_OPS) },
      ),
    ProgramError,
  );
  assertEquals(e.where, { file: "p.pb", block: 0, op: 0, opType: "relu" });
});

Deno.test("validateProgram() rejects an undeclared input variable", () => {
  assertInvalid(
    program(main([tensor("a")], [
      fill("a"),
      op("elementwise_add", { X: ["a"], Y: ["b"] }, { Out: ["a"] }),
    ])),
    { block: 0, op: 1, opType: "elementwise_add", slot: "Y", variable: "b" },
    'p.pb: block 0 op 1 (elementwise_add): input "Y": variable "b" is not declared in block 0 or its ancestors',
  );
});

Deno.test("validateProgram() rejects an undeclared output variable", () => {
  assertInvalid(
    program(main([], [fill("out")])),
    { block: 0, op: 0, opType: "fill_constant", slot: "Out", variable: "out" },
    'p.pb: block 0 op 0 (fill_constant): output "Out": variable "out" is not declared in block 0 or its ancestors',
  );
});

Deno.test("validateProgram() rejects a variable declared only in a sibling block", () => {
  assertInvalid(
    program(
      main([cond], [fillCond, ifBlock(1), ifBlock(2)]),
      block(1, 0, [tensor("z", [2])], [fill("z")]),
      block(2, 0, [], [op("print", { In: ["z"] })]),
    ),
    { block: 2, op: 0, opType: "print", slot: "In", variable: "z" },
    'p.pb: block 2 op 0 (print): input "In": variable "z" is not declared in block 2 or its ancestors',
  );
});

Deno.test("validateProgram() rejects an attribute of the wrong type", () => {
  assertInvalid(
    program(main([tensor("x")], [
      fill("x", [{ name: "value", type: AttrType.STRING, s: "1" }]),
    ])),
    { block: 0, op: 0, opType: "fill_constant", attr: "value" },
    'p.pb: block 0 op 0 (fill_constant): attribute "value": expected FLOAT, got STRING',
  );
});

Deno.test("validateProgram() accepts an INT where a LONG is expected and the reverse", () => {
  validateProgram(program(main([tensor("x"), tensor("y")], [
    op("fill_constant", {}, { Out: ["x"] }, [
      { name: "shape", type: AttrType.INTS, ints: [2] },
      { name: "dtype", type: AttrType.LONG, l: 3n },
    ]),
    op("fill_constant", {}, { Out: ["y"] }, [
      { name: "shape", type: AttrType.LONGS, longs: [2n] },
    ]),
  ])));
});

Deno.test("validateProgram() rejects a LONG too large for an INT attribute", () => {
  assertInvalid(
    program(main([tensor("x")], [
      fill("x", [{ name: "dtype", type: AttrType.LONG, l: 2n ** 40n }]),
    ])),
    { block: 0, op: 0, opType: "fill_constant", attr: "dtype" },
    'p.pb: block 0 op 0 (fill_constant): attribute "dtype": value 1099511627776 does not fit an INT',
  );
});

Deno.test("validateProgram() rejects an unknown attribute", () => {
  assertInvalid(
    program(main([tensor("x")], [
      fill("x", [{ name: "colour", type: AttrType.STRING, s: "red" }]),
    ])),
    { block: 0, op: 0, opType: "fill_constant", attr: "colour" },
    'p.pb: block 0 op 0 (fill_constant): attribute "colour": unknown attribute',
  );
});

Deno.test("validateProgram() refuses one of Paddle's extra attributes at a value that is not neutral, naming op, attribute and value", () => {
  assertInvalid(
    program(main([tensor("x")], [
      fill("x", [
        { name: "use_mkldnn", type: AttrType.BOOLEAN, b: true },
        { name: "fuse_activation", type: AttrType.STRING, s: "relu" },
      ]),
    ])),
    { block: 0, op: 0, opType: "fill_constant", attr: "fuse_activation" },
    'p.pb: block 0 op 0 (fill_constant): attribute "fuse_activation": "relu" asks for an operation fused into the op; Rill accepts only ""',
  );
});

Deno.test("validateProgram() accepts Fluid's common attributes on any op", () => {
  validateProgram(program(main([tensor("x")], [
    fill("x", [
      { name: "op_role", type: AttrType.INT, i: 0 },
      { name: "op_callstack", type: AttrType.STRINGS, strings: ["f.py:1"] },
    ]),
  ])));
});

Deno.test("validateProgram() accepts a Paddle 2.x program: FLOAT64 and SCALAR attributes, variable flags, new types", () => {
  validateProgram(paddle2Program(), { file: "paddle2.pb" });
});

Deno.test("validateProgram() rejects a Paddle 2.x attribute of the wrong type with one line", () => {
  assertInvalid(
    program(main([tensor("x"), tensor("y")], [
      fill("x"),
      op("scale", { X: ["x"] }, { Out: ["y"] }, [
        { name: "scale", type: AttrType.VAR, varName: "x" },
      ]),
    ])),
    { block: 0, op: 1, opType: "scale", attr: "scale" },
    'p.pb: block 0 op 1 (scale): attribute "scale": expected FLOAT, got VAR "x"',
  );
  assertInvalid(
    program(main([tensor("x")], [
      fill("x", [{
        name: "dtype",
        type: AttrType.SCALAR,
        scalar: { type: Scalar_Type.COMPLEX128, c: { r: 5 } },
      }]),
    ])),
    { block: 0, op: 0, opType: "fill_constant", attr: "dtype" },
    'p.pb: block 0 op 0 (fill_constant): attribute "dtype": expected INT, got SCALAR(COMPLEX128)',
  );
});

Deno.test("validateProgram() rejects an attribute given twice", () => {
  assertInvalid(
    program(main([tensor("x")], [
      fill("x", [
        { name: "value", type: AttrType.FLOAT, f: 1 },
        { name: "value", type: AttrType.FLOAT, f: 2 },
      ]),
    ])),
    { block: 0, op: 0, opType: "fill_constant", attr: "value" },
    'p.pb: block 0 op 0 (fill_constant): attribute "value": given twice',
  );
});

Deno.test("validateProgram() rejects a missing required attribute", () => {
  assertInvalid(
    program(main([cond], [
      fillCond,
      op("conditional_block", { Cond: ["cond"] }),
    ])),
    { block: 0, op: 1, opType: "conditional_block", attr: "sub_block" },
    'p.pb: block 0 op 1 (conditional_block): attribute "sub_block": required but absent',
  );
});

Deno.test("validateProgram() rejects a dtype attribute that names no element type", () => {
  assertInvalid(
    program(main([tensor("x")], [
      fill("x", [{
        name: "dtype",
        type: AttrType.INT,
        i: VarType_Type.CHANNEL,
      }]),
    ])),
    { block: 0, op: 0, opType: "fill_constant", attr: "dtype" },
    'p.pb: block 0 op 0 (fill_constant): attribute "dtype": dtype 16 is not a tensor element type',
  );
});

Deno.test("validateProgram() rejects a str_value that is not a number of its dtype", () => {
  assertInvalid(
    program(main([tensor("x")], [
      fill("x", [{ name: "str_value", type: AttrType.STRING, s: "abc" }]),
    ])),
    { block: 0, op: 0, opType: "fill_constant", attr: "str_value" },
    'p.pb: block 0 op 0 (fill_constant): attribute "str_value": "abc" is not a number',
  );
  assertInvalid(
    program(main([tensor("x")], [
      fill("x", [
        { name: "dtype", type: AttrType.INT, i: VarType_Type.INT64 },
        { name: "str_value", type: AttrType.STRING, s: "1.5" },
      ]),
    ])),
    { block: 0, op: 0, opType: "fill_constant", attr: "str_value" },
    'p.pb: block 0 op 0 (fill_constant): attribute "str_value": "1.5" is not an integer',
  );
  assertInvalid(
    program(main([tensor("x")], [
      fill("x", [
        { name: "dtype", type: AttrType.INT, i: VarType_Type.INT64 },
        { name: "str_value", type: AttrType.STRING, s: "9223372036854775808" },
      ]),
    ])),
    { block: 0, op: 0, opType: "fill_constant", attr: "str_value" },
    'p.pb: block 0 op 0 (fill_constant): attribute "str_value": "9223372036854775808" does not fit int64',
  );
});

Deno.test("validateProgram() rejects a missing required input slot", () => {
  assertInvalid(
    program(main([tensor("x", [2])], [
      fill("x"),
      op("elementwise_add", { X: ["x"] }, { Out: ["x"] }),
    ])),
    { block: 0, op: 1, opType: "elementwise_add", slot: "Y" },
    'p.pb: block 0 op 1 (elementwise_add): input "Y" is required',
  );
});

Deno.test("validateProgram() rejects a missing required output slot", () => {
  assertInvalid(
    program(main([], [op("fill_constant")])),
    { block: 0, op: 0, opType: "fill_constant", slot: "Out" },
    'p.pb: block 0 op 0 (fill_constant): output "Out" is required',
  );
});

Deno.test("validateProgram() rejects a required slot with no variables", () => {
  assertInvalid(
    program(main([], [op("print", { In: [] })])),
    { block: 0, op: 0, opType: "print", slot: "In" },
    'p.pb: block 0 op 0 (print): input "In" is required',
  );
});

Deno.test("validateProgram() accepts a slot the op lacks while it names no variable, as Paddle writes its dispensable slots", () => {
  // Fluid 1.x saves `scale` with an empty ScaleTensor, and more ops with
  // empty outputs such as XShape.
  validateProgram(program(main([tensor("x"), tensor("y")], [
    fill("x"),
    op("scale", { X: ["x"], ScaleTensor: [] }, { Out: ["y"], XShape: [] }),
  ])));
});

Deno.test("validateProgram() rejects an unknown slot", () => {
  assertInvalid(
    program(
      main([tensor("x")], [fill("x"), op("print", { In: ["x"], Z: ["x"] })]),
    ),
    { block: 0, op: 1, opType: "print", slot: "Z" },
    'p.pb: block 0 op 1 (print): unknown input slot "Z"',
  );
});

Deno.test("validateProgram() rejects two variables in a slot that takes one", () => {
  assertInvalid(
    program(main([tensor("x")], [fill("x"), op("print", { In: ["x", "x"] })])),
    { block: 0, op: 1, opType: "print", slot: "In" },
    'p.pb: block 0 op 1 (print): input "In" takes one variable, got 2',
  );
});

Deno.test("validateProgram() rejects a slot given twice", () => {
  const p = program(main([tensor("x")], [fill("x"), {
    type: "print",
    inputs: [
      { parameter: "In", arguments: ["x"] },
      { parameter: "In", arguments: ["x"] },
    ],
  }]));
  assertInvalid(
    p,
    { block: 0, op: 1, opType: "print", slot: "In" },
    'p.pb: block 0 op 1 (print): input "In" is given twice',
  );
});

Deno.test("validateProgram() rejects a channel slot naming a tensor", () => {
  assertInvalid(
    program(main([tensor("x")], [
      fill("x"),
      op("channel_close", { Channel: ["x"] }),
    ])),
    {
      block: 0,
      op: 1,
      opType: "channel_close",
      slot: "Channel",
      variable: "x",
    },
    'p.pb: block 0 op 1 (channel_close): input "Channel": variable "x" is a tensor, not a channel',
  );
});

Deno.test("validateProgram() rejects a tensor slot naming a channel", () => {
  assertInvalid(
    program(
      main([channel("ch")], [op("relu", { X: ["ch"] }, { Out: ["ch"] })]),
    ),
    { block: 0, op: 0, opType: "relu", slot: "X", variable: "ch" },
    'p.pb: block 0 op 0 (relu): input "X": variable "ch" is a channel, not a tensor',
  );
});

Deno.test("validateProgram() rejects a block index out of range", () => {
  assertInvalid(
    program(main([cond], [fillCond, ifBlock(5)])),
    { block: 0, op: 1, opType: "conditional_block", attr: "sub_block" },
    'p.pb: block 0 op 1 (conditional_block): attribute "sub_block": block 5 does not exist',
  );
});

Deno.test("validateProgram() rejects a sub-block that is not a child of the op's block", () => {
  assertInvalid(
    program(
      main([cond], [fillCond, ifBlock(2)]),
      block(1, 0),
      block(2, 1),
    ),
    { block: 0, op: 1, opType: "conditional_block", attr: "sub_block" },
    'p.pb: block 0 op 1 (conditional_block): attribute "sub_block": block 2 is not a child of block 0',
  );
  assertInvalid(
    program(main([cond], [fillCond, ifBlock(0)])),
    { block: 0, op: 1, opType: "conditional_block", attr: "sub_block" },
    'p.pb: block 0 op 1 (conditional_block): attribute "sub_block": block 0 is not a child of block 0',
  );
});

Deno.test("validateProgram() rejects a BLOCKS index that is not a child", () => {
  assertInvalid(
    program(
      main([], [op("select", {}, {}, [
        { name: "cases", type: AttrType.STRINGS, strings: ["default,,,"] },
        { name: "sub_blocks", type: AttrType.BLOCKS, blocksIdx: [2] },
      ])]),
      block(1, 0),
      block(2, 1),
    ),
    { block: 0, op: 0, opType: "select", attr: "sub_blocks" },
    'p.pb: block 0 op 0 (select): attribute "sub_blocks": block 2 is not a child of block 0',
  );
});

Deno.test("validateProgram() errors carry the slot, variable and attribute as data", () => {
  const whereOf = (p: ReturnType<typeof program>): ProgramErrorWhere => {
    const e = assertThrows(() => validateProgram(p));
    assertInstanceOf(e, ProgramError);
    return e.where;
  };
  // A slot error names the slot.
  assertEquals(
    whereOf(program(main([], [op("print")]))),
    { file: undefined, block: 0, op: 0, opType: "print", slot: "In" },
  );
  // A variable error names the slot and the variable.
  assertEquals(
    whereOf(program(main([tensor("a")], [
      fill("a"),
      op("elementwise_add", { X: ["a"], Y: ["b"] }, { Out: ["a"] }),
    ]))),
    {
      file: undefined,
      block: 0,
      op: 1,
      opType: "elementwise_add",
      slot: "Y",
      variable: "b",
    },
  );
  // An attribute error names the attribute.
  assertEquals(
    whereOf(program(main([tensor("x")], [
      fill("x", [{ name: "value", type: AttrType.STRING, s: "1" }]),
    ]))),
    {
      file: undefined,
      block: 0,
      op: 0,
      opType: "fill_constant",
      attr: "value",
    },
  );
});

Deno.test("validateProgram() rejects a parent_idx that is not an earlier block", () => {
  for (const parentIdx of [1, 2, -1]) {
    assertInvalid(
      program(main([], []), block(1, parentIdx)),
      { block: 1 },
      `p.pb: block 1: parent_idx ${parentIdx} is not an earlier block`,
    );
  }
});

Deno.test("validateProgram() rejects a block whose idx is not its position", () => {
  assertInvalid(
    program(main([], []), block(2, 0)),
    { block: 1 },
    "p.pb: block 1: block at position 1 says idx 2",
  );
});

Deno.test("validateProgram() rejects a variable declared twice in a block", () => {
  assertInvalid(
    program(main([tensor("x"), tensor("x")], [])),
    { block: 0 },
    'p.pb: block 0: variable "x" is declared twice',
  );
});

Deno.test("validateProgram() accepts a sub-block variable that shadows an outer one", () => {
  validateProgram(program(
    main([cond, tensor("x", [2])], [fill("x"), fillCond, ifBlock(1)]),
    block(1, 0, [tensor("x", [2])], [fill("x")]),
  ));
});

Deno.test("validateProgram() rejects a variable with an empty name", () => {
  assertInvalid(
    program(main([tensor("")], [])),
    { block: 0 },
    "p.pb: block 0: a variable has an empty name",
  );
});

Deno.test("validateProgram() rejects elementwise_add of declared [2, 3] and [4]", () => {
  assertInvalid(
    program(main([tensor("a", [2, 3]), tensor("b", [4]), tensor("c")], [
      op("elementwise_add", { X: ["a"], Y: ["b"] }, { Out: ["c"] }),
    ])),
    { block: 0, op: 0, opType: "elementwise_add" },
    "p.pb: block 0 op 0 (elementwise_add): broadcast: shapes [2, 3] and [4] do not match",
  );
});

Deno.test("validateProgram() rejects elementwise_add whose Paddle axis misaligns Y", () => {
  const e = assertThrows(
    () =>
      validateProgram(
        program(main(
          [tensor("a", [2, 3]), tensor("b", [3]), tensor("c")],
          [op("elementwise_add", { X: ["a"], Y: ["b"] }, { Out: ["c"] }, [
            { name: "axis", type: AttrType.INT, i: 0 },
          ])],
        )),
        { file: "p.pb" },
      ),
    ProgramError,
  );
  assertEquals(e.where, {
    file: "p.pb",
    block: 0,
    op: 0,
    opType: "elementwise_add",
  });
});

Deno.test("validateProgram() accepts unknown (-1) dims that may broadcast", () => {
  validateProgram(program(main(
    [tensor("a", [-1, 3]), tensor("b", [3]), tensor("c", [2, -1]), tensor("d")],
    [
      op("elementwise_add", { X: ["a"], Y: ["b"] }, { Out: ["d"] }),
      op("elementwise_add", { X: ["c"], Y: ["b"] }, { Out: ["d"] }),
    ],
  )));
});

Deno.test("validateProgram() rejects mul of declared [2, 3] by [4, 5]", () => {
  assertInvalid(
    program(main([tensor("a", [2, 3]), tensor("b", [4, 5]), tensor("c")], [
      op("mul", { X: ["a"], Y: ["b"] }, { Out: ["c"] }),
    ])),
    { block: 0, op: 0, opType: "mul" },
    "p.pb: block 0 op 0 (mul): mul: X [2, 3] and Y [4, 5] do not multiply: " +
      "X's dims from x_num_col_dims 1 hold 3 elements, Y's dims before " +
      "y_num_col_dims 1 hold 4",
  );
});

Deno.test("validateProgram() names a mul's x_num_col_dims beyond X's rank", () => {
  const attr = { name: "x_num_col_dims", type: AttrType.INT, i: 7 };
  assertInvalid(
    program(
      main([tensor("a", [-1, 200]), tensor("b", [200, 10]), tensor("c")], [
        op("mul", { X: ["a"], Y: ["b"] }, { Out: ["c"] }, [attr]),
      ]),
    ),
    { block: 0, op: 0, opType: "mul" },
    "p.pb: block 0 op 0 (mul): mul: x_num_col_dims 7 is out of range for " +
      "X [-1, 200] (1 to 1)",
  );
});

Deno.test("validateProgram() rejects a shape mismatch inside a sub-block", () => {
  assertInvalid(
    program(
      main([cond, tensor("a", [2, 3]), tensor("b", [4, 5])], [
        fillCond,
        ifBlock(1),
      ]),
      block(1, 0, [tensor("c")], [
        op("matmul", { X: ["a"], Y: ["b"] }, { Out: ["c"] }),
      ]),
    ),
    { block: 1, op: 0, opType: "matmul" },
    "p.pb: block 1 op 0 (matmul): matmul: X [2, 3] and Y [4, 5] do not multiply",
  );
});

Deno.test("validateProgram() rejects a reshape to another size", () => {
  assertInvalid(
    program(main([tensor("a", [2, 3]), tensor("c")], [
      op("reshape", { X: ["a"] }, { Out: ["c"] }, [
        { name: "shape", type: AttrType.INTS, ints: [4, 2] },
      ]),
    ])),
    { block: 0, op: 0, opType: "reshape" },
    "p.pb: block 0 op 0 (reshape): reshape: [2, 3] cannot become [4, 2]",
  );
});

Deno.test("validateProgram() rejects split with both or neither of sections and num", () => {
  assertInvalid(
    program(main([tensor("a", [4]), tensor("c")], [
      op("split", { X: ["a"] }, { Out: ["c"] }),
    ])),
    { block: 0, op: 0, opType: "split" },
    'p.pb: block 0 op 0 (split): give exactly one of "sections" and "num"',
  );
});

Deno.test("validateProgram() rejects assign_value with too few values for its shape", () => {
  assertInvalid(
    program(main([tensor("c")], [
      op("assign_value", {}, { Out: ["c"] }, [
        { name: "shape", type: AttrType.INTS, ints: [3] },
        { name: "fp32_values", type: AttrType.FLOATS, floats: [1, 2] },
      ]),
    ])),
    { block: 0, op: 0, opType: "assign_value" },
    "p.pb: block 0 op 0 (assign_value): shape [3] needs 3 values, got 2",
  );
});

Deno.test("Executor.run() validates before running anything", async () => {
  const lines: string[] = [];
  const p = program(main([tensor("x")], [
    fill("x"),
    op("print", { In: ["x"] }),
    op("frobnicate"),
  ]));
  await assertRejects(
    () => new Executor({ print: (l) => lines.push(l) }).run(p),
    ProgramError,
  );
  assertEquals(lines, []);
});

Deno.test("validateProgram() rejects an output declared with a shape the op cannot make", () => {
  assertInvalid(
    program(main([tensor("z", [3])], [fill("z")])),
    { block: 0, op: 0, opType: "fill_constant" },
    'p.pb: block 0 op 0 (fill_constant): output "Out": variable "z" is declared [3] but the op makes [2]',
  );
});

Deno.test("validateProgram() lets unknown dims and [1] for a scalar through", () => {
  validateProgram(program(main([tensor("z", [-1]), tensor("s", [1])], [
    fill("z"),
    op("fill_constant", {}, { Out: ["s"] }, []),
  ])));
});

Deno.test("validateProgram() rejects a block that is the sub-block of two ops", () => {
  assertInvalid(
    program(
      main([cond], [fillCond, ifBlock(1), ifBlock(1)]),
      block(1, 0, [], []),
    ),
    { block: 0, op: 2, opType: "conditional_block", attr: "sub_block" },
    'p.pb: block 0 op 2 (conditional_block): attribute "sub_block": block 1 is already the sub-block of block 0 op 1 (conditional_block)',
  );
});

Deno.test("validateProgram() rejects a sleep with neither ms nor Duration", () => {
  assertInvalid(
    program(main([], [op("sleep")])),
    { block: 0, op: 0, opType: "sleep", attr: "ms" },
    'p.pb: block 0 op 0 (sleep): attribute "ms": required when Duration is not given',
  );
});

Deno.test("validateProgram() rejects a cast without out_dtype", () => {
  assertInvalid(
    program(
      main([tensor("x"), tensor("y")], [
        fill("x"),
        op("cast", { X: ["x"] }, { Out: ["y"] }),
      ]),
    ),
    { block: 0, op: 1, opType: "cast", attr: "out_dtype" },
    'p.pb: block 0 op 1 (cast): attribute "out_dtype": required but absent',
  );
});

Deno.test("validateProgram() answers damaged programs with one-line ProgramErrors", async () => {
  // Seeded damage to every example: whatever still decodes either
  // validates or fails with a ProgramError on one line, never another error.
  const dir = new URL("../../../examples/", import.meta.url);
  const examples: [string, Uint8Array][] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.name.endsWith(".pb")) continue;
    examples.push([entry.name, await Deno.readFile(new URL(entry.name, dir))]);
  }
  const random = new Random(11);
  const outcomes = { valid: 0, invalid: 0 };
  for (let trial = 0; trial < 3000; trial++) {
    const [name, original] = examples[random.nextInt(examples.length)];
    const bytes = original.slice();
    for (let k = 0; k <= random.nextInt(3); k++) {
      bytes[random.nextInt(bytes.length)] = random.nextInt(256);
    }
    let program;
    try {
      program = decodeProgram(bytes, name);
    } catch (e) {
      if (!(e instanceof ProgramError)) throw e;
      continue;
    }
    try {
      validateProgram(program, { file: name });
      outcomes.valid++;
    } catch (e) {
      if (!(e instanceof ProgramError)) throw e;
      assert(!/[\n\r\u2028\u2029]/.test(e.message), e.message);
      outcomes.invalid++;
    }
  }
  assert(outcomes.valid > 0 && outcomes.invalid > 0, JSON.stringify(outcomes));
});

/** `fill_constant` of `shape` into `out`. */
function fillShaped(out: string, shape: number[]): OpInit {
  return op("fill_constant", {}, { Out: [out] }, [
    { name: "shape", type: AttrType.LONGS, longs: shape.map(BigInt) },
  ]);
}

/** `reduce_sum` of `x` over `dim` into `out`. */
function reduceSumOver(x: string, dim: number[], out: string): OpInit {
  return op("reduce_sum", { X: [x] }, { Out: [out] }, [
    { name: "dim", type: AttrType.INTS, ints: dim },
  ]);
}

Deno.test("validateProgram() reads a [-1] variable with the shape its producer made", async () => {
  // A rank-2 result written into a variable declared [-1] is rank 2 to the
  // ops that read it afterwards, not rank 1; the run agrees.
  const p = program(main(
    [tensor("a", [2, 3]), tensor("y", [-1]), tensor("s")],
    [
      fillShaped("a", [2, 3]),
      op("assign", { X: ["a"] }, { Out: ["y"] }),
      reduceSumOver("y", [1], "s"),
      op("print", { In: ["s"] }),
    ],
  ));
  validateProgram(p);
  const lines: string[] = [];
  await new Executor({ print: (l) => lines.push(l) }).run(p);
  assertEquals(lines, ["[0, 0]"]);
});

Deno.test("validateProgram() still finds a mismatch in the producer's shape of a [-1] variable", () => {
  assertInvalid(
    program(main(
      [tensor("a", [2, 3]), tensor("y", [-1]), tensor("b", [4]), tensor("c")],
      [
        fillShaped("a", [2, 3]),
        op("assign", { X: ["a"] }, { Out: ["y"] }),
        fillShaped("b", [4]),
        op("elementwise_add", { X: ["y"], Y: ["b"] }, { Out: ["c"] }),
      ],
    )),
    { block: 0, op: 3, opType: "elementwise_add" },
    "p.pb: block 0 op 3 (elementwise_add): broadcast: shapes [2, 3] and [4] do not match",
  );
});

Deno.test("validateProgram() reads a variable written in a loop's body with the body's shape after the loop", () => {
  validateProgram(program(
    main([cond, tensor("y", [-1]), tensor("s")], [
      fillCond,
      op("while", { Condition: ["cond"] }, {}, [
        { name: "sub_block", type: AttrType.BLOCK, blockIdx: 1 },
      ]),
      reduceSumOver("y", [2], "s"),
    ]),
    block(1, 0, [], [
      fillShaped("y", [2, 3, 4]),
      op("fill_constant", {}, { Out: ["cond"] }, [
        { name: "shape", type: AttrType.LONGS, longs: [1n] },
        { name: "dtype", type: AttrType.INT, i: VarType_Type.BOOL },
      ]),
    ]),
  ));
});

Deno.test("validateProgram() reads a variable by its declaration before any op writes it", () => {
  assertInvalid(
    program(main(
      [tensor("y", [-1]), tensor("s")],
      [reduceSumOver("y", [1], "s"), fillShaped("y", [2, 3])],
    )),
    { block: 0, op: 0, opType: "reduce_sum" },
    "p.pb: block 0 op 0 (reduce_sum): reduce: dim 1 out of range for rank 1",
  );
});
