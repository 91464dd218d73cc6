import { assertEquals, assertInstanceOf, assertRejects } from "@std/assert";
import {
  appendLayer,
  arrayLength,
  arrayRead,
  arrayToTensor,
  arrayWrite,
  assign,
  assignValue,
  createArray,
  defaultProgram,
  fillConstant,
  forRange,
  print,
  splitToArray,
  TensorArray,
} from "../../../mod.ts";
import { ARRAY_OPS } from "../../../runtime/ops/array.ts";
import { Panic } from "../../../scheduler/panic.ts";
import { testOpCases } from "../../_helpers/op_cases.ts";
import { runProgram } from "../../_helpers/run_program.ts";

const m23 = (first = 1) =>
  assignValue([0, 1, 2, 3, 4, 5].map((v) => v + first), { shape: [2, 3] });
const index = (v: number) =>
  fillConstant({ shape: [1], dtype: "int64", value: v });

// An array holding [[1, 2, 3], [4, 5, 6]] at 0 and [[7, 8, 9], [10, 11, 12]] at 1.
function twoItems() {
  const a = createArray();
  arrayWrite(m23(1), index(0), a);
  arrayWrite(m23(7), index(1), a);
  return a;
}

testOpCases("ARRAY_OPS", ARRAY_OPS, {
  create_array: [
    {
      what: "makes a new empty array",
      build: () => {
        const a = createArray();
        print(a);
        return arrayLength(a);
      },
      lines: ["[]"],
      tensors: [{ dtype: "int64", shape: [1], values: [0n] }],
    },
    {
      what: "makes Size empty slots",
      build: () => {
        const a = defaultProgram().currentBlock.createVar({
          name: "a",
          kind: "array",
        });
        appendLayer("create_array", { Size: index(3) }, {}, { Out: a });
        print(a);
        return arrayLength(a);
      },
      lines: ["[<empty>, <empty>, <empty>]"],
      tensors: [{ dtype: "int64", shape: [1], values: [3n] }],
    },
  ],
  write_to_array: [{
    what: "stores in place, growing the array",
    build: () => {
      const a = twoItems();
      arrayWrite(assignValue([1], { dtype: "int32" }), index(3), a);
      print(a, { message: "a" });
      return arrayLength(a);
    },
    lines: [
      "a [[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]], <empty>, 1]",
    ],
    tensors: [{ dtype: "int64", shape: [1], values: [4n] }],
  }],
  read_from_array: [{
    what: "reads the tensor at I",
    build: () => arrayRead(twoItems(), index(1)),
    tensors: [{
      dtype: "float32",
      shape: [2, 3],
      values: [[7, 8, 9], [10, 11, 12]],
    }],
  }],
  array_length: [{
    what: "counts slots as int64",
    build: () => arrayLength(twoItems()),
    tensors: [{ dtype: "int64", shape: [1], values: [2n] }],
  }, {
    // A declared RAW variable starts as the empty list (docs/architecture.md §2);
    // tests/runtime/ops/rpc_test.ts counts a list of workers.
    what: "counts a RAW list's strings",
    build: () => {
      const block = defaultProgram().currentBlock;
      return arrayLength(block.createVar({ name: "addrs", kind: "raw" }));
    },
    tensors: [{ dtype: "int64", shape: [1], values: [0n] }],
  }],
  split_to_array: [
    {
      what: "cuts into Num near-equal chunks",
      build: () => {
        const a = splitToArray(
          assignValue([1, 2, 3, 4, 5, 6, 7], { dtype: "int32" }),
          index(3),
        );
        print(a);
        return arrayLength(a);
      },
      lines: ["[[1, 2, 3], [4, 5], [6, 7]]"],
      tensors: [{ dtype: "int64", shape: [1], values: [3n] }],
    },
    {
      what: "cuts along axis 1",
      build: () => {
        const a = splitToArray(
          m23(),
          fillConstant({ shape: [1], dtype: "int32", value: 2 }),
          { axis: 1 },
        );
        print(a);
      },
      lines: ["[[[1, 2], [4, 5]], [[3], [6]]]"],
    },
  ],
  array_to_tensor: [
    {
      what: "concatenates along axis 0 or 1, or stacks",
      build: () => {
        const a = twoItems();
        return [
          arrayToTensor(a),
          arrayToTensor(a, { axis: 1 }),
          arrayToTensor(a, { useStack: true }),
        ];
      },
      tensors: [
        {
          dtype: "float32",
          shape: [4, 3],
          values: [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]],
        },
        {
          dtype: "float32",
          shape: [2, 6],
          values: [[1, 2, 3, 7, 8, 9], [4, 5, 6, 10, 11, 12]],
        },
        {
          dtype: "float32",
          shape: [2, 2, 3],
          values: [[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]],
        },
      ],
    },
    {
      what: "gives each item's size along axis in OutIndex",
      build: () => {
        const a = twoItems();
        const outIndex = defaultProgram().currentBlock.createVar({
          name: "out_index",
        });
        return appendLayer("array_to_tensor", { X: a }, { axis: 1 }, {
          OutIndex: outIndex,
        }).OutIndex[0];
      },
      tensors: [{ dtype: "int32", shape: [2], values: [3, 3] }],
    },
    {
      what: "stacks bools",
      build: () => {
        const a = createArray();
        arrayWrite(assignValue([true], { dtype: "bool" }), index(0), a);
        arrayWrite(assignValue([false], { dtype: "bool" }), index(1), a);
        const t = arrayToTensor(a, { useStack: true });
        print(t);
        return t;
      },
      lines: ["[[true], [false]]"],
      tensors: [{ dtype: "bool", shape: [2, 1] }],
    },
  ],
});

Deno.test("a tensor array is shared by reference through assign and loops", async () => {
  const run = await runProgram(() => {
    const a = createArray();
    const alias = assign(a);
    forRange(3, (i) => {
      arrayWrite(i, i, alias);
    });
    print(arrayLength(a), { message: "len" });
    return a;
  });
  assertEquals(run.lines, ["len 3"]);
  assertInstanceOf(run.values[0], TensorArray);
  const array = run.values[0] as TensorArray;
  assertEquals(array.snapshot().map((t) => t?.item(0)), [0n, 1n, 2n]);
});

Deno.test("write_to_array panics on a negative index, naming the op", async () => {
  const panic: Panic = await assertRejects(
    () =>
      runProgram(() => {
        arrayWrite(assignValue([1]), index(-1), createArray());
      }),
    Panic,
  );
  assertEquals(panic.where, "block 0 op 3 write_to_array");
});

Deno.test("read_from_array panics on an empty slot", async () => {
  const panic: Panic = await assertRejects(
    () =>
      runProgram(() => {
        const a = createArray();
        arrayWrite(assignValue([1]), index(2), a);
        arrayRead(a, index(0));
      }),
    Panic,
  );
  assertEquals(panic.where, "block 0 op 5 read_from_array");
});

Deno.test("array_to_tensor panics on an array with holes, naming the empty slot", async () => {
  const panic: Panic = await assertRejects(
    () =>
      runProgram(() => {
        const a = createArray();
        arrayWrite(assignValue([1]), index(1), a);
        arrayToTensor(a);
      }),
    Panic,
  );
  assertEquals(panic.where, "block 0 op 4 array_to_tensor");
  assertEquals(
    panic.message.split(" (")[0],
    "array_to_tensor: read from array: index 0 out of range or empty",
  );
});
