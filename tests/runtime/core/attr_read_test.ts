import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { assertEquals, assertThrows } from "@std/assert";
import {
  AttrType,
  type OpDesc_Attr,
  OpDesc_AttrSchema,
  Scalar_Type,
} from "../../../gen/rill/v1/framework_pb.ts";
import { AttrError, readAttrs } from "../../../runtime/core/attr_read.ts";
import { attr } from "../../../runtime/core/op_def.ts";

const a = (init: MessageInitShape<typeof OpDesc_AttrSchema>): OpDesc_Attr =>
  create(OpDesc_AttrSchema, init);

Deno.test("readAttrs() reads INT as LONG, INTS as LONGS and the reverse", () => {
  const schema = {
    l: attr.long(),
    ls: attr.longs(),
    i: attr.int(),
    is: attr.ints(),
  };
  assertEquals(
    readAttrs(schema, [
      a({ name: "l", type: AttrType.INT, i: -5 }),
      a({ name: "ls", type: AttrType.INTS, ints: [1, 2] }),
      a({ name: "i", type: AttrType.LONG, l: 7n }),
      a({ name: "is", type: AttrType.LONGS, longs: [3n, -4n] }),
    ]),
    { l: -5n, ls: [1n, 2n], i: 7, is: [3, -4] },
  );
});

Deno.test("readAttrs() rejects LONGS that do not fit INTS", () => {
  const e = assertThrows(
    () =>
      readAttrs({ is: attr.ints() }, [
        a({ name: "is", type: AttrType.LONGS, longs: [1n, 2n ** 31n] }),
      ]),
    AttrError,
  );
  assertEquals(e.attr, "is");
  assertEquals(
    e.message,
    'attribute "is": value 2147483648 does not fit an INT',
  );
});

Deno.test("readAttrs() applies defaults and leaves absent optional attributes undefined", () => {
  assertEquals(
    readAttrs(
      { axis: attr.int(-1), dtype: attr.int(), ok: attr.bool(true) },
      [],
    ),
    { axis: -1, dtype: undefined, ok: true },
  );
});

Deno.test("readAttrs() reads each attribute from the field its type names", () => {
  const values = readAttrs({
    f: attr.float(),
    s: attr.string(),
    fs: attr.floats(),
    ss: attr.strings(),
    b: attr.bool(),
    bs: attr.bools(),
    blk: attr.block(),
    blks: attr.blocks(),
  }, [
    // The i field holds a decoy: only the field of `type` is read.
    a({ name: "f", type: AttrType.FLOAT, f: 0.5, i: 9 }),
    a({ name: "s", type: AttrType.STRING, s: "x" }),
    a({ name: "fs", type: AttrType.FLOATS, floats: [1, 2] }),
    a({ name: "ss", type: AttrType.STRINGS, strings: ["a"] }),
    a({ name: "b", type: AttrType.BOOLEAN, b: true }),
    a({ name: "bs", type: AttrType.BOOLEANS, bools: [false] }),
    a({ name: "blk", type: AttrType.BLOCK, blockIdx: 2 }),
    a({ name: "blks", type: AttrType.BLOCKS, blocksIdx: [1, 3] }),
  ]);
  assertEquals(values, {
    f: 0.5,
    s: "x",
    fs: [1, 2],
    ss: ["a"],
    b: true,
    bs: [false],
    blk: 2,
    blks: [1, 3],
  });
});

Deno.test("readAttrs() rejects an attribute whose type is not the schema's", () => {
  const e = assertThrows(
    () =>
      readAttrs({ f: attr.float() }, [
        a({ name: "f", type: AttrType.INT, i: 1 }),
      ]),
    AttrError,
  );
  assertEquals(e.message, 'attribute "f": expected FLOAT, got INT');
  const unknownType = assertThrows(
    () =>
      readAttrs({ f: attr.float() }, [a({ name: "f", type: 42 as AttrType })]),
    AttrError,
  );
  assertEquals(unknownType.message, 'attribute "f": expected FLOAT, got 42');
});

Deno.test("readAttrs() reads an INT 0 or 1 as a BOOLEAN, as Paddle 1.x stored flags", () => {
  const schema = { is_test: attr.bool(false), use_global_stats: attr.bool() };
  assertEquals(
    readAttrs(schema, [
      a({ name: "is_test", type: AttrType.INT, i: 1 }),
      a({ name: "use_global_stats", type: AttrType.INT, i: 0 }),
    ]),
    { is_test: true, use_global_stats: false },
  );
  const e = assertThrows(
    () => readAttrs(schema, [a({ name: "is_test", type: AttrType.INT, i: 2 })]),
    AttrError,
  );
  assertEquals(e.message, 'attribute "is_test": expected BOOLEAN, got INT');
});

const long = (i: bigint) => ({ type: Scalar_Type.LONG, i });
const float64 = (r: number) => ({ type: Scalar_Type.FLOAT64, r });
const boolean = (b: boolean) => ({ type: Scalar_Type.BOOLEAN, b });

Deno.test("readAttrs() reads Paddle 2.x's FLOAT64 and FLOAT64S as FLOAT and FLOATS, rounded to float32", () => {
  assertEquals(
    readAttrs({ f: attr.float(), fs: attr.floats() }, [
      a({ name: "f", type: AttrType.FLOAT64, float64: 0.1 }),
      a({ name: "fs", type: AttrType.FLOAT64S, float64s: [0.5, 1 / 3] }),
    ]),
    { f: Math.fround(0.1), fs: [0.5, Math.fround(1 / 3)] },
  );
  const e = assertThrows(
    () =>
      readAttrs({ f: attr.float() }, [
        a({ name: "f", type: AttrType.FLOAT64, float64: 1e300 }),
      ]),
    AttrError,
  );
  assertEquals(e.message, 'attribute "f": value 1e+300 does not fit a FLOAT');
  // Infinity and NaN are float32 values too.
  assertEquals(
    readAttrs({ f: attr.float() }, [
      a({ name: "f", type: AttrType.FLOAT64, float64: -Infinity }),
    ]),
    { f: -Infinity },
  );
});

Deno.test("readAttrs() reads a SCALAR where its value keeps its meaning", () => {
  const schema = {
    i: attr.int(),
    l: attr.long(),
    f: attr.float(),
    fromLong: attr.float(),
    b: attr.bool(),
  };
  assertEquals(
    readAttrs(schema, [
      a({ name: "i", type: AttrType.SCALAR, scalar: long(-7n) }),
      a({ name: "l", type: AttrType.SCALAR, scalar: long(2n ** 60n) }),
      a({ name: "f", type: AttrType.SCALAR, scalar: float64(0.1) }),
      a({ name: "fromLong", type: AttrType.SCALAR, scalar: long(3n) }),
      a({ name: "b", type: AttrType.SCALAR, scalar: boolean(true) }),
    ]),
    { i: -7, l: 2n ** 60n, f: Math.fround(0.1), fromLong: 3, b: true },
  );
});

Deno.test("readAttrs() reads SCALARS as the list kinds their elements fit", () => {
  assertEquals(
    readAttrs({
      is: attr.ints(),
      ls: attr.longs(),
      fs: attr.floats(),
      bs: attr.bools(),
    }, [
      a({ name: "is", type: AttrType.SCALARS, scalars: [long(1n), long(-2n)] }),
      a({ name: "ls", type: AttrType.SCALARS, scalars: [long(2n ** 40n)] }),
      a({
        name: "fs",
        type: AttrType.SCALARS,
        scalars: [float64(0.5), long(2n)],
      }),
      a({ name: "bs", type: AttrType.SCALARS, scalars: [boolean(false)] }),
    ]),
    { is: [1, -2], ls: [2n ** 40n], fs: [0.5, 2], bs: [false] },
  );
});

Deno.test("readAttrs() rejects Paddle 2.x types that do not fit the schema, naming what they hold", () => {
  const cases: [Parameters<typeof readAttrs>[0], OpDesc_Attr, string][] = [
    [
      { x: attr.int() },
      a({ name: "x", type: AttrType.SCALAR, scalar: float64(2) }),
      "expected INT, got SCALAR(FLOAT64)",
    ],
    [
      { x: attr.float() },
      a({ name: "x", type: AttrType.SCALAR, scalar: boolean(true) }),
      "expected FLOAT, got SCALAR(BOOLEAN)",
    ],
    [
      { x: attr.float() },
      a({
        name: "x",
        type: AttrType.SCALAR,
        scalar: { type: Scalar_Type.COMPLEX128, c: { r: 1, i: 1 } },
      }),
      "expected FLOAT, got SCALAR(COMPLEX128)",
    ],
    [
      { x: attr.float() },
      a({ name: "x", type: AttrType.SCALAR }),
      "expected FLOAT, got SCALAR with no value",
    ],
    [
      { x: attr.ints() },
      a({
        name: "x",
        type: AttrType.SCALARS,
        scalars: [long(1n), float64(1.5)],
      }),
      "expected INTS, got SCALARS",
    ],
    [
      { x: attr.int() },
      a({ name: "x", type: AttrType.SCALAR, scalar: long(2n ** 31n) }),
      "value 2147483648 does not fit an INT",
    ],
    [
      { x: attr.ints() },
      a({ name: "x", type: AttrType.VAR, varName: "shape_0" }),
      'expected INTS, got VAR "shape_0"',
    ],
    [
      { x: attr.longs() },
      a({ name: "x", type: AttrType.VARS, varsName: ["d0", "d1"] }),
      'expected LONGS, got VARS ["d0","d1"]',
    ],
    [
      { x: attr.int() },
      a({ name: "x", type: AttrType.FLOAT64, float64: 1 }),
      "expected INT, got FLOAT64",
    ],
    [
      { x: attr.float() },
      a({ name: "x", type: AttrType.FLOAT64S, float64s: [1] }),
      "expected FLOAT, got FLOAT64S",
    ],
  ];
  for (const [schema, given, detail] of cases) {
    const e = assertThrows(() => readAttrs(schema, [given]), AttrError);
    assertEquals([e.attr, e.message], ["x", `attribute "x": ${detail}`]);
  }
});

Deno.test("readAttrs() accepts Paddle's bookkeeping and is_test on any op, of any type, and reads them only when declared", () => {
  const bookkeeping = [
    "op_role",
    "op_role_var",
    "op_namescope",
    "op_callstack",
    "op_device",
    "with_quant_attr",
    "is_test",
  ].map((name) =>
    a({ name, type: AttrType.SCALARS, scalars: [boolean(true)] })
  );
  assertEquals(readAttrs({ axis: attr.int(-1) }, bookkeeping), { axis: -1 });
  assertEquals(
    readAttrs({ is_test: attr.bool(false) }, [
      a({ name: "is_test", type: AttrType.BOOLEAN, b: true }),
    ]),
    { is_test: true },
  );
  const e = assertThrows(
    () => readAttrs({}, [a({ name: "x_format", type: AttrType.STRING })]),
    AttrError,
  );
  assertEquals(e.message, 'attribute "x_format": unknown attribute');
});

Deno.test("readAttrs() accepts the hints Paddle 1.x saves on every mul, at any value", () => {
  // hand_writing's mul, as Paddle 1.5 saved it; the scales are read only
  // by an int8 kernel, which no accepted program can reach.
  const mulHints = [
    a({ name: "use_mkldnn", type: AttrType.BOOLEAN, b: false }),
    a({ name: "scale_x", type: AttrType.FLOAT, f: 1 }),
    a({ name: "scale_y", type: AttrType.FLOATS, floats: [0.5, 2] }),
    a({ name: "scale_out", type: AttrType.FLOAT, f: 3 }),
    a({ name: "force_fp32_output", type: AttrType.BOOLEAN, b: true }),
  ];
  assertEquals(readAttrs({ x_num_col_dims: attr.int(1) }, mulHints), {
    x_num_col_dims: 1,
  });
  const e = assertThrows(
    () =>
      readAttrs({}, [a({ name: "scale_y", type: AttrType.STRING, s: "1" })]),
    AttrError,
  );
  assertEquals(
    e.message,
    'attribute "scale_y": expected FLOAT, FLOATS, FLOAT64 or FLOAT64S, got STRING',
  );
});

Deno.test("readAttrs() accepts Paddle's oneDNN hints at their neutral values and refuses others, naming the value", () => {
  // As Paddle 2.x saves them on an elementwise_add, a matmul and a conv2d.
  const neutral = [
    a({ name: "x_data_format", type: AttrType.STRING, s: "" }),
    a({ name: "y_data_format", type: AttrType.STRING, s: "AnyLayout" }),
    a({ name: "Scale_x", type: AttrType.FLOAT, f: 0.5 }),
    a({ name: "Scale_weights", type: AttrType.FLOATS, floats: [1] }),
    a({ name: "mkldnn_data_type", type: AttrType.STRING, s: "float32" }),
    a({ name: "use_quantizer", type: AttrType.BOOLEAN, b: false }),
    a({ name: "fused_reshape_X", type: AttrType.INTS, ints: [] }),
    a({ name: "fused_transpose_Out", type: AttrType.INTS, ints: [] }),
    a({ name: "fuse_relu", type: AttrType.BOOLEAN, b: false }),
    a({ name: "fuse_activation", type: AttrType.STRING, s: "" }),
    a({ name: "fuse_brelu_threshold", type: AttrType.FLOAT, f: 6 }),
    a({ name: "use_addto", type: AttrType.BOOLEAN, b: false }),
    a({ name: "workspace_size_MB", type: AttrType.INT, i: 4096 }),
    a({ name: "use_cudnn", type: AttrType.BOOLEAN, b: true }),
  ];
  assertEquals(readAttrs({ axis: attr.int(-1) }, neutral), { axis: -1 });
  const refused: [OpDesc_Attr, string, string][] = [
    [
      a({ name: "x_data_format", type: AttrType.STRING, s: "NHWC" }),
      '"NHWC"',
      'asks for a oneDNN memory layout of the operands; Rill accepts only "" or "AnyLayout"',
    ],
    [
      a({ name: "mkldnn_data_type", type: AttrType.STRING, s: "int8" }),
      '"int8"',
      'asks for oneDNN\'s bfloat16 or int8 arithmetic; Rill accepts only "float32" or ""',
    ],
    [
      a({ name: "fuse_activation", type: AttrType.STRING, s: "relu6" }),
      '"relu6"',
      'asks for an operation fused into the op; Rill accepts only ""',
    ],
    [
      a({
        name: "fused_reshape_Out",
        type: AttrType.INTS,
        ints: [0, 0, 12, 64],
      }),
      "[0, 0, 12, 64]",
      "asks for a reshape fused into the op; Rill accepts only []",
    ],
    [
      a({ name: "use_addto", type: AttrType.BOOLEAN, b: true }),
      "true",
      "asks for the result added to the output's old value; Rill accepts only false",
    ],
  ];
  for (const [given, value, detail] of refused) {
    const e = assertThrows(() => readAttrs({}, [given]), AttrError);
    assertEquals([e.attr, e.value, e.message], [
      given.name,
      value,
      `attribute "${given.name}": ${value} ${detail}`,
    ]);
  }
});

Deno.test("readAttrs() reads an extra attribute the schema declares as the op's own", () => {
  assertEquals(
    readAttrs({ data_format: attr.string("NCHW") }, [
      a({ name: "data_format", type: AttrType.STRING, s: "NHWC" }),
    ]),
    { data_format: "NHWC" },
  );
});
