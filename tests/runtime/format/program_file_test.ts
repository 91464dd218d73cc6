import { create, equals } from "@bufbuild/protobuf";
import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertRejects,
  assertStringIncludes,
  assertThrows,
} from "@std/assert";
import { join } from "@std/path";
import {
  AttrType,
  ProgramDescSchema,
  VarType_Type,
} from "../../../gen/rill/v1/framework_pb.ts";
import {
  appendLayer,
  assignValue,
  createArray,
  decodeProgram,
  encodeProgram,
  fillConstant,
  forRange,
  ifElse,
  lessThan,
  print,
  Program,
  ProgramError,
  readProgramFile,
  uniformRandom,
  writeProgramFile,
} from "../../../mod.ts";
import { buildProgram, runProgram } from "../../_helpers/run_program.ts";
import { paddle2Program } from "../../_helpers/paddle2_program.ts";
import { pirAffineText } from "../../_helpers/pir_json.ts";

const MULT_PB = new URL("../../../examples/mult.pb", import.meta.url);

/** A program that uses every attribute type and exact int64 values. */
function richProgram(): Program {
  return buildProgram(() => {
    const big = fillConstant({
      shape: [1],
      dtype: "int64",
      value: 2n ** 62n + 1n,
    });
    const x = assignValue([0.5, -2, 3.25, 1e-3], { shape: [2, 2] });
    const flags = assignValue([true, false], { dtype: "bool" });
    const r = uniformRandom({ shape: [2], min: 0, max: 1, seed: 3 });
    const arr = createArray();
    appendLayer(
      "write_to_array",
      {
        X: x,
        I: fillConstant({ shape: [1], dtype: "int64", value: 0 }),
      },
      {},
      { Out: arr },
    );
    forRange(2, (i) => {
      ifElse(
        lessThan(i, fillConstant({ shape: [1], dtype: "int64", value: 1 })),
        () => print(i, { message: 'first "pass" ✓' }),
        () => print(i, { message: "later" }),
      );
    });
    print(big, { message: "big" });
    print(x, { message: "x" });
    print(flags, { message: "flags" });
    print(arr, { message: "arr" });
    print(r, { message: "r" });
  })[0];
}

async function tempDir(): Promise<string> {
  return await Deno.makeTempDir({ prefix: "rill_program_file_test_" });
}

function assertNotAProgram(bytes: Uint8Array, path = "p.pb"): ProgramError {
  const e = assertThrows(() => decodeProgram(bytes, path));
  assertInstanceOf(e, ProgramError);
  assertEquals(e.where, { file: path });
  assert(
    e.message.startsWith(`${path}: not a ProgramDesc: `),
    e.message,
  );
  assert(!e.message.includes("\n"), e.message);
  return e;
}

Deno.test("decodeProgram() rejects random bytes", () => {
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0xff;
  assertNotAProgram(new Uint8Array([0xde, 0xad, 0xbe, 0xef, 0x01, 0x02]));
  for (const n of [7, 64, 1000]) {
    assertNotAProgram(Uint8Array.from({ length: n }, next));
  }
});

Deno.test("decodeProgram() rejects every truncation of a valid program", async () => {
  const bytes = await Deno.readFile(MULT_PB);
  decodeProgram(bytes, "mult.pb");
  for (let n = 1; n < bytes.length; n++) {
    assertNotAProgram(bytes.subarray(0, n), "mult.pb");
  }
});

Deno.test("decodeProgram() rejects an empty file", () => {
  const e = assertNotAProgram(new Uint8Array());
  assertEquals(e.message, "p.pb: not a ProgramDesc: the file is empty");
});

Deno.test("decodeProgram() rejects a text file", () => {
  const text = new TextEncoder();
  assertNotAProgram(text.encode("hello world, this is not a program\n"));
});

Deno.test("decodeProgram() reads JSON as a PIR program and names what is missing", () => {
  const e = assertThrows(() =>
    decodeProgram(new TextEncoder().encode('{"blocks": [{"idx": 0}]}'), "p.pb")
  );
  assertInstanceOf(e, ProgramError);
  assertEquals(e.where, { file: "p.pb" });
  assertEquals(
    e.message,
    'p.pb: not a PIR program: "base_code" is missing',
  );
});

Deno.test("decodeProgram() rejects a valid message that has no blocks", () => {
  // Field 4 (version), an empty message: a ProgramDesc with no blocks.
  const e = assertNotAProgram(new Uint8Array([0x22, 0x00]));
  assertEquals(e.message, "p.pb: not a ProgramDesc: it has no blocks");
});

Deno.test("decodeProgram() rejects a .txtpb that is not text format", () => {
  const text = new TextEncoder();
  const unknown = assertThrows(() =>
    decodeProgram(text.encode("bogus: 1"), "p.txtpb")
  );
  assertInstanceOf(unknown, ProgramError);
  assertEquals(unknown.where, { file: "p.txtpb", line: 1, column: 1 });
  assertStringIncludes(unknown.message, '"bogus"');
  // Binary, read as text: not UTF-8, and where.
  const binary = assertThrows(() =>
    decodeProgram(Deno.readFileSync(MULT_PB), "p.txtpb")
  );
  assertInstanceOf(binary, ProgramError);
  assertStringIncludes(
    binary.message,
    "not a ProgramDesc: not UTF-8 text (byte 0x",
  );
  assertEquals(
    assertNotAProgram(new Uint8Array(), "p.txtpb").message,
    "p.txtpb: not a ProgramDesc: the file is empty",
  );
});

Deno.test("decodeProgram() names the line, column and byte of a .txtpb's first byte that is not UTF-8", () => {
  const bytes = new Uint8Array([
    ...new TextEncoder().encode('blocks {\n  vars { name: "\uFFFDa'),
    0xff,
    ...new TextEncoder().encode('" }\n}\n'),
  ]);
  const e = assertThrows(() => decodeProgram(bytes, "p.txtpb"));
  assertInstanceOf(e, ProgramError);
  // The spelled-out U+FFFD before it is text, not the fault.
  assertEquals(e.where, { file: "p.txtpb", line: 2, column: 19 });
  assertEquals(
    e.message,
    "p.txtpb:2:19: not a ProgramDesc: not UTF-8 text (byte 0xff at byte 29)",
  );
});

Deno.test("decodeProgram() names the line and column of a .txtpb error", () => {
  const cases: [text: string, message: string][] = [
    [
      "blocks { idx: ",
      "p.txtpb:1:15: not a ProgramDesc: expected an integer, got end of input",
    ],
    [
      'blocks {\n  idx: 0\n  vars {\n    nme: "x"\n  }\n}\n',
      'p.txtpb:4:5: not a ProgramDesc: unknown field "nme" for message rill.v1.VarDesc',
    ],
    [
      'blocks {\n  vars { name: "x" persistable: maybe }\n}',
      'p.txtpb:2:33: not a ProgramDesc: expected a bool, got "maybe"',
    ],
    [
      'blocks {\n  ops { type: "print\n" }\n}',
      "p.txtpb:2:15: not a ProgramDesc: invalid U+000A in string",
    ],
    [
      "blocks { idx: 0 } }",
      'p.txtpb:1:19: not a ProgramDesc: expected a field name, got "}"',
    ],
    [
      "blocks { idx: 0 idx: 1 }",
      'p.txtpb:1:17: not a ProgramDesc: non-repeated field "idx" is repeated',
    ],
    [
      "blocks {\n  idx: 0\n",
      'p.txtpb:3:1: not a ProgramDesc: unexpected end of input, expected "}"',
    ],
  ];
  for (const [text, message] of cases) {
    const e = assertThrows(() =>
      decodeProgram(new TextEncoder().encode(text), "p.txtpb")
    );
    assertInstanceOf(e, ProgramError);
    assertEquals(e.message, message);
  }
});

Deno.test("readProgramFile() rejects a missing file and a directory", async () => {
  const dir = await tempDir();
  const missing = join(dir, "missing.pb");
  const e = await assertRejects(() => readProgramFile(missing), ProgramError);
  assertEquals(e.message, `${missing}: cannot read program: no such file`);
  assertEquals(e.where, { file: missing });
  const d = await assertRejects(() => readProgramFile(dir), ProgramError);
  assertEquals(d.message, `${dir}: cannot read program: is a directory`);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("encodeProgram() and decodeProgram() round-trip binary and text format", () => {
  const desc = richProgram().desc;
  for (const path of ["p.pb", "p.txtpb", "p.textproto"]) {
    const back = decodeProgram(encodeProgram(desc, path), path);
    assert(equals(ProgramDescSchema, back, desc), path);
  }
});

Deno.test("encodeProgram() writes protobuf text format for .txtpb", () => {
  const text = new TextDecoder().decode(
    encodeProgram(richProgram().desc, "p.txtpb"),
  );
  assert(text.startsWith("blocks: {"), text.slice(0, 40));
  assertStringIncludes(text, 's: "4611686018427387905"');
  assertStringIncludes(text, "type: LOD_TENSOR_ARRAY");
});

Deno.test("decodeProgram() reads hand-written text format", async () => {
  const text = `
    # a comment
    blocks {
      idx: 0
      parent_idx: -1
      vars { name: "x" type { type: LOD_TENSOR lod_tensor { tensor { data_type: INT64 dims: 1 } } } }
      ops {
        type: "fill_constant"
        outputs { parameter: "Out" arguments: "x" }
        attrs { name: "shape" type: LONGS longs: 1 }
        attrs { name: "dtype" type: INT i: 3 }
        attrs { name: "str_value" type: STRING s: "9007199254740993" }
      }
      ops {
        type: "print"
        inputs { parameter: "In" arguments: "x" }
        attrs { name: "message" type: STRING s: "x" }
      }
    }`;
  const desc = decodeProgram(new TextEncoder().encode(text), "p.txtpb");
  assertEquals(desc.blocks[0].vars[0].type?.lodTensor?.tensor?.dims, [1n]);
  assertEquals((await runProgram(desc)).lines, ["x 9007199254740993"]);
});

Deno.test("encodeProgram() and decodeProgram() round-trip a Paddle 2.x program in binary and text format", () => {
  const desc = paddle2Program();
  for (const path of ["p.pb", "p.txtpb"]) {
    const back = decodeProgram(encodeProgram(desc, path), path);
    assert(equals(ProgramDescSchema, back, desc), path);
  }
  const text = new TextDecoder().decode(encodeProgram(desc, "p.txtpb"));
  assertStringIncludes(text, "type: FLOAT64");
  assertStringIncludes(text, "float64: 1.5");
  assertStringIncludes(text, "scalar: {");
  assertStringIncludes(text, "need_check_feed: true");
  assertStringIncludes(text, "op_version_map: {");
});

Deno.test("decodeProgram() reads Paddle 2.x fields in hand-written text format", async () => {
  const text = `
    version { version: 2006000 }
    op_version_map { pair { op_name: "scale" op_version { version: 1 } } }
    blocks {
      idx: 0
      parent_idx: -1
      vars {
        name: "x" need_check_feed: true stop_gradient: true
        type { type: LOD_TENSOR lod_tensor { tensor { data_type: FP32 dims: 2 } } }
        attrs { name: "n" type: INTS ints: [1, 2] }
      }
      vars { name: "b" type { type: LOD_TENSOR lod_tensor { tensor { data_type: BF16 } } } }
      ops {
        type: "fill_constant"
        outputs { parameter: "Out" arguments: "x" }
        attrs { name: "shape" type: LONGS longs: 2 }
        attrs { name: "value" type: FLOAT64 float64: 3 }
      }
      ops {
        type: "scale"
        inputs { parameter: "X" arguments: "x" }
        outputs { parameter: "Out" arguments: "x" }
        attrs { name: "scale" type: SCALAR scalar { type: FLOAT64 r: 0.5 } }
        attrs { name: "bias" type: SCALAR scalar { type: LONG i: -1 } }
        attrs { name: "op_callstack" type: STRINGS strings: ["a", "b"] }
      }
      ops {
        type: "print"
        is_target: true
        inputs { parameter: "In" arguments: "x" }
        attrs { name: "message" type: STRING s: "x" }
      }
    }`;
  const desc = decodeProgram(new TextEncoder().encode(text), "p.txtpb");
  const [x, b] = desc.blocks[0].vars;
  assertEquals([x.needCheckFeed, x.stopGradient, x.attrs[0].ints], [
    true,
    true,
    [1, 2],
  ]);
  assertEquals(b.type?.lodTensor?.tensor?.dataType, VarType_Type.BF16);
  assertEquals(desc.opVersionMap?.pair[0].opVersion?.version, 1);
  // x = 0.5 * 3 - 1
  assertEquals((await runProgram(desc)).lines, ["x [0.5, 0.5]"]);
});

Deno.test("Program.save() and Program.load() round-trip a .pb byte for byte", async () => {
  const dir = await tempDir();
  const program = richProgram();
  const path = join(dir, "rich.pb");
  await program.save(path);
  assertEquals(await Deno.readFile(path), program.toBinary());
  const loaded = await Program.load(path);
  assertEquals(loaded.toBinary(), program.toBinary());
  const [a, b] = await Promise.all([runProgram(program), runProgram(loaded)]);
  assertEquals(b.lines, a.lines);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("Program.save() and Program.load() round-trip a .txtpb", async () => {
  const dir = await tempDir();
  const program = richProgram();
  const path = join(dir, "rich.txtpb");
  await program.save(path);
  const text = await Deno.readTextFile(path);
  assert(text.startsWith("blocks: {"));
  const loaded = await Program.load(path);
  assert(equals(ProgramDescSchema, loaded.desc, program.desc));
  assertEquals(loaded.toBinary(), program.toBinary());
  const [a, b] = await Promise.all([runProgram(program), runProgram(loaded)]);
  assertEquals(a.lines, [
    'first "pass" ✓ 0',
    "later 1",
    "big 4611686018427387905",
    "x [[0.5, -2], [3.25, 0.001]]",
    "flags [true, false]",
    "arr [[[0.5, -2], [3.25, 0.001]]]",
    a.lines[6],
  ]);
  assertEquals(b.lines, a.lines);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("writeProgramFile() and readProgramFile() keep values a builder cannot make", async () => {
  const dir = await tempDir();
  const desc = create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      forwardBlockIdx: 7,
      vars: [{
        name: "x",
        persistable: true,
        type: {
          type: VarType_Type.LOD_TENSOR,
          lodTensor: {
            tensor: { dataType: VarType_Type.INT64, dims: [-1n, 2n ** 40n] },
            lodLevel: 2,
          },
        },
      }],
      ops: [{
        type: "custom",
        isTarget: true,
        attrs: [
          { name: "l", type: AttrType.LONG, l: -(2n ** 63n) },
          { name: "longs", type: AttrType.LONGS, longs: [2n ** 63n - 1n] },
          { name: "f", type: AttrType.FLOAT, f: Math.fround(0.1) },
          { name: "s", type: AttrType.STRING, s: "a\nb\u0000c" },
        ],
      }],
    }],
    version: { version: 3n },
  });
  for (const name of ["odd.pb", "odd.txtpb"]) {
    const path = join(dir, name);
    await writeProgramFile(path, desc);
    assert(equals(ProgramDescSchema, await readProgramFile(path), desc), name);
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("Program.fromBinary() reads what toBinary() wrote", async () => {
  const program = richProgram();
  const back = Program.fromBinary(program.toBinary());
  assert(equals(ProgramDescSchema, back.desc, program.desc));
  const [a, b] = await Promise.all([runProgram(program), runProgram(back)]);
  assertEquals(b.lines, a.lines);
});

Deno.test("readProgramFile() reads a PIR program by its .json name or by its leading {", async () => {
  const dir = await Deno.makeTempDir();
  try {
    for (const name of ["net.json", "net.pir", "net.pb"]) {
      await Deno.writeTextFile(`${dir}/${name}`, `\n ${pirAffineText()}`);
      const desc = await readProgramFile(`${dir}/${name}`);
      assertEquals(desc.blocks[0].ops.map((o) => o.type), [
        "feed",
        "elementwise_add",
        "elementwise_add",
        "fetch",
      ]);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
