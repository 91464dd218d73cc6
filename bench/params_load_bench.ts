// Loading a 10 MB `.pdiparams` (issue 19: decode + tensors ≤ 50 ms): a
// model directory Rill writes in Paddle's combined form, its parameters
// float32 and about 10 MiB in all, laid out two ways — 40 large tensors
// (an MLP's or a transformer's weights) and 400 small ones (a MobileNet's
// many convolution and batch-norm parameters). Two rows each: the bytes
// already in memory (`readPaddleTensors`: records checked, tensors made)
// and the whole `loadModel` (program and parameter files read from disk,
// each parameter checked against its declaration). Run:
//   deno bench -A bench/params_load_bench.ts

import { join } from "@std/path";
import { Program, Tensor, writePaddleTensors } from "../mod.ts";
import { loadModel } from "../runtime/format/model_dir.ts";
import { readPaddleTensors } from "../runtime/format/paddle_tensor.ts";

const TOTAL_FLOATS = (10 * 2 ** 20) / 4;

/** A model directory of `count` float32 parameters of equal size. */
async function modelDir(
  count: number,
): Promise<{ dir: string; bytes: Uint8Array }> {
  const per = Math.floor(TOTAL_FLOATS / count);
  const program = new Program();
  const tensors: Tensor[] = [];
  for (let i = 0; i < count; i++) {
    // Names sort in creation order, as save_combine writes them.
    const name = `param_${String(i).padStart(4, "0")}`;
    program.globalBlock.createVar({
      name,
      dtype: "float32",
      shape: [per],
      persistable: true,
    });
    const values = new Float32Array(per).map((_, j) => ((i + j) % 97) / 97);
    tensors.push(new Tensor("float32", [per], values));
  }
  const dir = await Deno.makeTempDir({ prefix: "rill-params-" });
  await program.save(join(dir, "model.pdmodel"));
  const bytes = writePaddleTensors(tensors);
  await Deno.writeFile(join(dir, "model.pdiparams"), bytes);
  return { dir, bytes };
}

for (const count of [40, 400]) {
  const { dir, bytes } = await modelDir(count);
  const mib = (bytes.length / 2 ** 20).toFixed(1);
  Deno.bench(
    `readPaddleTensors: ${count} float32 tensors, ${mib} MiB in memory`,
    {
      group: `params ${count}`,
      baseline: true,
    },
    () => {
      readPaddleTensors(bytes, count);
    },
  );
  Deno.bench(`loadModel: ${count} float32 parameters, ${mib} MiB from disk`, {
    group: `params ${count}`,
  }, async () => {
    await loadModel(dir);
  });
  globalThis.addEventListener(
    "unload",
    () => Deno.removeSync(dir, { recursive: true }),
  );
}
