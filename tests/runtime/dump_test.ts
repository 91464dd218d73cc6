import { create } from "@bufbuild/protobuf";
import { assertEquals, assertStringIncludes } from "@std/assert";
import { AttrType, ProgramDescSchema } from "../../gen/rill/v1/framework_pb.ts";
import {
  appendLayer,
  cast,
  dumpProgram,
  fillConstant,
  go,
  increment,
  lessThan,
  makeChannel,
  parallelFor,
  print,
  Program,
  select,
  send,
  uniformRandom,
  whileLoop,
} from "../../mod.ts";

function sampleProgram(): Program {
  const p = new Program();
  p.guard(() => {
    const b = p.globalBlock;
    const x = b.createVar({
      name: "x",
      dtype: "int64",
      shape: [2, -1],
      persistable: true,
    });
    const ch = b.createVar({
      name: "ch",
      kind: "channel",
      dtype: "int64",
      capacity: 3,
    });
    b.createVar({ name: "a", kind: "array", dtype: "float32" });
    b.createVar({ name: "r", kind: "raw" });
    const u = b.createVar({ name: "u" });
    fillConstant({ shape: [2, 3], dtype: "int64", value: 2n ** 60n, out: x });
    uniformRandom({ shape: [2], min: 0.1, max: 1, seed: 3, out: u });
    cast(x, "float16", { out: u });
    print(x, { message: 'say "hi"' });
    whileLoop(lessThan(x, x), () => print(x));
    select((s) => {
      s.default();
      s.recv(ch);
    });
    appendLayer("assign_value", {}, {
      shape: [2],
      dtype: 0,
      bool_values: [true, false],
    }, { Out: u });
  });
  return p;
}

Deno.test("dumpProgram() lists each block's variables with kinds, dtypes and shapes", () => {
  const lines = dumpProgram(sampleProgram().desc).split("\n");
  assertEquals(lines.slice(0, 6), [
    "block 0 (parent -1):",
    "  var x LOD_TENSOR int64 [2, -1] persistable",
    "  var ch CHANNEL int64 capacity 3",
    "  var a LOD_TENSOR_ARRAY",
    "  var r RAW",
    "  var u LOD_TENSOR",
  ]);
  assertEquals(lines.filter((l) => l.startsWith("block ")), [
    "block 0 (parent -1):",
    "block 1 (parent 0):",
    "block 2 (parent 0):",
    "block 3 (parent 0):",
  ]);
});

Deno.test("dumpProgram() shows ops with slots and every kind of attribute", () => {
  const lines = dumpProgram(sampleProgram().desc).split("\n");
  const ops = lines.filter((l) => l.startsWith("  op "));
  assertEquals(ops, [
    '  op 0: fill_constant() -> Out=[x] {shape=[2, 3], dtype=INT64(3), value=1152921500000000000, str_value="1152921504606846976"}',
    "  op 1: uniform_random() -> Out=[u] {shape=[2], dtype=FP32(5), min=0.1, max=1, seed=3}",
    "  op 2: cast(X=[x]) -> Out=[u] {out_dtype=FP16(4)}",
    '  op 3: print(In=[x]) {message="say \\"hi\\""}',
    "  op 4: less_than(X=[x], Y=[x]) -> Out=[less_than.out_0]",
    "  op 5: while(X=[x], Condition=[less_than.out_0]) -> StepScopes=[while.step_scopes_0] {sub_block=block 1}",
    '  op 6: select(X=[ch]) {cases=["default,,,", "recv,ch,select.value_0,select.ok_0"], sub_blocks=[block 2, block 3]}',
    "  op 7: assign_value() -> Out=[u] {shape=[2], dtype=BOOL(0), bool_values=[true, false]}",
    "  op 0: print(In=[x])",
  ]);
});

Deno.test("dumpProgram() shows the README's while-loop example", async () => {
  const program = await Program.load(
    new URL("../../examples/while_loop.pb", import.meta.url).pathname,
  );
  const text = dumpProgram(program.desc);
  assertStringIncludes(
    text,
    "  var fill_constant.out_0 LOD_TENSOR int64 [1]\n",
  );
  assertStringIncludes(
    text,
    "  op 0: fill_constant() -> Out=[fill_constant.out_0] {shape=[1], dtype=INT64(3), value=1}\n",
  );
  assertStringIncludes(
    text,
    '  op 1: print(In=[fill_constant.out_2]) {message="sum"}\n',
  );
  assertStringIncludes(text, "\nblock 1 (parent 0):\n");
});

Deno.test("dumpProgram() prints a program that does not validate", () => {
  const desc = create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      vars: [{ name: "v" }],
      ops: [{
        type: "no_such_op",
        inputs: [{ parameter: "B", arguments: ["v"] }, {
          parameter: "A",
          arguments: ["w", "v"],
        }],
        attrs: [
          { name: "n", type: 9, l: -(2n ** 63n) },
          { name: "z", type: 99 as AttrType },
        ],
      }],
    }],
  });
  assertEquals(
    dumpProgram(desc),
    "block 0 (parent -1):\n" +
      "  var v LOD_TENSOR\n" +
      "  op 0: no_such_op(B=[v], A=[w, v]) {n=-9223372036854775808, z=?(99)}\n",
  );
});

Deno.test("dumpProgram() quotes names and strings that are not plain, one line each", () => {
  const desc = create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      vars: [{ name: "a b" }, { name: "x@GRAD" }, { name: "" }],
      ops: [{
        type: "pri\nnt",
        inputs: [{ parameter: "In", arguments: ["a b", "x@GRAD", 'q"\u001b'] }],
        attrs: [
          { name: "message", type: AttrType.STRING, s: "line\nbreak\u2028" },
          { name: "s p", type: AttrType.STRINGS, strings: ["\\"] },
        ],
      }],
    }],
  });
  assertEquals(
    dumpProgram(desc),
    "block 0 (parent -1):\n" +
      '  var "a b" LOD_TENSOR\n' +
      "  var x@GRAD LOD_TENSOR\n" +
      '  var "" LOD_TENSOR\n' +
      '  op 0: "pri\\nnt"(In=["a b", x@GRAD, "q\\"\\u001b"]) ' +
      '{message="line\\nbreak\\u2028", "s p"=["\\\\"]}\n',
  );
});

Deno.test("dumpProgram() says in a go or parallel_for block's header where it may run", () => {
  const p = new Program();
  p.guard(() => {
    const b = p.globalBlock;
    const total = b.createVar({ name: "total", dtype: "float32", shape: [1] });
    const odd = b.createVar({ name: 'n "1"', dtype: "float32", shape: [1] });
    fillConstant({ shape: [1], value: 0, out: total });
    fillConstant({ shape: [1], value: 0, out: odd });
    const ch = makeChannel({ name: "ch", capacity: 2 });
    go(() => send(ch, fillConstant({ shape: [1], value: 1 })));
    parallelFor(2, () => increment(total));
    go(() => send(ch, odd));
    increment(odd);
  });
  const headers = dumpProgram(p.desc).split("\n").filter((l) =>
    l.startsWith("block ")
  );
  assertEquals(headers, [
    "block 0 (parent -1):",
    "block 1 (parent 0): go, movable",
    'block 2 (parent 0): parallel_for, pinned by "total" (written by the block)',
    'block 3 (parent 0): go, pinned by "n \\"1\\"" (written after the spawn by block 0 op 6 (increment))',
  ]);
});

Deno.test("dumpProgram() leaves a go block's header bare when placement cannot be read", () => {
  const desc = create(ProgramDescSchema, {
    blocks: [
      {
        idx: 0,
        parentIdx: -1,
        ops: [{
          type: "go",
          attrs: [{ name: "sub_block", type: AttrType.BLOCK, blockIdx: 1 }],
        }],
      },
      {
        idx: 1,
        parentIdx: 0,
        ops: [{
          type: "select",
          attrs: [{ name: "cases", type: AttrType.STRINGS, strings: ["no"] }],
        }],
      },
    ],
  });
  assertEquals(
    dumpProgram(desc).split("\n").filter((l) => l.startsWith("block ")),
    ["block 0 (parent -1):", "block 1 (parent 0):"],
  );
});
