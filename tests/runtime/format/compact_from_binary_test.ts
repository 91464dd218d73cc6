import {
  create,
  type DescMessage,
  fromBinary,
  type MessageInitShape,
  toBinary,
} from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import {
  StructSchema,
  TimestampSchema,
  ValueSchema,
} from "@bufbuild/protobuf/wkt";
import { assert, assertEquals, assertNotStrictEquals } from "@std/assert";
import {
  AttrType,
  CompatibleInfo_Type,
  OpDesc_AttrSchema,
  OpDescSchema,
  ProgramDescSchema,
  Scalar_Type,
  VarDescSchema,
  VarType_TensorDescSchema,
  VarType_TupleSchema,
  VarType_Type,
  VarTypeSchema,
} from "../../../gen/rill/v1/framework_pb.ts";
import {
  compactFromBinary,
  tryCompactFromBinary,
} from "../../../runtime/format/compact_from_binary.ts";
import { Random } from "../../../scheduler/random.ts";
import { paddle2Program } from "../../_helpers/paddle2_program.ts";
import {
  IGNORE_PADDLE_MODELS,
  PADDLE_MODELS,
} from "../../_helpers/paddle_models.ts";

/**
 * Asserts that `a` is `b` in every observable way: same own keys in the same
 * order, same prototypes, same values (`Object.is`, so NaN and -0 count).
 */
function assertSameTree(a: unknown, b: unknown, path = "$"): void {
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    assertEquals(a, b, path);
    return;
  }
  if (typeof a !== "object" || a === null) {
    assert(Object.is(a, b), `${path}: ${String(a)} !== ${String(b)}`);
    return;
  }
  if (typeof b !== "object" || b === null) {
    throw new Error(`${path}: not an object`);
  }
  assert(
    Object.getPrototypeOf(a) === Object.getPrototypeOf(b),
    `${path}: another prototype`,
  );
  const keys = Object.keys(a);
  assertEquals(keys, Object.keys(b), `${path}: keys`);
  for (const key of keys) {
    assertSameTree(
      (a as Record<string, unknown>)[key],
      (b as Record<string, unknown>)[key],
      `${path}.${key}`,
    );
  }
}

/**
 * Asserts that both decoders give the same message, or the same error.
 * Returns how compactFromBinary did it: `fast`, `protobuf-es`, or `failed`.
 */
function assertSameDecode(
  schema: DescMessage,
  bytes: Uint8Array,
): "fast" | "protobuf-es" | "failed" {
  let expected: unknown;
  try {
    expected = fromBinary(schema, bytes);
  } catch (e) {
    let message = "(decoded)";
    try {
      compactFromBinary(schema, bytes);
    } catch (f) {
      message = (f as Error).message;
    }
    assertEquals(message, (e as Error).message);
    return "failed";
  }
  assertSameTree(compactFromBinary(schema, bytes), expected);
  const fast = tryCompactFromBinary(schema, bytes);
  if (fast === undefined) return "protobuf-es";
  assertSameTree(fast, expected);
  return "fast";
}

const EVERY_FIELD: MessageInitShape<typeof ProgramDescSchema> = {
  version: { version: -7n },
  // Paddle 1.x's and 2.x's program-level tables.
  opCompatibleMap: {
    pair: [{
      opName: "mul",
      compatibleInfo: {
        version: "1.6.0",
        type: CompatibleInfo_Type.PRECISION_CHANGE,
      },
    }],
    defaultRequiredVersion: "1.5.0",
  },
  opVersionMap: {
    pair: [
      { opName: "scale", opVersion: { version: 1 } },
      { opName: "mul", opVersion: {} },
    ],
  },
  blocks: [
    {
      idx: 0,
      parentIdx: -1,
      forwardBlockIdx: 3,
      vars: [
        {
          name: "x",
          persistable: true,
          type: {
            type: VarType_Type.LOD_TENSOR,
            lodTensor: {
              lodLevel: 2,
              tensor: {
                dataType: VarType_Type.INT64,
                dims: [-1n, 0n, 7n, 2n ** 40n, -(2n ** 63n), 2n ** 63n - 1n],
              },
            },
          },
        },
        { name: "rows", type: { selectedRows: { dims: [3n] } } },
        {
          name: "array",
          type: { tensorArray: { tensor: { dataType: 5 }, lodLevel: 1 } },
        },
        {
          name: "reader",
          type: { reader: { lodTensor: [{ lodLevel: 1 }, { lodLevel: 2 }] } },
        },
        {
          name: "ch",
          type: {
            type: VarType_Type.CHANNEL,
            channel: { dataType: 5, capacity: 1n << 33n },
          },
        },
        { name: "t", type: { tuple: { elementType: [5, 3, 0] } } },
        // Paddle 2.x's variable flags, attributes, types and descriptions.
        {
          name: "p2",
          needCheckFeed: true,
          isParameter: true,
          stopGradient: true,
          attrs: [
            { name: "i", type: AttrType.INT, i: -3 },
            { name: "s", type: AttrType.STRING, s: "shard" },
            { name: "ints", type: AttrType.INTS, ints: [0, -1] },
          ],
          type: {
            type: VarType_Type.FP8_E5M2,
            lodTensor: { tensor: { dataType: VarType_Type.BF16 } },
            string: { dataType: VarType_Type.PSTRING, dims: [-1n] },
            strings: { dims: [2n] },
            vocab: { dataType: VarType_Type.VOCAB },
            sparseCoo: { dataType: VarType_Type.COMPLEX128, dims: [4n, 4n] },
            sparseCsr: { dataType: VarType_Type.COMPLEX64 },
          },
        },
        { name: "α→β", type: { type: VarType_Type.RAW } },
        { name: "\uFEFFbom" },
        { name: "n".repeat(65) },
        { name: "" },
      ],
      ops: [
        {
          type: "every_attr",
          isTarget: true,
          inputs: [
            { parameter: "X", arguments: ["x", "x", "α→β"] },
            { parameter: "Empty" },
          ],
          outputs: [{ parameter: "Out", arguments: ["x"] }],
          attrs: [
            { name: "i", type: AttrType.INT, i: -5 },
            { name: "f", type: AttrType.FLOAT, f: -0 },
            { name: "nan", type: AttrType.FLOAT, f: NaN },
            { name: "inf", type: AttrType.FLOAT, f: -Infinity },
            { name: "s", type: AttrType.STRING, s: "héllo" },
            { name: "ints", type: AttrType.INTS, ints: [1, -2, 2 ** 31 - 1] },
            { name: "floats", type: AttrType.FLOATS, floats: [0.5, 1e-3] },
            { name: "strings", type: AttrType.STRINGS, strings: ["a", ""] },
            { name: "b", type: AttrType.BOOLEAN, b: false },
            { name: "bools", type: AttrType.BOOLEANS, bools: [true, false] },
            { name: "block", type: AttrType.BLOCK, blockIdx: 1 },
            { name: "l", type: AttrType.LONG, l: -(2n ** 62n) },
            { name: "blocks", type: AttrType.BLOCKS, blocksIdx: [1, 2] },
            { name: "longs", type: AttrType.LONGS, longs: [-1n, 2n ** 50n] },
            // Paddle 2.x's attribute types.
            {
              name: "float64s",
              type: AttrType.FLOAT64S,
              float64s: [0.1, -0, NaN, 2 ** -1074],
            },
            { name: "var", type: AttrType.VAR, varName: "x" },
            { name: "vars", type: AttrType.VARS, varsName: ["x", "α→β"] },
            { name: "float64", type: AttrType.FLOAT64, float64: 1e300 },
            {
              name: "scalar",
              type: AttrType.SCALAR,
              scalar: { type: Scalar_Type.LONG, i: -(2n ** 63n) },
            },
            {
              name: "scalars",
              type: AttrType.SCALARS,
              scalars: [
                { type: Scalar_Type.BOOLEAN, b: true },
                { type: Scalar_Type.FLOAT64, r: -0.25 },
                { type: Scalar_Type.COMPLEX128, c: { r: 1, i: -2 } },
                {},
              ],
            },
          ],
        },
        { type: "" },
      ],
    },
    { idx: 1, parentIdx: 0 },
  ],
};

Deno.test("compactFromBinary decodes every example as protobuf-es does", async () => {
  const dir = new URL("../../../examples/", import.meta.url);
  let count = 0;
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.name.endsWith(".pb")) continue;
    const bytes = await Deno.readFile(new URL(entry.name, dir));
    assertEquals(
      assertSameDecode(ProgramDescSchema, bytes),
      "fast",
      entry.name,
    );
    count++;
  }
  assert(count >= 9, `${count} examples`);
});

Deno.test("compactFromBinary decodes every field and round-trips", () => {
  const bytes = toBinary(
    ProgramDescSchema,
    create(ProgramDescSchema, EVERY_FIELD),
  );
  assertEquals(assertSameDecode(ProgramDescSchema, bytes), "fast");
  const decoded = compactFromBinary(ProgramDescSchema, bytes);
  assertEquals(toBinary(ProgramDescSchema, decoded), bytes);
  const op = decoded.blocks[0].ops[0];
  assertEquals(op.inputs[0].arguments, ["x", "x", "α→β"]);
  assertEquals(decoded.blocks[0].vars[0].type?.lodTensor?.tensor?.dims, [
    -1n,
    0n,
    7n,
    2n ** 40n,
    -(2n ** 63n),
    2n ** 63n - 1n,
  ]);
  // Unset proto2 fields read their defaults through the prototype.
  assertEquals(decoded.blocks[1].forwardBlockIdx, -1);
  assertEquals(Object.hasOwn(decoded.blocks[1], "forwardBlockIdx"), false);
});

Deno.test("compactFromBinary gives every message its own arrays", () => {
  const bytes = toBinary(
    ProgramDescSchema,
    create(ProgramDescSchema, EVERY_FIELD),
  );
  const block = compactFromBinary(ProgramDescSchema, bytes).blocks[0];
  const [a, b] = block.ops;
  assertNotStrictEquals(a.attrs, b.attrs);
  assertNotStrictEquals(b.inputs, b.outputs);
  b.attrs.push(create(OpDescSchema.nestedMessages[0] as never));
  b.inputs.push({
    $typeName: "rill.v1.OpDesc.Var",
    parameter: "Y",
    arguments: [],
  });
  assertEquals(b.attrs.length, 1);
  assertEquals(block.ops[1].inputs.length, 1);
  assertEquals(a.attrs.length, 20);
  a.inputs[0].arguments.push("y");
  assertEquals(a.inputs[0].arguments, ["x", "x", "α→β", "y"]);
  assertEquals(a.outputs[0].arguments, ["x"]);
});

Deno.test("compactFromBinary reads packed repeated fields", () => {
  const tensor = new BinaryWriter()
    .tag(1, WireType.Varint).int32(VarType_Type.FP32)
    .tag(2, WireType.LengthDelimited).fork().int64(-1n).int64(3n).int64(
      1n << 40n,
    )
    .join()
    .tag(2, WireType.Varint).int64(5n) // unpacked after packed: appended
    .finish();
  assertEquals(assertSameDecode(VarType_TensorDescSchema, tensor), "fast");
  assertEquals(
    compactFromBinary(VarType_TensorDescSchema, tensor).dims,
    [-1n, 3n, 1n << 40n, 5n],
  );

  const attr = new BinaryWriter()
    .tag(1, WireType.LengthDelimited).string("all")
    .tag(6, WireType.LengthDelimited).fork().int32(-1).int32(9).join()
    .tag(7, WireType.LengthDelimited).fork().float(0.25).float(-2).join()
    .tag(11, WireType.LengthDelimited).fork().bool(true).bool(false).join()
    .tag(14, WireType.LengthDelimited).fork().int32(0).int32(2).join()
    .finish();
  assertEquals(assertSameDecode(OpDescSchema.nestedMessages[0], attr), "fast");

  const tuple = new BinaryWriter()
    .tag(1, WireType.LengthDelimited).fork().int32(5).int32(3).join()
    .finish();
  assertEquals(assertSameDecode(VarType_TupleSchema, tuple), "fast");
});

Deno.test("compactFromBinary keeps names whose hashes collide apart", () => {
  // These two names have the same 32-bit hash in the decoder's string table.
  const names = ["v00143zx", "v001bpad", "v00143zx", "v001bpad", "v001bpad"];
  const bytes = toBinary(
    OpDescSchema,
    create(OpDescSchema, {
      type: "v00143zx",
      inputs: [{ parameter: "v001bpad", arguments: names }],
    }),
  );
  assertEquals(assertSameDecode(OpDescSchema, bytes), "fast");
  const op = compactFromBinary(OpDescSchema, bytes);
  assertEquals(op.type, "v00143zx");
  assertEquals(op.inputs[0].parameter, "v001bpad");
  assertEquals(op.inputs[0].arguments, names);
});

Deno.test("compactFromBinary leaves unusual input to protobuf-es", async (t) => {
  const name = new BinaryWriter().tag(1, WireType.LengthDelimited).string("v");
  const cases: [string, DescMessage, Uint8Array][] = [
    [
      "an unknown field",
      VarDescSchema,
      name.tag(99, WireType.Varint).int32(3).finish(),
    ],
    [
      "an unknown value of a closed enum",
      VarTypeSchema,
      new BinaryWriter().tag(1, WireType.Varint).int32(99).finish(),
    ],
    [
      "a message field given twice, to be merged",
      VarTypeSchema,
      new BinaryWriter()
        .tag(3, WireType.LengthDelimited).fork().tag(2, WireType.Varint)
        .int32(1).join()
        .tag(3, WireType.LengthDelimited).fork().tag(
          1,
          WireType.LengthDelimited,
        )
        .fork().join().join()
        .finish(),
    ],
    [
      "a string sent as a varint",
      VarDescSchema,
      new BinaryWriter().tag(1, WireType.Varint).int32(1).finish(),
    ],
    [
      "a group",
      VarDescSchema,
      new BinaryWriter().tag(7, WireType.StartGroup).tag(7, WireType.EndGroup)
        .finish(),
    ],
    ["a truncated varint", VarDescSchema, new Uint8Array([0x18, 0xff])],
    [
      "a length past the end",
      VarDescSchema,
      new Uint8Array([0x0a, 0x05, 0x61]),
    ],
    ["an over-long varint", VarDescSchema, new Uint8Array(12).fill(0xff)],
  ];
  for (const [what, schema, bytes] of cases) {
    await t.step(what, () => {
      assertEquals(assertSameDecode(schema, bytes) === "fast", false);
    });
  }
});

Deno.test("compactFromBinary fails like protobuf-es on damaged programs", () => {
  const bytes = toBinary(
    ProgramDescSchema,
    create(ProgramDescSchema, EVERY_FIELD),
  );
  // Every truncation.
  for (let n = 0; n < bytes.length; n++) {
    assertSameDecode(ProgramDescSchema, bytes.subarray(0, n));
  }
  // Seeded random damage: flipped bytes, and random bytes.
  const random = new Random(7);
  const below = (n: number) => random.nextInt(n);
  const outcomes = { fast: 0, "protobuf-es": 0, failed: 0 };
  for (let trial = 0; trial < 1000; trial++) {
    const damaged = bytes.slice();
    for (let k = 0; k <= below(3); k++) {
      damaged[below(damaged.length)] = below(256);
    }
    outcomes[assertSameDecode(ProgramDescSchema, damaged)]++;
  }
  for (let trial = 0; trial < 300; trial++) {
    const noise = Uint8Array.from({ length: below(64) }, () => below(256));
    assertSameDecode(ProgramDescSchema, noise);
  }
  // Every outcome was exercised.
  const counts = Object.values(outcomes);
  assert(counts.every((n) => n > 0), JSON.stringify(outcomes));
});

Deno.test("compactFromBinary leaves other kinds of schema to protobuf-es", async (t) => {
  const cases: [string, DescMessage, Uint8Array][] = [
    [
      "proto3 implicit presence",
      TimestampSchema,
      toBinary(TimestampSchema, create(TimestampSchema, { seconds: 5n })),
    ],
    [
      "a map",
      StructSchema,
      toBinary(
        StructSchema,
        create(StructSchema, {
          fields: { a: { kind: { case: "numberValue", value: 1 } } },
        }),
      ),
    ],
    [
      "a oneof",
      ValueSchema,
      toBinary(
        ValueSchema,
        create(ValueSchema, { kind: { case: "stringValue", value: "s" } }),
      ),
    ],
  ];
  for (const [what, schema, bytes] of cases) {
    await t.step(what, () => {
      assertEquals(assertSameDecode(schema, bytes), "protobuf-es");
    });
  }
});

Deno.test("compactFromBinary reads Paddle 2.x's fields, by Paddle's numbers, on the fast path", () => {
  assertEquals(
    assertSameDecode(
      ProgramDescSchema,
      toBinary(ProgramDescSchema, paddle2Program()),
    ),
    "fast",
  );
  // Written field by field with the numbers of Paddle's framework.proto,
  // repeated scalars both packed and one tag each, as encoders differ.
  const attr = new BinaryWriter()
    .tag(1, WireType.LengthDelimited).string("a")
    .tag(2, WireType.Varint).int32(AttrType.SCALARS)
    .tag(16, WireType.LengthDelimited).fork().double(0.5).double(-1).join()
    .tag(16, WireType.Bit64).double(2)
    .tag(17, WireType.LengthDelimited).string("v")
    .tag(18, WireType.LengthDelimited).string("v1")
    .tag(18, WireType.LengthDelimited).string("v2")
    .tag(19, WireType.Bit64).double(0.1)
    .tag(20, WireType.LengthDelimited).fork()
    .tag(1, WireType.Varint).int32(Scalar_Type.LONG)
    .tag(3, WireType.Varint).int64(-5n).join()
    .tag(21, WireType.LengthDelimited).fork()
    .tag(1, WireType.Varint).int32(Scalar_Type.BOOLEAN)
    .tag(2, WireType.Varint).bool(true).join()
    .tag(21, WireType.LengthDelimited).fork()
    .tag(1, WireType.Varint).int32(Scalar_Type.COMPLEX128)
    .tag(5, WireType.LengthDelimited).fork()
    .tag(1, WireType.Bit64).double(1)
    .tag(2, WireType.Bit64).double(-2).join().join()
    .finish();
  assertEquals(assertSameDecode(OpDesc_AttrSchema, attr), "fast");
  const a = compactFromBinary(OpDesc_AttrSchema, attr);
  assertEquals(
    [a.float64s, a.varName, a.varsName, a.float64],
    [[0.5, -1, 2], "v", ["v1", "v2"], 0.1],
  );
  assertEquals([a.scalar?.type, a.scalar?.i], [Scalar_Type.LONG, -5n]);
  assertEquals(a.scalars.map((s) => s.type), [
    Scalar_Type.BOOLEAN,
    Scalar_Type.COMPLEX128,
  ]);
  assertEquals([a.scalars[1].c?.r, a.scalars[1].c?.i], [1, -2]);

  const varDesc = new BinaryWriter()
    .tag(1, WireType.LengthDelimited).string("w")
    .tag(4, WireType.Varint).bool(true)
    .tag(5, WireType.Varint).bool(true)
    .tag(6, WireType.Varint).bool(true)
    .tag(7, WireType.LengthDelimited).fork()
    .tag(1, WireType.LengthDelimited).string("n")
    .tag(2, WireType.Varint).int32(AttrType.INTS)
    .tag(5, WireType.Varint).int32(3).join()
    .finish();
  assertEquals(assertSameDecode(VarDescSchema, varDesc), "fast");
  const v = compactFromBinary(VarDescSchema, varDesc);
  assertEquals([v.needCheckFeed, v.isParameter, v.stopGradient], [
    true,
    true,
    true,
  ]);
  assertEquals(v.attrs[0].ints, [3]);

  const program = new BinaryWriter()
    .tag(1, WireType.LengthDelimited).fork().join()
    .tag(3, WireType.LengthDelimited).fork()
    .tag(1, WireType.LengthDelimited).fork()
    .tag(1, WireType.LengthDelimited).string("mul").join()
    .tag(2, WireType.LengthDelimited).string("1.5.0").join()
    .tag(5, WireType.LengthDelimited).fork()
    .tag(1, WireType.LengthDelimited).fork()
    .tag(1, WireType.LengthDelimited).string("scale")
    .tag(2, WireType.LengthDelimited).fork()
    .tag(1, WireType.Varint).int32(2).join().join().join()
    .finish();
  assertEquals(assertSameDecode(ProgramDescSchema, program), "fast");
  const p = compactFromBinary(ProgramDescSchema, program);
  assertEquals(p.opCompatibleMap?.pair[0].opName, "mul");
  assertEquals(p.opCompatibleMap?.defaultRequiredVersion, "1.5.0");
  assertEquals(p.opVersionMap?.pair[0].opVersion?.version, 2);
});

Deno.test("compactFromBinary reads the VarType.Type values Paddle added after 2018 on the fast path", () => {
  for (let code = 22; code <= 33; code++) {
    const bytes = new BinaryWriter().tag(1, WireType.Varint).int32(code)
      .finish();
    assertEquals(assertSameDecode(VarTypeSchema, bytes), "fast", `${code}`);
    assertEquals(compactFromBinary(VarTypeSchema, bytes).type, code);
  }
  const past = new BinaryWriter().tag(1, WireType.Varint).int32(34).finish();
  assertEquals(assertSameDecode(VarTypeSchema, past), "protobuf-es");
});

Deno.test({
  name: "compactFromBinary decodes every real Paddle model as protobuf-es does",
  ignore: IGNORE_PADDLE_MODELS,
  async fn() {
    let count = 0;
    for await (const folder of Deno.readDir(PADDLE_MODELS)) {
      if (!folder.isDirectory) continue;
      for await (
        const file of Deno.readDir(`${PADDLE_MODELS}/${folder.name}`)
      ) {
        if (!/\.pdmodel$|^__model__$/.test(file.name)) continue;
        const where = `${folder.name}/${file.name}`;
        const bytes = await Deno.readFile(`${PADDLE_MODELS}/${where}`);
        assertEquals(assertSameDecode(ProgramDescSchema, bytes), "fast", where);
        assertEquals(
          toBinary(
            ProgramDescSchema,
            compactFromBinary(ProgramDescSchema, bytes),
          ),
          toBinary(ProgramDescSchema, fromBinary(ProgramDescSchema, bytes)),
          where,
        );
        count++;
      }
    }
    assert(count >= 9, `${count} models`);
  },
});

/** A random program: many names, every attribute kind, dims of every size. */
function randomProgram(
  random: Random,
): MessageInitShape<typeof ProgramDescSchema> {
  const below = (n: number) => random.nextInt(n);
  const pick = <T>(items: readonly T[]): T => items[below(items.length)];
  const names = Array.from(
    { length: 1 + below(600) },
    (_, i) => pick(["v", "x.out_", "tmp_", "é"]) + i.toString(36 - below(20)),
  );
  const dims = [
    -2n,
    -1n,
    0n,
    1n,
    1021n,
    1022n,
    1023n,
    1024n,
    2n ** 32n - 1n,
    2n ** 32n,
    -(2n ** 32n),
    2n ** 63n - 1n,
    -(2n ** 63n),
  ];
  const someNames = () => Array.from({ length: below(4) }, () => pick(names));
  const attr = (name: string) => {
    switch (below(8)) {
      case 0:
        return { name, type: AttrType.INT, i: below(2000) - 1000 };
      case 1:
        return {
          name,
          type: AttrType.FLOAT,
          f: Math.fround(random.nextFloat() * 10 - 5),
        };
      case 2:
        return { name, type: AttrType.STRING, s: pick(names) };
      case 3:
        return {
          name,
          type: AttrType.LONGS,
          longs: Array.from({ length: below(5) }, () => pick(dims)),
        };
      case 4:
        return { name, type: AttrType.BOOLEAN, b: below(2) === 1 };
      case 5:
        return { name, type: AttrType.STRINGS, strings: someNames() };
      case 6:
        return {
          name,
          type: AttrType.FLOAT64S,
          float64s: [random.nextFloat(), -0],
        };
      default:
        return { name, type: AttrType.LONG, l: pick(dims) };
    }
  };
  const blocks = Array.from({ length: 1 + below(3) }, (_, idx) => ({
    idx,
    parentIdx: idx - 1,
    vars: names.filter(() => below(3) === 0).map((name) => ({
      name,
      persistable: below(2) === 1,
      type: {
        type: VarType_Type.LOD_TENSOR,
        lodTensor: {
          tensor: {
            dataType: pick([VarType_Type.FP32, VarType_Type.INT64]),
            dims: Array.from({ length: below(4) }, () => pick(dims)),
          },
        },
      },
    })),
    ops: Array.from({ length: below(200) }, () => ({
      type: pick([
        "elementwise_add",
        "fill_constant",
        "while",
        "op_" + below(50),
      ]),
      inputs: [{ parameter: "X", arguments: someNames() }, {
        parameter: "Y",
        arguments: someNames(),
      }],
      outputs: [{ parameter: "Out", arguments: someNames() }],
      attrs: Array.from(
        { length: below(4) },
        (_, k) => attr(`a${k}_${below(9)}`),
      ),
    })),
  }));
  return { blocks };
}

Deno.test("compactFromBinary decodes random programs as protobuf-es does", () => {
  const random = new Random(23);
  for (let trial = 0; trial < 60; trial++) {
    const bytes = toBinary(
      ProgramDescSchema,
      create(ProgramDescSchema, randomProgram(random)),
    );
    assertEquals(
      assertSameDecode(ProgramDescSchema, bytes),
      "fast",
      `trial ${trial}`,
    );
    assertEquals(
      toBinary(ProgramDescSchema, compactFromBinary(ProgramDescSchema, bytes)),
      bytes,
      `trial ${trial}`,
    );
  }
});

Deno.test("compactFromBinary leaves every message to protobuf-es where code from strings is refused", async () => {
  const module = new URL(
    "../../../runtime/format/compact_from_binary.ts",
    import.meta.url,
  );
  const schema = new URL(
    "../../../gen/rill/v1/framework_pb.ts",
    import.meta.url,
  );
  const script = `
    import { compactFromBinary, tryCompactFromBinary } from "${module}";
    import { ProgramDescSchema } from "${schema}";
    const bytes = new Uint8Array([0x0a, 0x02, 0x10, 0x7f]);
    console.log(tryCompactFromBinary(ProgramDescSchema, bytes) === undefined,
      compactFromBinary(ProgramDescSchema, bytes).blocks[0].parentIdx);`;
  const run = (flags: string[]) =>
    new Deno.Command(Deno.execPath(), {
      args: ["eval", ...flags, script],
      stdout: "piped",
      stderr: "inherit",
    }).output();
  const refused = await run([
    "--v8-flags=--disallow-code-generation-from-strings",
  ]);
  assert(refused.success);
  assertEquals(new TextDecoder().decode(refused.stdout).trim(), "true 127");
  const allowed = await run([]);
  assertEquals(new TextDecoder().decode(allowed.stdout).trim(), "false 127");
});
