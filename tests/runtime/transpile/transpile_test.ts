// transpile(): the master and worker op lists and dumps for the design
// doc's mult and for a Paddle model directory, and the refusals, each
// naming the op and the variable that prevent the split.

import { assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
import {
  assignValue,
  fillConstant,
  mul,
  print,
  Program,
  read,
  relu,
  softmax,
  transpose,
} from "../../../mod.ts";
import { dumpProgram } from "../../../runtime/build/dump.ts";
import { ProgramError } from "../../../runtime/core/errors.ts";
import { loadModel } from "../../../runtime/format/model_dir.ts";
import { transpile } from "../../../runtime/transpile/transpile.ts";
import {
  IGNORE_PADDLE_MODELS,
  PADDLE_MODELS,
} from "../../_helpers/paddle_models.ts";

const MLP = `${PADDLE_MODELS}/recognize_digits_mlp`;

function types(ops: readonly { type: string }[]): string[] {
  return ops.map((op) => op.type);
}

/** The design doc's `X = read(...); W = tensor; Y = mult(X, W); print(Y)`. */
function mult(): Program {
  const p = new Program();
  p.guard(() => {
    const [x] = read("x.npy");
    const w = assignValue([1, 3, 2, 4], { shape: [2, 2] });
    print(mul(x, w), { message: "Y" });
  });
  return p;
}

Deno.test("transpile() splits mult into the design doc's master and worker", () => {
  const { master, worker } = transpile(mult().desc, {
    labelSelector: "app=rill-worker",
    port: 7070,
  });
  assertEquals(types(master.blocks[0].ops), [
    "read",
    "kube_get_workers_addrs",
    "array_length",
    "split_to_array",
    "create_array",
    "parallel_for",
    "array_to_tensor",
    "print",
  ]);
  assertEquals(types(master.blocks[1].ops), [
    "read_from_array",
    "send",
    "recv",
    "write_to_array",
  ]);
  assertEquals(types(worker.blocks[0].ops), ["assign_value", "listen_and_do"]);
  assertEquals(types(worker.blocks[1].ops), ["mul"]);
  const masterDump = dumpProgram(master);
  assertStringIncludes(
    masterDump,
    'op 1: kube_get_workers_addrs() -> Out=[workers] {label_selector="app=rill-worker", port=7070}',
  );
  assertStringIncludes(
    masterDump,
    "op 6: array_to_tensor(X=[results]) -> Out=[mul.out_0]",
  );
  assertStringIncludes(
    masterDump,
    "op 1: send(X=[piece], Endpoints=[workers], Index=[index])",
  );
  assertStringIncludes(
    dumpProgram(worker),
    'op 1: listen_and_do() {endpoint="127.0.0.1:7070", sub_block=block 1, input_var="read.out_0", output_var="mul.out_0", max_requests=0}',
  );
});

Deno.test({
  name:
    "transpile() keeps a model's feed and fetch on the master and its parameters on the worker",
  ignore: IGNORE_PADDLE_MODELS,
  fn: async () => {
    const model = await loadModel(MLP);
    const { master, worker } = transpile(model.desc);
    assertEquals(types(master.blocks[0].ops), [
      "feed",
      "kube_get_workers_addrs",
      "array_length",
      "split_to_array",
      "create_array",
      "parallel_for",
      "array_to_tensor",
      "fetch",
    ]);
    assertEquals(
      master.blocks[0].vars.some((v) =>
        v.persistable && v.name.startsWith("fc_")
      ),
      false,
    );
    assertEquals(types(worker.blocks[0].ops), ["listen_and_do"]);
    assertEquals(
      worker.blocks[0].vars.map((v) => v.name).sort(),
      [...model.parameters.keys()].sort(),
    );
    assertEquals(types(worker.blocks[1].ops), [
      "mul",
      "elementwise_add",
      "tanh",
      "mul",
      "elementwise_add",
      "tanh",
      "mul",
      "elementwise_add",
      "softmax",
    ]);
  },
});

function refusal(build: () => void): ProgramError {
  const p = new Program();
  p.guard(build);
  return assertThrows(() => transpile(p.desc), ProgramError);
}

Deno.test("transpile() refuses an op that mixes rows, naming it and the variable", () => {
  const e = refusal(() => {
    const [x] = read("x.npy");
    print(relu(transpose(x, [1, 0])));
  });
  assertEquals(
    [e.where.op, e.where.opType, e.where.variable],
    [1, "transpose", "read.out_0"],
  );
});

Deno.test("transpile() refuses the data input on a product's right", () => {
  const e = refusal(() => {
    const [x] = read("x.npy");
    print(mul(assignValue([1, 2, 3, 4], { shape: [2, 2] }), x));
  });
  assertEquals([e.where.opType, e.where.variable], ["mul", "read.out_0"]);
});

Deno.test("transpile() refuses a softmax over the rows' axis", () => {
  const e = refusal(() => {
    const [x] = read("x.npy");
    print(softmax(x, { axis: 0 }));
  });
  assertEquals([e.where.opType, e.where.variable], ["softmax", "read.out_0"]);
});

Deno.test("transpile() refuses a print of a parameter and a program without output", () => {
  const e = refusal(() => {
    read("x.npy");
    print(fillConstant({ shape: [1] }));
  });
  assertEquals(e.where.opType, "print");
  assertEquals(e.where.variable, "fill_constant.out_0");
  assertStringIncludes(e.message, "does not depend on the data input");
  const none = refusal(() => void read("x.npy"));
  assertStringIncludes(none.message, "no print or fetch");
});
