// WorkerInputs: a tensor fits when --feed would take it for the same
// variable (dtype, rank, dims with -1 for any size, no shape declared: any
// shape), a tensor named twice fits either declaration, and each refusal
// is a WorkerInputError whose problem, endpoint and tensor say what is
// wrong. declarationIn() finds a variable where an op of a block sees it.

import { assertEquals, assertThrows } from "@std/assert";
import { create } from "@bufbuild/protobuf";
import {
  ProgramDescSchema,
  type VarDesc,
  VarDescSchema,
} from "../../../gen/rill/v1/framework_pb.ts";
import type { DType } from "../../../kernels/dtype.ts";
import { Tensor } from "../../../kernels/tensor.ts";
import { fitsDeclaration } from "../../../runtime/core/declared_fit.ts";
import {
  declarationIn,
  WorkerInputError,
  WorkerInputs,
} from "../../../runtime/cluster/worker_inputs.ts";

function tensorVar(name: string, dataType: number, dims?: bigint[]): VarDesc {
  return create(VarDescSchema, {
    name,
    type: { type: 7, lodTensor: { tensor: { dataType, dims: dims ?? [] } } },
  });
}

const E = "listen_and_do";

Deno.test("WorkerInputs.checkTensor() takes what --feed takes", () => {
  const variables = [
    tensorVar("x", 5, [-1n, 2n]),
    tensorVar("ids", 3),
    tensorVar("mask", 0, [4n]),
  ];
  const tensors: [DType, number[]][] = [
    ["float32", [0, 2]],
    ["float32", [9, 2]],
    ["float32", [9, 3]],
    ["float32", [18]],
    ["float32", [1, 9, 2]],
    ["float64", [9, 2]],
    ["int64", []],
    ["int64", [4, 4]],
    ["int32", [4]],
    ["bool", [4]],
    ["bool", [9, 2]],
  ];
  for (const variable of variables) {
    const inputs = new WorkerInputs([[E, [{ tensor: "input", variable }]]]);
    for (const [dtype, shape] of tensors) {
      // --feed's rule, on a real tensor of that dtype and shape.
      const fits = fitsDeclaration(variable, Tensor.zeros(shape, dtype));
      const what = `${variable.name} ← ${dtype} [${shape}]`;
      if (fits) {
        inputs.checkTensor(E, { name: "input", dtype, shape });
        continue;
      }
      const e = assertThrows(
        () => inputs.checkTensor(E, { name: "input", dtype, shape }),
        WorkerInputError,
        undefined,
        what,
      );
      assertEquals([e.problem, e.endpoint, e.tensor], [
        "wrong_tensor",
        E,
        "input",
      ], what);
    }
  }
});

Deno.test("WorkerInputs fits a tensor declared by several servers to any of them", () => {
  const inputs = new WorkerInputs([
    [E, [{ tensor: "input", variable: tensorVar("a", 5, [-1n, 2n]) }]],
    [E, [{ tensor: "input", variable: tensorVar("b", 3, [3n]) }]],
  ]);
  inputs.checkTensor(E, { name: "input", dtype: "float32", shape: [1, 2] });
  inputs.checkTensor(E, { name: "input", dtype: "int64", shape: [3] });
  const e = assertThrows(
    () => inputs.checkTensor(E, { name: "input", dtype: "int32", shape: [3] }),
    WorkerInputError,
  );
  assertEquals(
    e.message,
    'tensor "input": variable "a" is declared float32 [-1, 2] or variable "b" ' +
      "is declared int64 [3], the call sends int32 [3]",
  );
});

Deno.test("WorkerInputs refuses another endpoint, an unknown name and a missing tensor", () => {
  const inputs = new WorkerInputs([[E, [
    { tensor: "input", variable: tensorVar("x", 5, [-1n, 2n]) },
  ]]]);
  const cases: [() => void, string, string | undefined, string][] = [
    [
      () => inputs.checkEndpoint("echo"),
      "no_endpoint",
      undefined,
      'endpoint "echo": the worker serves only "listen_and_do"',
    ],
    [
      () =>
        inputs.checkTensor(E, { name: "x\n", dtype: "float32", shape: [1, 2] }),
      "unknown_tensor",
      "x\n",
      'tensor "x\\n": endpoint "listen_and_do" takes only "input"',
    ],
    [
      () => inputs.checkComplete(E, new Set()),
      "missing_tensor",
      "input",
      'tensor "input": the call does not send it (variable "x", float32 [-1, 2])',
    ],
  ];
  for (const [check, problem, tensor, message] of cases) {
    const e = assertThrows(check, WorkerInputError);
    assertEquals([e.problem, e.tensor, e.message], [problem, tensor, message]);
  }
  inputs.checkEndpoint(E);
  inputs.checkComplete(E, new Set(["input"]));
  const none = new WorkerInputs([]);
  assertThrows(
    () => none.checkEndpoint(E),
    WorkerInputError,
    'endpoint "listen_and_do": the worker serves none',
  );
});

Deno.test("declarationIn() looks in the block, then its ancestors, and stops on a cycle", () => {
  const desc = create(ProgramDescSchema, {
    blocks: [
      { idx: 0, parentIdx: -1, vars: [tensorVar("img", 5, [-1n, 3n])] },
      { idx: 1, parentIdx: 0, vars: [tensorVar("h", 5)] },
      { idx: 2, parentIdx: 1, vars: [tensorVar("img", 3)] },
      { idx: 3, parentIdx: 4 },
      { idx: 4, parentIdx: 3 },
    ],
  });
  assertEquals(
    declarationIn(desc, 1, "img")?.type?.lodTensor?.tensor?.dataType,
    5,
  );
  assertEquals(
    declarationIn(desc, 2, "img")?.type?.lodTensor?.tensor?.dataType,
    3,
  );
  assertEquals(declarationIn(desc, 2, "h")?.name, "h");
  assertEquals(declarationIn(desc, 0, "h"), undefined);
  assertEquals(declarationIn(desc, 3, "img"), undefined);
  assertEquals(declarationIn(desc, 9, "img"), undefined);
});
