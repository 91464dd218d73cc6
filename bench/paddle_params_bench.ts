// Loading parameters: a 10 MB combined `.pdiparams` (148 float32 tensors of
// a conv net's shapes, written by writePaddleTensors into a temporary file)
// read from disk and decoded into tensors, as loadModel does; and the
// shared MobileNetV3 model directory loaded whole (program and 1.6 MB of
// parameters), where ../shared/paddle-models (or RILL_PADDLE_MODELS) has it.
// Issue 19's bar: a 10 MB .pdiparams in at most 50 ms.
//
//   deno bench -A bench/paddle_params_bench.ts

import {
  loadModel,
  readPaddleTensors,
  Tensor,
  writePaddleTensors,
} from "../mod.ts";

// 2.6M float32 elements in [64, 64, 3, 3], [64] and [256, 64] tensors.
const shapes: number[][] = [];
for (let elements = 0, i = 0; elements < 2_621_440; i++) {
  const shape = [[64, 64, 3, 3], [64], [256, 64]][i % 3];
  shapes.push(shape);
  elements += shape.reduce((p, d) => p * d, 1);
}
const dir = await Deno.makeTempDir({ prefix: "rill-params-bench-" });
const file = `${dir}/params.pdiparams`;
await Deno.writeFile(
  file,
  writePaddleTensors(shapes.map((s) => Tensor.full(s, "float32", 0.5))),
);
globalThis.addEventListener("unload", () => {
  Deno.removeSync(dir, { recursive: true });
});

Deno.bench(
  `read and decode a ${
    ((await Deno.stat(file)).size / 2 ** 20).toFixed(1)
  } MiB .pdiparams (${shapes.length} tensors)`,
  { group: "params", baseline: true },
  async () => {
    const tensors = readPaddleTensors(await Deno.readFile(file), shapes.length);
    if (tensors.length !== shapes.length) throw new Error("tensors lost");
  },
);

const models = Deno.env.get("RILL_PADDLE_MODELS") ??
  new URL("../../shared/paddle-models", import.meta.url).pathname;
const mbv3 = `${models}/mbv3_small_3cls`;
const hasMbv3 = await Deno.stat(mbv3).then(() => true, () => false);

Deno.bench({
  name: "loadModel MobileNetV3-small (program and 214 parameters, 1.5 MiB)",
  group: "params",
  ignore: !hasMbv3,
  async fn() {
    await loadModel(mbv3);
  },
});
