import {
  assertEquals,
  assertRejects,
  assertStringIncludes,
  assertThrows,
} from "@std/assert";
import {
  appendLayer,
  assignValue,
  concat,
  fillConstant,
  gather,
  print,
  Program,
  reshape,
  slice,
  split,
  transpose,
} from "../../../mod.ts";
import { SHAPE_OPS } from "../../../runtime/ops/shape.ts";
import { Panic } from "../../../scheduler/panic.ts";
import { testOpCases } from "../../_helpers/op_cases.ts";
import { runProgram } from "../../_helpers/run_program.ts";

const m23 = () => assignValue([1, 2, 3, 4, 5, 6], { shape: [2, 3] });
const int32s = (values: number[]) => assignValue(values, { dtype: "int32" });

testOpCases("SHAPE_OPS", SHAPE_OPS, {
  reshape: [
    {
      what: "infers -1 and copies 0 from X's dims",
      build: () => {
        const x = m23();
        const r = reshape(x, [3, -1]);
        print(r);
        return [r, reshape(x, [0, 3]), reshape(x, [6])];
      },
      lines: ["[[1, 2], [3, 4], [5, 6]]"],
      tensors: [
        { dtype: "float32", shape: [3, 2] },
        { dtype: "float32", shape: [2, 3], values: [[1, 2, 3], [4, 5, 6]] },
        { dtype: "float32", shape: [6], values: [1, 2, 3, 4, 5, 6] },
      ],
    },
    {
      what: "reshapes rank 0 and empty tensors",
      build: () => [
        reshape(fillConstant({ shape: [], value: 5 }), [1]),
        reshape(fillConstant({ shape: [1], value: 5 }), []),
        reshape(fillConstant({ shape: [0, 3] }), [3, -1]),
      ],
      tensors: [
        { dtype: "float32", shape: [1], values: [5] },
        { dtype: "float32", shape: [], values: 5 },
        { dtype: "float32", shape: [3, 0], values: [[], [], []] },
      ],
    },
  ],
  transpose: [{
    what: "permutes dims, keeping int64 exact",
    build: () => [
      transpose(m23(), [1, 0]),
      transpose(
        assignValue([1n, 2n, 3n, 4n, 5n, 6n, 7n, 2n ** 60n], {
          dtype: "int64",
          shape: [2, 2, 2],
        }),
        [2, 0, 1],
      ),
    ],
    tensors: [
      { dtype: "float32", shape: [3, 2], values: [[1, 4], [2, 5], [3, 6]] },
      {
        dtype: "int64",
        shape: [2, 2, 2],
        values: [[[1n, 3n], [5n, 7n]], [[2n, 4n], [6n, 2n ** 60n]]],
      },
    ],
  }],
  concat: [
    {
      what: "joins along axis 0 or 1",
      build: () => {
        const x = m23();
        return [concat([x, x]), concat([x, x], { axis: 1 })];
      },
      tensors: [
        {
          dtype: "float32",
          shape: [4, 3],
          values: [[1, 2, 3], [4, 5, 6], [1, 2, 3], [4, 5, 6]],
        },
        {
          dtype: "float32",
          shape: [2, 6],
          values: [[1, 2, 3, 1, 2, 3], [4, 5, 6, 4, 5, 6]],
        },
      ],
    },
    {
      what: "joins an empty [0, 3] input",
      build: () =>
        concat([
          fillConstant({ shape: [0, 3] }),
          assignValue([1, 2, 3], { shape: [1, 3] }),
        ]),
      tensors: [{ dtype: "float32", shape: [1, 3], values: [[1, 2, 3]] }],
    },
  ],
  split: [
    {
      what: "cuts into num equal parts",
      build: () => split(m23(), { num: 3, axis: 1 }),
      tensors: [
        { dtype: "float32", shape: [2, 1], values: [[1], [4]] },
        { dtype: "float32", shape: [2, 1], values: [[2], [5]] },
        { dtype: "float32", shape: [2, 1], values: [[3], [6]] },
      ],
    },
    {
      what: "cuts into sections, one of them -1",
      build: () =>
        split(assignValue([1, 2, 3, 4, 5, 6], { dtype: "int32" }), {
          sections: [2, -1],
        }),
      tensors: [
        { dtype: "int32", shape: [2], values: [1, 2] },
        { dtype: "int32", shape: [4], values: [3, 4, 5, 6] },
      ],
    },
  ],
  slice: [
    {
      what: "takes [starts, ends) along axes, negative from the end",
      build: () => {
        const x = m23();
        return [
          slice(x, { axes: [1], starts: [1], ends: [3] }),
          slice(x, { axes: [0, 1], starts: [-1, 0], ends: [2, -1] }),
          slice(x, { axes: [1], starts: [-10], ends: [100] }),
          slice(x, { axes: [1], starts: [2], ends: [2] }),
        ];
      },
      tensors: [
        { dtype: "float32", shape: [2, 2], values: [[2, 3], [5, 6]] },
        { dtype: "float32", shape: [1, 2], values: [[4, 5]] },
        { dtype: "float32", shape: [2, 3], values: [[1, 2, 3], [4, 5, 6]] },
        { dtype: "float32", shape: [2, 0], values: [[], []] },
      ],
    },
    {
      what: "takes Starts and Ends tensors over the attributes",
      build: () =>
        appendLayer("slice", {
          Input: assignValue([1, 2, 3, 4, 5]),
          Starts: int32s([1]),
          Ends: assignValue([3], { dtype: "int64" }),
        }, { axes: [0], starts: [0], ends: [1] }).Out[0],
      tensors: [{ dtype: "float32", shape: [2], values: [2, 3] }],
    },
    {
      what:
        "drops decrease_axis dims as Paddle writes them (infer_flags, tensor lists)",
      build: () => {
        const x = m23();
        const paddle = {
          axes: [0],
          starts: [1],
          ends: [2],
          decrease_axis: [0],
          infer_flags: [1],
        };
        return [
          appendLayer("slice", { Input: x }, paddle).Out[0],
          appendLayer("slice", { Input: x }, {
            axes: [0, 1],
            starts: [1, 2],
            ends: [2, 3],
            decrease_axis: [0, 1],
            infer_flags: [1, 1],
          }).Out[0],
          appendLayer("slice", {
            Input: x,
            StartsTensorList: [int32s([-2])],
            EndsTensor: assignValue([1204], { dtype: "int64" }),
          }, { axes: [1], starts: [0], ends: [1], infer_flags: [-1] }).Out[0],
        ];
      },
      tensors: [
        { dtype: "float32", shape: [3], values: [4, 5, 6] },
        { dtype: "float32", shape: [1], values: [6] },
        { dtype: "float32", shape: [2, 2], values: [[2, 3], [5, 6]] },
      ],
    },
  ],
  gather: [
    {
      what: "picks rows, or columns along axis 1",
      build: () => {
        const x = m23();
        return [
          gather(x, int32s([1, 0])),
          gather(x, assignValue([2, 0, 2], { dtype: "int64" }), { axis: 1 }),
        ];
      },
      tensors: [
        { dtype: "float32", shape: [2, 3], values: [[4, 5, 6], [1, 2, 3]] },
        { dtype: "float32", shape: [2, 3], values: [[3, 1, 3], [6, 4, 6]] },
      ],
    },
    {
      what: "gathers nothing with an empty index",
      build: () =>
        gather(
          assignValue([1, 2, 3, 4]),
          assignValue([], { dtype: "int32", shape: [0] }),
        ),
      tensors: [{ dtype: "float32", shape: [0], values: [] }],
    },
  ],
});

Deno.test("reshape() refuses a shape of another size when the program is built", () => {
  const program = new Program();
  assertThrows(
    () => program.guard(() => reshape(m23(), [4, 2])),
    TypeError,
    "reshape: [2, 3] cannot become [4, 2]",
  );
});

Deno.test("gather panics on an index out of range, naming the op and shapes", async () => {
  const panic: Panic = await assertRejects(
    () =>
      runProgram(() => {
        gather(assignValue([1, 2, 3, 4]), int32s([4]));
      }),
    Panic,
  );
  assertEquals(panic.where, "block 0 op 2 gather");
  assertStringIncludes(panic.message, "index 4 is out of range");
  assertStringIncludes(
    panic.message,
    '(X "assign_value.out_0" float32[4], Index "assign_value.out_1" int32[1])',
  );
});

Deno.test("concat panics on inputs that differ off the axis", async () => {
  const panic: Panic = await assertRejects(
    () =>
      runProgram(() => {
        concat([
          fillConstant({ shape: [2, 3] }),
          fillConstant({ shape: [2, 2] }),
        ]);
      }),
    Panic,
  );
  assertEquals(panic.where, "block 0 op 2 concat");
});

Deno.test("slice refuses a decrease_axis dim that is not 1, naming the op and shape", async () => {
  const program = new Program();
  assertThrows(
    () =>
      program.guard(() =>
        appendLayer("slice", { Input: m23() }, {
          axes: [1],
          starts: [0],
          ends: [2],
          decrease_axis: [1],
        })
      ),
    TypeError,
    "slice: decrease_axis 1 is not a dim of 1 in [2, 2]",
  );
  const panic: Panic = await assertRejects(
    () =>
      runProgram(() => {
        appendLayer("slice", {
          Input: m23(),
          StartsTensor: int32s([0]),
        }, { axes: [1], starts: [0], ends: [2], decrease_axis: [1] });
      }),
    Panic,
  );
  assertEquals(panic.where, "block 0 op 2 slice");
  assertStringIncludes(panic.message, "decrease_axis 1 is not a dim of 1");
});
