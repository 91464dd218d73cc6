import { create } from "@bufbuild/protobuf";
import { assertEquals, assertStringIncludes } from "@std/assert";
import {
  AttrType,
  ProgramDescSchema,
  Scalar_Type,
  VarType_Type,
} from "../../../gen/rill/v1/framework_pb.ts";
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
} from "../../../mod.ts";
import { MAX_VALUE_CHARS } from "../../../runtime/build/dump.ts";
import {
  CALLSTACK_FRAMES,
  FIRST_FRAME,
  paddle2Program,
} from "../../_helpers/paddle2_program.ts";

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
    new URL("../../../examples/while_loop.pb", import.meta.url).pathname,
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

Deno.test("dumpProgram() hides Paddle's bookkeeping and names what it hid in a last line", () => {
  assertEquals(
    dumpProgram(paddle2Program()),
    "block 0 (parent -1):\n" +
      "  var feed FEED_MINIBATCH persistable\n" +
      "  var x LOD_TENSOR float32 [2, 3]\n" +
      "  var fc_0.w_0 LOD_TENSOR float32 [3] persistable\n" +
      "  var y LOD_TENSOR float32 [2, 3]\n" +
      "  var half LOD_TENSOR BF16 [2]\n" +
      "  var words STRINGS\n" +
      '  op 0: fill_constant() -> Out=[x] {shape=[2, 3], dtype=FP32(5), value=1.5, str_value=""}\n' +
      "  op 1: scale(X=[x]) -> Out=[y] {scale=2, bias=0.5, bias_after_scale=true}\n" +
      '  op 2: print(In=[y]) {message="y"}\n' +
      "\n" +
      "hidden: op_role, op_role_var, op_namescope, op_callstack, op_device, with_quant_attr, is_test, use_mkldnn on 3 ops (--all-attrs shows them)\n",
  );
});

Deno.test("dumpProgram() with allAttrs shows the bookkeeping, variables' flags and is_target, long values shortened", () => {
  const text = dumpProgram(paddle2Program(), { allAttrs: true });
  const frame = (line: number) =>
    JSON.stringify(FIRST_FRAME.replace("line 1,", `line ${line},`));
  const bookkeeping = 'op_role=0, op_role_var=[], op_namescope="/", ' +
    `op_callstack=[${frame(1)}, ${frame(2)}, … ${
      CALLSTACK_FRAMES - 2
    } more], ` +
    'op_device="", with_quant_attr=false';
  assertEquals(text.split("\n"), [
    "block 0 (parent -1):",
    "  var feed FEED_MINIBATCH persistable",
    "  var x LOD_TENSOR float32 [2, 3] stop_gradient need_check_feed",
    "  var fc_0.w_0 LOD_TENSOR float32 [3] persistable is_parameter {is_distributed=0}",
    "  var y LOD_TENSOR float32 [2, 3]",
    "  var half LOD_TENSOR BF16 [2]",
    "  var words STRINGS",
    `  op 0: fill_constant() -> Out=[x] {shape=[2, 3], dtype=FP32(5), value=1.5, str_value="", ${bookkeeping}}`,
    `  op 1: scale(X=[x]) -> Out=[y] {scale=2, bias=0.5, bias_after_scale=true, is_test=true, use_mkldnn=false, ${bookkeeping}}`,
    `  op 2: print(In=[y]) {message="y", ${bookkeeping}} is_target`,
    "",
  ]);
});

Deno.test("dumpProgram() keeps is_test where it may mean something: on ops Rill lacks", () => {
  const desc = create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      ops: [
        {
          type: "dropout",
          attrs: [
            { name: "dropout_prob", type: AttrType.FLOAT, f: 0.5 },
            { name: "is_test", type: AttrType.BOOLEAN, b: true },
            { name: "op_device", type: AttrType.STRING, s: "gpu:0" },
          ],
        },
        {
          type: "relu",
          attrs: [{ name: "is_test", type: AttrType.BOOLEAN, b: true }],
        },
      ],
    }],
  });
  assertEquals(dumpProgram(desc).split("\n"), [
    "block 0 (parent -1):",
    "  op 0: dropout() {dropout_prob=0.5, is_test=true}",
    "  op 1: relu()",
    "",
    "hidden: op_device, is_test on 2 ops (--all-attrs shows them)",
    "",
  ]);
});

Deno.test("dumpProgram() hides Paddle's extra attributes at their neutral values only", () => {
  const desc = create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      ops: [{
        type: "elementwise_add",
        attrs: [
          { name: "axis", type: AttrType.INT, i: -1 },
          { name: "x_data_format", type: AttrType.STRING, s: "" },
          { name: "y_data_format", type: AttrType.STRING, s: "NHWC" },
          { name: "Scale_out", type: AttrType.FLOAT, f: 1 },
          { name: "fuse_relu", type: AttrType.BOOLEAN, b: true },
        ],
      }, {
        type: "yolo_box", // an op Rill lacks: its extra attributes all the same
        attrs: [
          { name: "use_cudnn", type: AttrType.BOOLEAN, b: true },
          { name: "fuse_brelu_threshold", type: AttrType.FLOAT, f: 6 },
          { name: "data_format", type: AttrType.STRING, s: "AnyLayout" },
        ],
      }],
    }],
  });
  assertEquals(dumpProgram(desc).split("\n"), [
    "block 0 (parent -1):",
    '  op 0: elementwise_add() {axis=-1, y_data_format="NHWC", fuse_relu=true}',
    '  op 1: yolo_box() {data_format="AnyLayout"}',
    "",
    "hidden: x_data_format, Scale_out, use_cudnn, fuse_brelu_threshold on 2 ops (--all-attrs shows them)",
    "",
  ]);
});

Deno.test("dumpProgram() shortens long values, with or without allAttrs", () => {
  const long = "x".repeat(500);
  const desc = create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      ops: [{
        type: "blob",
        attrs: [
          { name: "s", type: AttrType.STRING, s: long },
          {
            name: "fs",
            type: AttrType.FLOATS,
            floats: new Array(1000).fill(0.5),
          },
          { name: "ss", type: AttrType.STRINGS, strings: [long, "b"] },
          { name: "is", type: AttrType.INTS, ints: [1, 2, 3] },
        ],
      }],
    }],
  });
  const cut = `"${"x".repeat(MAX_VALUE_CHARS)}"… (500 chars)`;
  const halves = `[${new Array(32).fill("0.5").join(", ")}, … 968 more]`;
  for (const allAttrs of [false, true]) {
    assertEquals(
      dumpProgram(desc, { allAttrs }).split("\n")[1],
      `  op 0: blob() {s=${cut}, fs=${halves}, ss=[${cut}, … 1 more], is=[1, 2, 3]}`,
    );
  }
});

Deno.test("dumpProgram() shows Paddle 2.x's attribute types", () => {
  const scalar = (init: Record<string, unknown>) => ({
    name: "s",
    type: AttrType.SCALAR,
    scalar: init,
  });
  const desc = create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      ops: [{
        type: "paddle2_op",
        attrs: [
          { name: "f64", type: AttrType.FLOAT64, float64: 0.1 },
          { name: "f64s", type: AttrType.FLOAT64S, float64s: [1e-300, -2] },
          { name: "v", type: AttrType.VAR, varName: "shape_0.tmp" },
          { name: "vs", type: AttrType.VARS, varsName: ["a", "b c"] },
          { ...scalar({ type: Scalar_Type.BOOLEAN, b: true }), name: "sb" },
          {
            ...scalar({ type: Scalar_Type.LONG, i: -(2n ** 63n) }),
            name: "sl",
          },
          { ...scalar({ type: Scalar_Type.FLOAT64, r: 0.1 }), name: "sf" },
          { name: "none", type: AttrType.SCALAR },
          {
            name: "ss",
            type: AttrType.SCALARS,
            scalars: [
              { type: Scalar_Type.COMPLEX128, c: { r: 1, i: -2 } },
              { type: Scalar_Type.COMPLEX128, c: { r: 0.5 } },
              { type: Scalar_Type.COMPLEX128 },
            ],
          },
        ],
      }],
    }],
  });
  assertEquals(
    dumpProgram(desc).split("\n")[1],
    "  op 0: paddle2_op() {f64=0.1, f64s=[1e-300, -2], v=var(shape_0.tmp), " +
      'vs=[var(a), var("b c")], sb=true, sl=-9223372036854775808, sf=0.1, ' +
      "none=?(SCALAR), ss=[1-2i, 0.5+0i, 0+0i]}",
  );
});

Deno.test("dumpProgram() names a channel's element type, any for a channel of any tensor", () => {
  const channel = (name: string, dataType?: number) => ({
    name,
    type: {
      type: VarType_Type.CHANNEL,
      channel: dataType === undefined ? { capacity: 2n } : { dataType },
    },
  });
  const program = create(ProgramDescSchema, {
    blocks: [{
      idx: 0,
      parentIdx: -1,
      vars: [
        channel("typed", VarType_Type.INT64),
        channel("any", VarType_Type.LOD_TENSOR),
        channel("unset"),
        { name: "bare", type: { type: VarType_Type.CHANNEL } },
      ],
    }],
  });
  assertEquals(dumpProgram(program).split("\n").slice(1, 5), [
    "  var typed CHANNEL int64 capacity 0",
    "  var any CHANNEL any capacity 0",
    "  var unset CHANNEL any capacity 2",
    "  var bare CHANNEL any",
  ]);
});
