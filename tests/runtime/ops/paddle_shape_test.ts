// Paddle's shape ops with the attributes Paddle writes, against values
// worked out by hand; their refusals name the op and the shapes, at
// validation where the shapes are declared and as a panic at run time.

import { assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import { appendLayer, assignValue, fillConstant } from "../../../mod.ts";
import { AttrType } from "../../../gen/rill/v1/framework_pb.ts";
import {
  defaultProgram,
  type Variable,
} from "../../../runtime/build/program.ts";
import { PADDLE_SHAPE_OPS } from "../../../runtime/ops/paddle_shape.ts";
import { Panic } from "../../../scheduler/panic.ts";
import { op, tensor } from "../../_helpers/desc_init.ts";
import {
  assertValid,
  validationError,
} from "../../_helpers/invalid_program.ts";
import { testOpCases } from "../../_helpers/op_cases.ts";
import { runProgram } from "../../_helpers/run_program.ts";

type Slots = Parameters<typeof appendLayer>[1];
type Attrs = Parameters<typeof appendLayer>[2];

const m23 = () => assignValue([1, 2, 3, 4, 5, 6], { shape: [2, 3] });
const int32s = (xs: number[]) => assignValue(xs, { dtype: "int32" });

// The op's outputs, XShape included (a new variable for it).
function withXShape(type: string, inputs: Slots, attrs: Attrs): Variable[] {
  const xShape = defaultProgram().currentBlock.createVar({
    name: defaultProgram().uniqueName(`${type}.xshape`),
  });
  const { Out } = appendLayer(type, inputs, attrs, { XShape: xShape });
  return [Out[0], xShape];
}

function out(type: string, inputs: Slots, attrs: Attrs): Variable {
  return appendLayer(type, inputs, attrs).Out[0];
}

testOpCases("PADDLE_SHAPE_OPS", PADDLE_SHAPE_OPS, {
  reshape2: [
    {
      what: "copies 0 dims and infers -1, writing XShape as [0, ...X's dims]",
      build: () => {
        const x = m23();
        const paddle = (shape: number[]) => ({
          shape,
          use_mkldnn: false,
          mkldnn_data_type: "float32",
          use_quantizer: false,
        });
        return [
          ...withXShape("reshape2", { X: x }, paddle([3, -1])),
          out("reshape2", { X: x }, paddle([0, -1, 1])),
        ];
      },
      tensors: [
        { dtype: "float32", shape: [3, 2], values: [[1, 2], [3, 4], [5, 6]] },
        { dtype: "float32", shape: [0, 2, 3], values: [] },
        {
          dtype: "float32",
          shape: [2, 3, 1],
          values: [[[1], [2], [3]], [[4], [5], [6]]],
        },
      ],
    },
    {
      what: "takes ShapeTensor, then Shape, over the attribute",
      build: () => {
        const x = m23();
        return [
          out("reshape2", { X: x, ShapeTensor: [int32s([3]), int32s([-1])] }, {
            shape: [1, 6],
          }),
          out("reshape2", {
            X: x,
            Shape: assignValue([6], { dtype: "int64" }),
          }, { shape: [1, 6] }),
        ];
      },
      tensors: [
        { dtype: "float32", shape: [3, 2], values: [[1, 2], [3, 4], [5, 6]] },
        { dtype: "float32", shape: [6], values: [1, 2, 3, 4, 5, 6] },
      ],
    },
  ],
  transpose2: [{
    what: "permutes dims, negative axes counting from the end",
    build: () => [
      ...withXShape("transpose2", { X: m23() }, { axis: [1, 0] }),
      out("transpose2", {
        X: assignValue([1, 2, 3, 4, 5, 6, 7, 8], { shape: [2, 2, 2] }),
      }, { axis: [-1, 0, 1] }),
    ],
    tensors: [
      { dtype: "float32", shape: [3, 2], values: [[1, 4], [2, 5], [3, 6]] },
      { dtype: "float32", shape: [0, 2, 3], values: [] },
      {
        dtype: "float32",
        shape: [2, 2, 2],
        values: [[[1, 3], [5, 7]], [[2, 4], [6, 8]]],
      },
    ],
  }],
  squeeze2: [{
    what:
      "drops dims of 1: all without axes, listed ones otherwise, keeping a listed dim that is not 1",
    build: () => {
      const x = assignValue([1, 2, 3], { shape: [1, 3, 1] });
      return [
        ...withXShape("squeeze2", { X: x }, { axes: [] }),
        out("squeeze2", { X: x }, { axes: [-3] }),
        out("squeeze2", { X: x }, { axes: [1] }),
      ];
    },
    tensors: [
      { dtype: "float32", shape: [3], values: [1, 2, 3] },
      { dtype: "float32", shape: [0, 1, 3, 1], values: [] },
      { dtype: "float32", shape: [3, 1], values: [[1], [2], [3]] },
      { dtype: "float32", shape: [1, 3, 1], values: [[[1], [2], [3]]] },
    ],
  }],
  unsqueeze2: [
    {
      what: "inserts dims of 1 in turn, negative axes counting from the end",
      build: () => [
        ...withXShape("unsqueeze2", { X: assignValue([1, 2, 3]) }, {
          axes: [0, -1],
        }),
        out("unsqueeze2", { X: m23() }, { axes: [-2] }),
      ],
      tensors: [
        { dtype: "float32", shape: [1, 3, 1], values: [[[1], [2], [3]]] },
        { dtype: "float32", shape: [0, 3], values: [] },
        {
          dtype: "float32",
          shape: [2, 1, 3],
          values: [[[1, 2, 3]], [[4, 5, 6]]],
        },
      ],
    },
    {
      what: "reads AxesTensorList, then AxesTensor, when axes is empty",
      build: () => {
        const x = assignValue([1, 2]);
        return [
          out("unsqueeze2", { X: x, AxesTensor: int32s([1]) }, { axes: [] }),
          out("unsqueeze2", {
            X: x,
            AxesTensorList: [int32s([0])],
            AxesTensor: int32s([1]),
          }, { axes: [] }),
          out("unsqueeze2", { X: x, AxesTensor: int32s([1]) }, { axes: [0] }),
        ];
      },
      tensors: [
        { dtype: "float32", shape: [2, 1], values: [[1], [2]] },
        { dtype: "float32", shape: [1, 2], values: [[1, 2]] },
        { dtype: "float32", shape: [1, 2], values: [[1, 2]] },
      ],
    },
  ],
  flatten_contiguous_range: [{
    what: "merges dims start_axis..stop_axis; rank 0 becomes [1]",
    build: () => {
      const x = assignValue([1, 2, 3, 4, 5, 6, 7, 8], { shape: [2, 2, 2] });
      return [
        ...withXShape("flatten_contiguous_range", { X: x }, {
          start_axis: 1,
          stop_axis: 2,
        }),
        out("flatten_contiguous_range", { X: x }, {
          start_axis: 0,
          stop_axis: -1,
        }),
        out("flatten_contiguous_range", { X: x }, {}),
        out("flatten_contiguous_range", {
          X: fillConstant({ shape: [], value: 4 }),
        }, { start_axis: 0, stop_axis: -1 }),
      ];
    },
    tensors: [
      {
        dtype: "float32",
        shape: [2, 4],
        values: [[1, 2, 3, 4], [5, 6, 7, 8]],
      },
      { dtype: "float32", shape: [0, 2, 2, 2], values: [] },
      { dtype: "float32", shape: [8], values: [1, 2, 3, 4, 5, 6, 7, 8] },
      {
        dtype: "float32",
        shape: [2, 2, 2],
        values: [[[1, 2], [3, 4]], [[5, 6], [7, 8]]],
      },
      { dtype: "float32", shape: [1], values: [4] },
    ],
  }],
  stack: [{
    what: "joins into Y along a new axis",
    build: () => {
      const xs = [assignValue([1, 2]), assignValue([3, 4])];
      return [
        appendLayer("stack", { X: xs }, { axis: 0 }).Y[0],
        appendLayer("stack", { X: xs }, { axis: -1 }).Y[0],
      ];
    },
    tensors: [
      { dtype: "float32", shape: [2, 2], values: [[1, 2], [3, 4]] },
      { dtype: "float32", shape: [2, 2], values: [[1, 3], [2, 4]] },
    ],
  }],
  unstack: [{
    what: "cuts into num tensors without the axis",
    build: () => {
      const x = m23();
      return [
        ...appendLayer("unstack", { X: x }, { axis: 0, num: 2 }, {
          Y: [0, 1].map((i) =>
            defaultProgram().currentBlock.createVar({ name: `row${i}` })
          ),
        }).Y,
        ...appendLayer("unstack", { X: x }, { axis: -1, num: 3 }, {
          Y: [0, 1, 2].map((i) =>
            defaultProgram().currentBlock.createVar({ name: `column${i}` })
          ),
        }).Y,
      ];
    },
    tensors: [
      { dtype: "float32", shape: [3], values: [1, 2, 3] },
      { dtype: "float32", shape: [3], values: [4, 5, 6] },
      { dtype: "float32", shape: [2], values: [1, 4] },
      { dtype: "float32", shape: [2], values: [2, 5] },
      { dtype: "float32", shape: [2], values: [3, 6] },
    ],
  }],
  expand_v2: [{
    what:
      "repeats dims of 1 and adds leading dims; -1 keeps X's dim; Shape overrides",
    build: () => {
      const x = assignValue([1, 2], { shape: [2, 1] });
      return [
        out("expand_v2", { X: x }, { shape: [2, 3] }),
        out("expand_v2", { X: x }, { shape: [2, -1, 2] }),
        out("expand_v2", { X: x, Shape: int32s([1, 2, 2]) }, { shape: [] }),
      ];
    },
    tensors: [
      { dtype: "float32", shape: [2, 3], values: [[1, 1, 1], [2, 2, 2]] },
      {
        dtype: "float32",
        shape: [2, 2, 2],
        values: [[[1, 1], [2, 2]], [[1, 1], [2, 2]]],
      },
      { dtype: "float32", shape: [1, 2, 2], values: [[[1, 1], [2, 2]]] },
    ],
  }],
  fill_constant_batch_size_like: [{
    what: "takes its batch dim from Input, as PaddleTS LSTNet writes it",
    build: () => {
      const input = fillConstant({ shape: [3, 5] });
      const paddle = (dtype: number, value: number, str: string) => ({
        shape: [1, -1, 2],
        dtype,
        value,
        str_value: str,
        input_dim_idx: 0,
        output_dim_idx: 1,
        force_cpu: false,
      });
      return [
        out("fill_constant_batch_size_like", { Input: input }, {
          ...paddle(5, 0, "0.0"),
        }),
        out("fill_constant_batch_size_like", { Input: input }, {
          ...paddle(5, 1, "2.5"),
          shape: [2, 1],
          output_dim_idx: 1,
          input_dim_idx: 1,
        }),
        out("fill_constant_batch_size_like", { Input: input }, {
          ...paddle(3, 0, "9007199254740993"),
          shape: [-1],
          output_dim_idx: 0,
        }),
      ];
    },
    tensors: [
      {
        dtype: "float32",
        shape: [1, 3, 2],
        values: [[[0, 0], [0, 0], [0, 0]]],
      },
      {
        dtype: "float32",
        shape: [2, 5],
        values: [[2.5, 2.5, 2.5, 2.5, 2.5], [2.5, 2.5, 2.5, 2.5, 2.5]],
      },
      {
        dtype: "int64",
        shape: [3],
        values: [9007199254740993n, 9007199254740993n, 9007199254740993n],
      },
    ],
  }],
  pixel_shuffle: [{
    what:
      "moves channel i·r + j of pixel (y, x) to pixel (y·r + i, x·r + j), NCHW and NHWC",
    build: () => {
      const nchw = assignValue(Array.from({ length: 16 }, (_, k) => k), {
        shape: [1, 4, 2, 2],
      });
      // The same image channels-last: element (y, x, k) is 4k + 2y + x.
      const nhwc = assignValue(
        [0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15],
        { shape: [1, 2, 2, 4] },
      );
      return [
        out("pixel_shuffle", { X: nchw }, {
          upscale_factor: 2,
          data_format: "NCHW",
        }),
        out("pixel_shuffle", { X: nhwc }, {
          upscale_factor: 2,
          data_format: "NHWC",
        }),
      ];
    },
    tensors: [
      {
        dtype: "float32",
        shape: [1, 1, 4, 4],
        values: [[[
          [0, 4, 1, 5],
          [8, 12, 9, 13],
          [2, 6, 3, 7],
          [10, 14, 11, 15],
        ]]],
      },
      {
        dtype: "float32",
        shape: [1, 4, 4, 1],
        values: [[
          [[0], [4], [1], [5]],
          [[8], [12], [9], [13]],
          [[2], [6], [3], [7]],
          [[10], [14], [11], [15]],
        ]],
      },
    ],
  }],
});

// ---- refusals ---------------------------------------------------------------

function refusal(
  x: number[],
  type: string,
  attrs: Parameters<typeof op>[3],
  outputs: Record<string, string[]> = { Out: ["out"] },
): string {
  const e = validationError(
    [tensor("x", x), tensor("out"), tensor("xshape")],
    [op(type, { X: ["x"] }, outputs, attrs)],
  );
  assertEquals(e.where.opType, type);
  assertEquals([e.where.block, e.where.op], [0, 0]);
  return e.message;
}

const ints = (name: string, values: number[]) => ({
  name,
  type: AttrType.INTS,
  ints: values,
});

Deno.test("validateProgram() refuses a reshape2 whose target does not match the size, naming the shapes", () => {
  assertEquals(
    refusal([2, 3], "reshape2", [ints("shape", [4, 2])], {
      Out: ["out"],
      XShape: ["xshape"],
    }),
    "p.pb: block 0 op 0 (reshape2): reshape2: X [2, 3] (6 elements) cannot become [4, 2]",
  );
  assertEquals(
    refusal([2, 3], "reshape2", [ints("shape", [-1, -1])]),
    "p.pb: block 0 op 0 (reshape2): reshape2: shape [-1, -1] has more than one -1",
  );
  assertEquals(
    refusal([2, 3], "reshape2", [ints("shape", [4, -1])]),
    "p.pb: block 0 op 0 (reshape2): reshape2: X [2, 3] (6 elements) cannot become [4, -1]",
  );
});

Deno.test("validateProgram() accepts a reshape2 of a batch it does not know", () => {
  assertValid([tensor("x", [-1, 6]), tensor("out", [-1, 2, 3])], [
    op("reshape2", { X: ["x"] }, { Out: ["out"] }, [ints("shape", [0, 2, 3])]),
  ]);
});

Deno.test("reshape2 panics when ShapeTensor gives another size, naming the op and shapes", async () => {
  const panic: Panic = await assertRejects(
    () =>
      runProgram(() => {
        out("reshape2", { X: m23(), ShapeTensor: [int32s([4])] }, {});
      }),
    Panic,
  );
  assertEquals(panic.where, "block 0 op 2 reshape2");
  assertStringIncludes(
    panic.message,
    "reshape2: X [2, 3] (6 elements) cannot become [4]",
  );
});

Deno.test("validateProgram() refuses bad axes and shapes of the other ops, naming the op and shapes", () => {
  assertEquals(
    refusal([2, 3], "transpose2", [ints("axis", [0, 0])]),
    "p.pb: block 0 op 0 (transpose2): transpose2: axis [0, 0] is not a permutation of the dims of X [2, 3]",
  );
  assertEquals(
    refusal([1, 3], "squeeze2", [ints("axes", [2])]),
    "p.pb: block 0 op 0 (squeeze2): squeeze2: axis 2 is out of range for X [1, 3]",
  );
  assertEquals(
    refusal([2, 3], "unsqueeze2", [ints("axes", [4])]),
    "p.pb: block 0 op 0 (unsqueeze2): unsqueeze2: axis 4 is out of range for [2, 3] (of X [2, 3])",
  );
  assertEquals(
    refusal([2, 3, 4], "flatten_contiguous_range", [
      { name: "start_axis", type: AttrType.INT, i: 2 },
      { name: "stop_axis", type: AttrType.INT, i: 1 },
    ]),
    "p.pb: block 0 op 0 (flatten_contiguous_range): flatten_contiguous_range: start_axis 2 and stop_axis 1 do not name a range of the dims of X [2, 3, 4]",
  );
  assertEquals(
    refusal([2, 3], "expand_v2", [ints("shape", [4, 3])]),
    "p.pb: block 0 op 0 (expand_v2): expand_v2: X [2, 3] cannot expand to [4, 3]: dim 0 of X is 2, neither 1 nor 4",
  );
  assertEquals(
    refusal([2, 3], "unstack", [
      { name: "num", type: AttrType.INT, i: 3 },
    ], { Y: ["out"] }),
    "p.pb: block 0 op 0 (unstack): unstack: X [2, 3] has 2 along axis 0, not num 3",
  );
  assertEquals(
    refusal([1, 6, 2, 2], "pixel_shuffle", [
      { name: "upscale_factor", type: AttrType.INT, i: 2 },
    ]),
    "p.pb: block 0 op 0 (pixel_shuffle): pixel_shuffle: X [1, 6, 2, 2]: 6 channels do not divide by upscale_factor² = 4",
  );
});

Deno.test("validateProgram() refuses stack inputs of different shapes", () => {
  const e = validationError(
    [tensor("a", [2, 3]), tensor("b", [3, 2]), tensor("y")],
    [op("stack", { X: ["a", "b"] }, { Y: ["y"] })],
  );
  assertEquals(
    e.message,
    "p.pb: block 0 op 0 (stack): stack: X[0] [2, 3] and X[1] [3, 2] differ",
  );
});

Deno.test("validateProgram() refuses a fill_constant_batch_size_like whose output_dim_idx is outside shape", () => {
  const e = validationError([tensor("x", [3]), tensor("out")], [
    op("fill_constant_batch_size_like", { Input: ["x"] }, { Out: ["out"] }, [
      ints("shape", [1, 2]),
      { name: "output_dim_idx", type: AttrType.INT, i: 2 },
    ]),
  ]);
  assertEquals(e.where.attr, "output_dim_idx");
});

Deno.test("expand_v2 panics at run time on a shape tensor X cannot expand to", async () => {
  const panic: Panic = await assertRejects(
    () =>
      runProgram(() => {
        out("expand_v2", { X: m23(), Shape: int32s([3, 3]) }, {});
      }),
    Panic,
  );
  assertEquals(panic.where, "block 0 op 2 expand_v2");
  assertStringIncludes(panic.message, "X [2, 3] cannot expand to [3, 3]");
});

// ---- large enough for the GPU ----------------------------------------------

Deno.test("pixel_shuffle, expand_v2, stack and unstack move every element of tensors large enough for the GPU", async () => {
  const [n, c, h, w, r] = [2, 16, 32, 16, 2];
  const size = n * c * h * w;
  const iota = Array.from({ length: size }, (_, i) => i);
  const { values } = await runProgram(() => {
    const x = assignValue(iota, { shape: [n, c, h, w] });
    const column = assignValue(iota.slice(0, 128), { shape: [128, 1] });
    const stacked = appendLayer("stack", { X: [x, x] }, { axis: 1 }).Y[0];
    const parts = appendLayer("unstack", { X: x }, { axis: 1, num: c }, {
      Y: iota.slice(0, c).map((i) =>
        defaultProgram().currentBlock.createVar({ name: `part${i}` })
      ),
    }).Y;
    return [
      out("pixel_shuffle", { X: x }, { upscale_factor: r }),
      out("expand_v2", { X: column }, { shape: [128, 256] }),
      stacked,
      parts[5],
    ];
  });
  const [shuffled, expanded, stacked, part] = values.map((v) =>
    v as unknown as { shape: number[]; data: ArrayLike<number> }
  );
  assertEquals(shuffled.shape, [n, c / (r * r), h * r, w * r]);
  let i = 0;
  for (let b = 0; b < n; b++) {
    for (let k = 0; k < c / (r * r); k++) {
      for (let y = 0; y < h * r; y++) {
        for (let x = 0; x < w * r; x++, i++) {
          const from = k * r * r + (y % r) * r + (x % r);
          const want = ((b * c + from) * h + Math.floor(y / r)) * w +
            Math.floor(x / r);
          if (shuffled.data[i] !== want) {
            throw new Error(`pixel_shuffle element ${i}: ${shuffled.data[i]}`);
          }
        }
      }
    }
  }
  assertEquals(expanded.shape, [128, 256]);
  for (let e = 0; e < 128 * 256; e++) {
    assertEquals(expanded.data[e], Math.floor(e / 256));
  }
  assertEquals(stacked.shape, [n, 2, c, h, w]);
  assertEquals(stacked.data[c * h * w + 7], 7); // X's first batch again
  assertEquals(part.shape, [n, h, w]);
  assertEquals(part.data[h * w + 3], (c + 5) * h * w + 3);
});
