// Models saved by PaddlePaddle itself (tests/data/paddle_models/README.md):
// loaded from their directories and run through Rill, their outputs
// compared with what reference.py computes in NumPy from the same files.
// Between them they run every op type the models use: feed, mul,
// elementwise_add, tanh, softmax, gather and fetch, with the attributes
// Paddle saved on them.

import { assertEquals } from "@std/assert";
import { decodeNpy, Executor, Program, type Tensor } from "../../../mod.ts";
import { ROOT } from "../../_helpers/rill_process.ts";
import { tensorOf } from "../../_helpers/run_program.ts";

const MODELS = `${ROOT}tests/data/paddle_models`;

/**
 * float32 results agree with the float64 NumPy reference within this: the
 * MLP sums 784 and 200 products per output in float32, an error of a few
 * ulps of values below 1.
 */
const TOLERANCE = 1e-5;

async function npy(name: string): Promise<Tensor> {
  return decodeNpy(await Deno.readFile(`${MODELS}/${name}`));
}

function assertClose(got: Tensor, want: Tensor): void {
  assertEquals([got.dtype, got.shape], [want.dtype, want.shape]);
  const worst = Array.from(got.data as Float32Array).reduce(
    (w, g, i) => Math.max(w, Math.abs(g - Number(want.data[i]))),
    0,
  );
  if (!(worst <= TOLERANCE)) {
    throw new Error(`differs from the reference by ${worst} > ${TOLERANCE}`);
  }
}

Deno.test("Program.load() runs Fluid's recognize_digits MLP (one file per parameter) as NumPy does", async () => {
  const program = await Program.load(`${MODELS}/recognize_digits_mlp`);
  assertEquals(
    [...program.parameters.keys()].sort(),
    ["fc_0.b_0", "fc_0.w_0", "fc_1.b_0", "fc_1.w_0", "fc_2.b_0", "fc_2.w_0"],
  );
  const ops = program.desc.blocks[0].ops.map((op) => op.type);
  assertEquals([...new Set(ops)].sort(), [
    "elementwise_add",
    "feed",
    "fetch",
    "mul",
    "softmax",
    "tanh",
  ]);
  const { fetched } = await new Executor().run(program, {
    feeds: { img: await npy("recognize_digits_mlp_input.npy") },
    fetch: ["fc_2.tmp_2"],
  });
  assertClose(
    tensorOf(fetched["fc_2.tmp_2"]),
    await npy("recognize_digits_mlp_expected.npy"),
  );
});

Deno.test("Program.load() runs Paddle-Lite's gather model (combined parameters) as NumPy does", async () => {
  const program = await Program.load(`${MODELS}/gather_combined`);
  assertEquals(
    program.parameters.get("place_holder_weight")?.toNested(),
    [1],
  );
  const { fetched } = await new Executor().run(program, {
    feeds: {
      input_data: await npy("gather_combined_input_data.npy"),
      index_data: await npy("gather_combined_index_data.npy"),
    },
    fetch: ["output_data"],
  });
  assertClose(
    tensorOf(fetched.output_data),
    await npy("gather_combined_expected.npy"),
  );
});
