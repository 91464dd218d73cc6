import {
  assertEquals,
  assertStrictEquals,
  assertStringIncludes,
  assertThrows,
} from "@std/assert";
import { AttrType, VarType_Type } from "../../../gen/rill/v1/framework_pb.ts";
import {
  defaultProgram,
  dumpProgram,
  encodeAttrs,
  fillConstant,
  OPS,
  print,
  Program,
  programGuard,
  scale,
  uniformRandom,
} from "../../../mod.ts";
import { runProgram } from "../../_helpers/run_program.ts";

Deno.test("new Program() has one block 0 with parent -1 as its current block", () => {
  const p = new Program();
  assertEquals(p.desc.blocks.length, 1);
  assertEquals([p.globalBlock.idx, p.globalBlock.desc.parentIdx], [0, -1]);
  assertStrictEquals(p.currentBlock, p.globalBlock);
  assertEquals(p.globalBlock.parent, undefined);
});

Deno.test("Program.subBlock() builds a child of the current block and restores it", () => {
  const p = new Program();
  const inner = p.guard(() =>
    p.subBlock(() => {
      assertEquals(p.currentBlock.idx, 1);
      p.subBlock(() => assertEquals(p.currentBlock.desc.parentIdx, 1));
      fillConstant({ shape: [1] });
    })
  );
  assertStrictEquals(p.currentBlock, p.globalBlock);
  assertEquals(inner.idx, 1);
  assertEquals(p.desc.blocks.map((b) => [b.idx, b.parentIdx]), [
    [0, -1],
    [1, 0],
    [2, 1],
  ]);
  assertEquals(p.desc.blocks[1].ops.map((o) => o.type), ["fill_constant"]);
});

Deno.test("Program.subBlock() restores the current block when the build throws", () => {
  const p = new Program();
  assertThrows(() =>
    p.subBlock(() => {
      throw new Error("boom");
    })
  );
  assertStrictEquals(p.currentBlock, p.globalBlock);
});

Deno.test("Program.block() rejects an index out of range", () => {
  assertThrows(() => new Program().block(1), RangeError, "block 1");
});

Deno.test("Program.guard() and programGuard() nest, and defaultProgram() follows them", () => {
  const a = new Program();
  const b = new Program();
  a.guard(() => {
    assertStrictEquals(defaultProgram(), a);
    programGuard(b, () => assertStrictEquals(defaultProgram(), b));
    assertStrictEquals(defaultProgram(), a);
  });
  const outside = defaultProgram();
  assertStrictEquals(defaultProgram(), outside);
});

Deno.test("Block.createVar() declares each kind with its VarType", () => {
  const b = new Program().globalBlock;
  b.createVar({ name: "t", dtype: "int64", shape: [2, -1], persistable: true });
  b.createVar({ name: "u" });
  b.createVar({ name: "c", kind: "channel", dtype: "int32", capacity: 4 });
  b.createVar({ name: "a", kind: "array" });
  b.createVar({ name: "r", kind: "raw" });
  b.createVar({ name: "s", kind: "step_scopes" });
  const [t, u, c, a, r, s] = b.desc.vars;
  assertEquals(t.type?.type, VarType_Type.LOD_TENSOR);
  assertEquals(t.type?.lodTensor?.tensor?.dataType, VarType_Type.INT64);
  assertEquals(t.type?.lodTensor?.tensor?.dims, [2n, -1n]);
  assertEquals(t.persistable, true);
  assertEquals(u.type?.lodTensor, undefined);
  assertEquals(c.type?.type, VarType_Type.CHANNEL);
  assertEquals(
    [c.type?.channel?.dataType, c.type?.channel?.capacity],
    [VarType_Type.INT32, 4n],
  );
  assertEquals(a.type?.type, VarType_Type.LOD_TENSOR_ARRAY);
  assertEquals(r.type?.type, VarType_Type.RAW);
  assertEquals(s.type?.type, VarType_Type.STEP_SCOPES);
  assertEquals(b.findVar("t")?.info, {
    name: "t",
    kind: "tensor",
    dtype: "int64",
    shape: [2, -1],
  });
});

Deno.test("Block.createVar() rejects a name already declared in the block", () => {
  const b = new Program().globalBlock;
  b.createVar({ name: "x" });
  assertThrows(
    () => b.createVar({ name: "x" }),
    TypeError,
    'create variable: "x" already exists in block 0',
  );
});

Deno.test("Block.findVar() looks through the parent chain, nearest first", () => {
  const p = new Program();
  p.globalBlock.createVar({ name: "x" });
  p.globalBlock.createVar({ name: "y" });
  const child = p.createBlock(p.globalBlock);
  child.createVar({ name: "y" });
  const grandchild = p.createBlock(child);
  assertEquals(grandchild.findVar("x")?.block.idx, 0);
  assertEquals(grandchild.findVar("y")?.block.idx, 1);
  assertEquals(p.globalBlock.findVar("y")?.block.idx, 0);
  assertEquals(grandchild.findVar("z"), undefined);
  const sibling = p.createBlock(p.globalBlock);
  assertEquals(sibling.findVar("y")?.block.idx, 0);
});

Deno.test("Block.appendOp() rejects an unknown op, slot or invisible variable", () => {
  const p = new Program();
  const x = p.globalBlock.createVar({ name: "x" });
  const child = p.createBlock(p.globalBlock);
  const local = child.createVar({ name: "local" });
  assertThrows(
    () => p.globalBlock.appendOp({ type: "nope" }),
    TypeError,
    'append op: unknown op "nope"',
  );
  assertThrows(
    () => p.globalBlock.appendOp({ type: "print", inputs: { Z: x } }),
    TypeError,
    'append op print: unknown input slot "Z"',
  );
  assertThrows(
    () => p.globalBlock.appendOp({ type: "print", inputs: { In: local } }),
    TypeError,
    'append op print: variable "local" is not visible from block 0',
  );
  child.appendOp({ type: "print", inputs: { In: x } });
  assertEquals(child.desc.ops.length, 1);
});

Deno.test("encodeAttrs() encodes each value as its schema's attribute type", () => {
  const attrs = encodeAttrs(OPS.get("uniform_random")!, {
    shape: [2, 3],
    dtype: 5,
    min: 0.1,
    seed: 7,
    max: undefined,
  });
  assertEquals(
    attrs.map((a) => [a.name, a.type]),
    [
      ["shape", AttrType.LONGS],
      ["dtype", AttrType.INT],
      ["min", AttrType.FLOAT],
      ["seed", AttrType.INT],
    ],
  );
  assertEquals(attrs[0].longs, [2n, 3n]);
  // FLOAT is float32 on the wire; the builder rounds as the wire would.
  assertEquals(attrs[2].f, Math.fround(0.1));
});

Deno.test("a built program prints the same before and after a save and load", async () => {
  const program = new Program();
  program.guard(() => {
    const x = fillConstant({ shape: [1], dtype: "float64", value: 1 });
    print(scale(x, { scale: 0.1, bias: 1e-9 }), { message: "scaled" });
    print(uniformRandom({ shape: [2], min: 0.1, max: 0.2, seed: 5 }));
  });
  const before = await runProgram(program);
  const after = await runProgram(Program.fromBinary(program.toBinary()));
  assertEquals(after.lines, before.lines);
  assertEquals(
    before.lines[0],
    `scaled ${Math.fround(0.1) + Math.fround(1e-9)}`,
  );
});

Deno.test("Program.uniqueName() counts per prefix", () => {
  const p = new Program();
  assertEquals(
    [p.uniqueName("a"), p.uniqueName("a"), p.uniqueName("b")],
    ["a_0", "a_1", "b_0"],
  );
});

Deno.test("Program.toString() is the dump of its program", () => {
  const program = new Program();
  program.guard(() => fillConstant({ shape: [2], value: 1 }));
  assertEquals(String(program), dumpProgram(program.desc));
  assertStringIncludes(
    String(program),
    "op 0: fill_constant() -> Out=[fill_constant.out_0]",
  );
});
