// Paddle's activations, clip, pow, log_softmax and dropout, built with the
// attributes Paddle writes, against values computed by hand or from closed
// forms (Φ for gelu), never by Rill's kernels.

import {
  assert,
  assertAlmostEquals,
  assertEquals,
  assertRejects,
  assertStringIncludes,
} from "@std/assert";
import { appendLayer, assignValue } from "../../../mod.ts";
import { AttrType } from "../../../gen/rill/v1/framework_pb.ts";
import {
  defaultProgram,
  type Variable,
} from "../../../runtime/build/program.ts";
import { ACTIVATION_OPS } from "../../../runtime/ops/activation.ts";
import { Panic } from "../../../scheduler/panic.ts";
import { op, tensor } from "../../_helpers/desc_init.ts";
import { validationError } from "../../_helpers/invalid_program.ts";
import { testOpCases } from "../../_helpers/op_cases.ts";
import { runForTensors, runProgram } from "../../_helpers/run_program.ts";

const f32 = Math.fround;
type Attrs = Parameters<typeof appendLayer>[2];

function out(type: string, x: Variable, attrs: Attrs): Variable {
  return appendLayer(type, { X: x }, attrs).Out[0];
}

const values = (xs: number[]) => assignValue(xs);

testOpCases("ACTIVATION_OPS", ACTIVATION_OPS, {
  gelu: [{
    what: "is X·Φ(X), exact or with the tanh approximation",
    build: () => {
      const x = values([-1, 0, 1, 2]);
      return [
        out("gelu", x, { approximate: false, use_mkldnn: false }),
        out("gelu", values([1]), { approximate: true }),
      ];
    },
    tensors: [
      {
        dtype: "float32",
        shape: [4],
        // Φ(-1), Φ(1), Φ(2) from tables of the normal distribution.
        values: [
          f32(-0.15865525393145707),
          0,
          f32(0.8413447460685429),
          f32(2 * 0.9772498680518208),
        ],
      },
      {
        dtype: "float32",
        shape: [1],
        values: [
          f32(0.5 * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * 1.044715))),
        ],
      },
    ],
  }],
  swish: [{
    what: "is X·sigmoid(beta·X)",
    build: () => out("swish", values([-1, 0, 2]), { beta: 1 }),
    tensors: [{
      dtype: "float32",
      shape: [3],
      values: [f32(-1 / (1 + Math.E)), 0, f32(2 / (1 + Math.exp(-2)))],
    }],
  }],
  hard_swish: [{
    what: "takes threshold, scale and offset as MobileNetV3 writes them",
    build: () =>
      out("hard_swish", values([-4, -1, 1, 4, 10]), {
        threshold: 6,
        scale: 6,
        offset: 3,
      }),
    tensors: [{
      dtype: "float32",
      shape: [5],
      values: [-0, f32(-1 / 3), f32(2 / 3), 4, 10],
    }],
  }],
  hard_sigmoid: [{
    what: "takes slope and offset as MobileNetV3 writes them",
    build: () =>
      out("hard_sigmoid", values([-3, 0, 1, 3]), { slope: 0.2, offset: 0.5 }),
    tensors: [{
      dtype: "float32",
      shape: [4],
      values: [0, 0.5, f32(f32(0.2) + 0.5), 1],
    }],
  }],
  leaky_relu: [{
    what: "scales negative elements by alpha (default 0.02)",
    build: () => [
      out("leaky_relu", values([-2, 3]), {}),
      out("leaky_relu", values([-2, 3]), { alpha: 0.5 }),
    ],
    tensors: [
      { dtype: "float32", shape: [2], values: [f32(-2 * f32(0.02)), 3] },
      { dtype: "float32", shape: [2], values: [-1, 3] },
    ],
  }],
  relu6: [{
    what: "clamps to [0, threshold]",
    build: () => out("relu6", values([-1, 3, 7]), { threshold: 6 }),
    tensors: [{ dtype: "float32", shape: [3], values: [0, 3, 6] }],
  }],
  elu: [{
    what: "is alpha·(e^X - 1) below zero",
    build: () => out("elu", values([-1, 0, 2]), { alpha: 1 }),
    tensors: [{
      dtype: "float32",
      shape: [3],
      values: [f32(Math.exp(-1) - 1), 0, 2],
    }],
  }],
  thresholded_relu: [{
    what: "keeps X above threshold and gives value elsewhere (NaN too)",
    build: () => [
      out("thresholded_relu", values([0.5, 1, 2]), {}),
      out("thresholded_relu", values([-2, 0, NaN]), {
        threshold: -1,
        value: 4,
      }),
    ],
    tensors: [
      { dtype: "float32", shape: [3], values: [0, 0, 2] },
      { dtype: "float32", shape: [3], values: [4, 0, 4] },
    ],
  }],
  clip: [
    {
      what: "clamps to [min, max]",
      build: () => out("clip", values([-2, 0.5, 3]), { min: -1, max: 1 }),
      tensors: [{ dtype: "float32", shape: [3], values: [-1, 0.5, 1] }],
    },
    {
      what: "takes Min and Max tensors over the attributes",
      build: () =>
        appendLayer("clip", {
          X: values([-2, 0.5, 3]),
          Min: values([0]),
          Max: values([2]),
        }, { min: -1, max: 1 }).Out[0],
      tensors: [{ dtype: "float32", shape: [3], values: [0, 0.5, 2] }],
    },
  ],
  pow: [
    {
      what: "raises to factor, or to FactorTensor",
      build: () => {
        const x = values([1, -2, 3]);
        return [
          out("pow", x, { factor: 2 }),
          appendLayer("pow", { X: x, FactorTensor: values([3]) }, {
            factor: 2,
          }).Out[0],
        ];
      },
      tensors: [
        { dtype: "float32", shape: [3], values: [1, 4, 9] },
        { dtype: "float32", shape: [3], values: [1, -8, 27] },
      ],
    },
    {
      what: "keeps an integer X's dtype, truncating the factor",
      build: () =>
        out("pow", assignValue([3, -2], { dtype: "int32" }), { factor: 2.5 }),
      tensors: [{ dtype: "int32", shape: [2], values: [9, 4] }],
    },
  ],
  log_softmax: [{
    what: "is log(softmax) along axis, -Infinity kept",
    build: () => [
      out("log_softmax", assignValue([0, 0, 5, 5], { shape: [2, 2] }), {
        axis: -1,
      }),
      out("log_softmax", values([0, -Infinity]), { axis: 0 }),
    ],
    tensors: [
      {
        dtype: "float32",
        shape: [2, 2],
        values: [[f32(-Math.LN2), f32(-Math.LN2)], [
          f32(-Math.LN2),
          f32(-Math.LN2),
        ]],
      },
      { dtype: "float32", shape: [2], values: [0, -Infinity] },
    ],
  }],
  dropout: [{
    what:
      "at inference scales by 1 - p (downgrade_in_infer) or passes X (upscale_in_train)",
    build: () => {
      const x = values([1, 2, -5]);
      const paddle = (implementation: string) => ({
        dropout_implementation: implementation,
        dropout_prob: 0.2,
        is_test: true,
        fix_seed: false,
        seed: 0,
      });
      return [
        out("dropout", x, paddle("downgrade_in_infer")),
        out("dropout", x, paddle("upscale_in_train")),
      ];
    },
    tensors: [
      // X · (1 - 0.2) in float32: 1.0f - 0.2f is 0.8f.
      { dtype: "float32", shape: [3], values: [f32(0.8), f32(1.6), -4] },
      { dtype: "float32", shape: [3], values: [1, 2, -5] },
    ],
  }],
});

Deno.test("log_softmax matches log-sum-exp on uneven values", async () => {
  const { tensors: [y] } = await runForTensors(() =>
    out("log_softmax", values([1, 2, 3]), {})
  );
  const lse = Math.log(Math.E + Math.E ** 2 + Math.E ** 3);
  [1, 2, 3].forEach((x, i) =>
    assertAlmostEquals(y.item(i) as number, x - lse, 1e-6)
  );
});

Deno.test("dropout in training keeps an element where its draw is at least p, and Mask says which", async () => {
  const n = 40000;
  const x = Array.from({ length: n }, (_, i) => i + 1);
  const { tensors: [y, mask, again] } = await runForTensors(() => {
    const attrs = {
      dropout_implementation: "upscale_in_train",
      dropout_prob: 0.25,
      is_test: false,
      fix_seed: true,
      seed: 7,
    };
    const input = values(x);
    const block = defaultProgram().currentBlock;
    const mask = block.createVar({ name: "mask", dtype: "uint8" });
    const first = appendLayer("dropout", { X: input }, attrs, { Mask: mask });
    return [first.Out[0], mask, out("dropout", input, attrs)];
  });
  assertEquals(mask.dtype, "uint8");
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const m = mask.item(i) as number;
    kept += m;
    // Kept elements are divided by 1 - p in float32.
    assertEquals(y.item(i), m === 1 ? f32(x[i] / f32(0.75)) : 0);
  }
  assert(Math.abs(kept / n - 0.75) < 0.03, `kept ${kept} of ${n}`);
  // A fixed seed draws the same mask each time.
  assertEquals(again.toNested(), y.toNested());
});

Deno.test("dropout in training drops everything at p = 1 and nothing at p = 0", async () => {
  const { tensors } = await runForTensors(() => {
    const x = values([1, 2, 3]);
    const train = (p: number, implementation: string) =>
      out("dropout", x, {
        dropout_prob: p,
        dropout_implementation: implementation,
      });
    return [
      train(1, "upscale_in_train"),
      train(1, "downgrade_in_infer"),
      train(0, "upscale_in_train"),
    ];
  });
  assertEquals(tensors.map((t) => t.toNested()), [
    [0, 0, 0],
    [0, 0, 0],
    [1, 2, 3],
  ]);
});

Deno.test("validateProgram() refuses clip with min above max, naming the attribute", () => {
  const e = validationError([tensor("x", [3]), tensor("y")], [
    op("clip", { X: ["x"] }, { Out: ["y"] }, [
      { name: "min", type: AttrType.FLOAT, f: 2 },
      { name: "max", type: AttrType.FLOAT, f: 1 },
    ]),
  ]);
  assertEquals(e.where.attr, "max");
  assertEquals(
    e.message,
    'p.pb: block 0 op 0 (clip): attribute "max": 1 is below min 2',
  );
});

Deno.test("validateProgram() refuses an unknown dropout_implementation", () => {
  const e = validationError([tensor("x", [3]), tensor("y")], [
    op("dropout", { X: ["x"] }, { Out: ["y"] }, [
      {
        name: "dropout_implementation",
        type: AttrType.STRING,
        s: "upscale_in_infer",
      },
    ]),
  ]);
  assertEquals(e.where.attr, "dropout_implementation");
});

Deno.test("pow panics on a FactorTensor of two elements, naming the op", async () => {
  const panic: Panic = await assertRejects(
    () =>
      runProgram(() => {
        appendLayer("pow", { X: values([1]), FactorTensor: values([2, 3]) });
      }),
    Panic,
  );
  assertEquals(panic.where, "block 0 op 2 pow");
  assertStringIncludes(panic.message, 'input "FactorTensor" has 2 elements');
});
